/**
 * A sweep: the same matrix for every launch variant, one server at a time. Each variant's
 * server is started through the supervisor, measured by the run orchestrator into its own
 * session file, and stopped before the next; a variant whose server fails to start is recorded
 * with its root cause and the sweep goes on. The folder's sweep.json says where it stands, so a
 * stopped sweep resumes. See docs/sweeps.md.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunHandle } from '../../engine/bench/start-run';
import type { WorkerLauncher } from '../../engine/bench';
import type { GpuTelemetry } from '../../platform/hardware';
import { labelOf } from '#shared/report/compare-model';
import type { BenchEvent, RunConfigInput } from '../../engine/bench/types';
import { RunRefused, startOrchestratedRun } from '../orchestrator/orchestrator';
import type { ServerHardwareOptions } from '../orchestrator/server-hardware';
import { launchServer } from '../orchestrator/server-side';
import { LaunchedRegistry } from '../../engine/server/launched-registry';
import type { LaunchOptions } from '../../engine/server/launch';
import { Supervisor } from '../../engine/server/supervisor';
import { type SweepManifest, type VariantState, writeManifest } from './manifest';

interface SweepRunOptions {
  dir: string;
  manifest: SweepManifest;
  config: RunConfigInput;
  /** The server launch of a variant (the command with its settings applied). */
  launchFor: (v: VariantState) => LaunchOptions;
  hardware: ServerHardwareOptions;
  readyTimeoutMs?: number;
  registry?: LaunchedRegistry;
  say: (text: string) => void;
  onEvent: (variant: number, e: BenchEvent) => void;
  /** Where a variant stands: its server starting, its matrix measuring, or it ended (its state is in the manifest). */
  onVariant?: (variant: number, stage: 'starting' | 'measuring' | 'ended') => void;
  /** How each variant's benchmark worker starts (the app: utilityProcess); default a Node child process. */
  launcher?: WorkerLauncher;
  /** The supervisor of a variant's server (the app shows it in its Server view); default a new one. */
  supervisorFor?: (variant: number, launch: LaunchOptions) => Supervisor;
  /** Live GPU telemetry to record into each session, when the server runs on this machine. */
  localTelemetry?: () => GpuTelemetry | null;
  /** Run this variant only (a Slurm job runs one variant of the sweep); default all not done. */
  only?: number;
  /** Record a variant that ended; default: write sweep.json (a Slurm job writes its own outcome file instead). */
  saveVariant?: (variant: number, v: VariantState) => Promise<void>;
}

type SweepOutcome = 'completed' | 'cancelled';

const label = (i: number, v: VariantState, n: number) =>
  `Variant ${labelOf(i)} (${i + 1}/${n}) ${v.label || '(as given)'}`;

export class SweepRun {
  private stopped = false;
  private supervisor: Supervisor | null = null;
  private handle: RunHandle | null = null;
  readonly done: Promise<SweepOutcome>;

  constructor(private readonly o: SweepRunOptions) {
    this.done = this.run();
  }

  /** Stop after saving: the current cell is cancelled, its server stopped, the manifest written. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.handle) await this.handle.stop();
    else await this.supervisor?.stop();
  }

  private async save(i: number, v: VariantState): Promise<void> {
    if (this.o.saveVariant) return this.o.saveVariant(i, v);
    const w = await writeManifest(this.o.dir, this.o.manifest);
    if (!w.ok) this.o.say(`warning: could not update the sweep index: ${w.error}`);
  }

  private async run(): Promise<SweepOutcome> {
    const variants = this.o.manifest.variants;
    for (let i = 0; i < variants.length; i++) {
      if (this.stopped) break;
      const v = variants[i];
      if (v.state === 'done' || (this.o.only !== undefined && i !== this.o.only)) continue;
      await this.runVariant(i, v);
      await this.save(i, v);
      this.o.onVariant?.(i, 'ended');
    }
    return this.stopped ? 'cancelled' : 'completed';
  }

  private async runVariant(i: number, v: VariantState): Promise<void> {
    const name = label(i, v, this.o.manifest.variants.length);
    const sessionFile = join(this.o.dir, v.file);
    this.o.say(`${name}: starting the server...`);
    this.o.onVariant?.(i, 'starting');
    const launch = this.o.launchFor(v);
    this.supervisor = this.o.supervisorFor?.(i, launch) ?? new Supervisor();
    const started = await launchServer(
      launch,
      {
        readyTimeoutMs: this.o.readyTimeoutMs,
        userKvTokens: this.o.config.kvBudgetTokens,
        registry: this.o.registry,
        onRestart: this.o.say,
      },
      this.supervisor,
    );
    if (!started.ok) {
      if (this.stopped) return;
      const f = started.error;
      v.state = 'failed';
      v.failure = [f.message, ...f.rootCauseLines].join(' ');
      this.o.say(`${name}: the server did not start: ${v.failure}`);
      return;
    }
    try {
      const run = await startOrchestratedRun({
        server: started.data,
        config: this.o.config,
        sessionFile,
        resume: v.state === 'partial' && existsSync(sessionFile),
        hardware: this.o.hardware,
        localTelemetry: this.o.localTelemetry,
        launcher: this.o.launcher,
        onEvent: (e) => this.o.onEvent(i, e),
      });
      this.handle = run.handle;
      this.o.onVariant?.(i, 'measuring');
      if (this.stopped) void run.handle.stop();
      await run.handle.done;
      const outcome = run.handle.outcome();
      v.state = outcome === 'completed' ? 'done' : 'partial';
      v.failure = outcome === 'failed' ? 'the server went down during the run and did not come back' : null;
      this.o.say(`${name}: ${v.state === 'done' ? 'done' : 'stopped; resume the sweep to finish it'}.`);
    } catch (e) {
      v.state = 'failed';
      v.failure = e instanceof RunRefused ? [e.message, ...e.notes].join(' ') : (e as Error).message;
      this.o.say(`${name}: ${v.failure}`);
    } finally {
      this.handle = null;
      const rep = await started.data.stop();
      if (rep.leftBehind.length) this.o.say(`warning: ${rep.summary}`);
      this.supervisor = null;
    }
  }
}
