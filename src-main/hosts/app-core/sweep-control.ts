/**
 * Sweeps in the app: the launch variants the Server view holds, run one server at a time by the
 * same SweepRun as `speedmatrix sweep`, into a sweep folder the CLI can resume and report. While
 * a sweep runs, its servers show in the Server view (the page can neither start nor stop one),
 * the current variant's matrix comes as ordinary run updates, and 'sweep:update' says where each
 * variant stands. See docs/sweeps.md.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BenchEvent, RunConfigInput, WorkerLauncher } from '../../engine/bench';
import { measurementsToRun } from '../../engine/bench/plan';
import type { GpuTelemetry } from '../../platform/hardware';
import { writeSweepReports } from '../../workflows/sweep/reports';
import { labelOf } from '#shared/report/compare-model';
import { buildLaunch } from '../../engine/server';
import type { LaunchedRegistry } from '../../engine/server/launched-registry';
import { createSweep, needsApiKey, sweepLauncher, sweepOutcomeLine } from '../../workflows/sweep/folder';
import { SWEEP_MANIFEST, type SweepManifest, type VariantState, readManifest } from '../../workflows/sweep/manifest';
import { planSweep, sweepPlanLine, sweepSecondsLeft } from '../../workflows/sweep/plan';
import { SweepRun } from '../../workflows/sweep/run-sweep';
import type { SweepPlanView, SweepVariantView, SweepView } from '#shared/ipc/contract';
import type { RunForm, ServerForm, SweepStart } from '#shared/ipc/forms';
import { IDLE_SWEEP } from '#shared/ipc/idle-sweep';
import { mean } from '#shared/mean';
import type { Hardware } from '#shared/session/schema';
import { isDoneForResume } from '#shared/session/status-words';
import { type AxisInput, checkAxes, variantsOf } from '#shared/sweep/variants';
import type { CoreEvents } from './emitter';
import { toConfig, type RunControl } from './run-control';
import { formToLaunch } from './server-form';
import type { ServerControl } from './server-control';
import { type CommandGate, commandToConfirm } from './command-gate';
import { CancelledError, UserError } from './user-error';

interface SweepDeps {
  events: CoreEvents;
  server: ServerControl;
  runs: RunControl;
  registry: LaunchedRegistry;
  hardware(): Promise<Hardware | undefined>;
  telemetry(): GpuTelemetry | null;
  /** The folder dialog, where there is one. */
  chooseFolder?: () => Promise<string | null>;
  /** False in the app: a sweep writes only into a folder the person chose in the dialog. */
  allowWritePaths: boolean;
  /** Asks the person before the page's commands, or a sweep folder's from elsewhere, are spawned. */
  gate?: CommandGate;
  /** How benchmark workers start (the app: utilityProcess, as for a run); default a Node child process. */
  launcher?: WorkerLauncher;
}

/** A sweep on a remote host runs from the CLI (README "A GPU server over SSH"). */
const ON_HOST =
  'A sweep runs on this machine here: for one on the remote host, use `speedmatrix sweep --ssh HOST` (README "A GPU server over SSH").';
const ATTACH =
  'A sweep needs SpeedMatrix to launch the server, one per variant: choose an engine it starts (not Attach to URL).';
const HELD = 'A sweep is running: it starts and stops the servers itself. Stop it in the Run view first.';
/** How often the overall ETA is sent while a sweep runs. */
const TICK_MS = 1000;

/** The server command and environment a launch form gives, as `speedmatrix sweep` would take them. */
function commandOf(form: ServerForm, port: number): { command: string[]; env: Record<string, string> } {
  const launch = formToLaunch(form, port);
  if (!launch.ok) throw new UserError(`Fix the launch form first: ${launch.error}`);
  const built = buildLaunch(launch.data);
  // The simulator as the CLI names it (`given`); the Node that runs it is chosen again at each launch.
  return { command: built.given?.argv ?? built.argv, env: built.env };
}

/** The sweep being run: its folder's index, and what the time left is worked out from. */
interface Active {
  manifest: SweepManifest;
  /** The plan's measuring seconds per variant. */
  planned: number;
  /** The plan's seconds per server start, where its command says (the simulator); else null. */
  plannedStart: number | null;
  /** Seconds each server of this sweep run took to start, once up. */
  starts: number[];
  startedAt: Map<number, number>;
  /** Wall seconds of the variants measured in this run, server start included. */
  finished: number[];
  runs: ReturnType<RunControl['followSweep']>;
}

/**
 * Where a new sweep goes: the folder chosen when it is missing or empty; one holding a sweep is
 * for Resume; any other gets a new folder inside, named by the time (the folder dialog cannot
 * make a new folder on every OS).
 */
function newSweepDir(dir: string): string {
  if (!existsSync(dir) || readdirSync(dir).length === 0) return dir;
  if (existsSync(join(dir, SWEEP_MANIFEST)))
    throw new UserError(`${dir} holds a sweep already: finish it with Resume sweep, or choose another folder.`);
  return join(dir, `sweep-${new Date().toISOString().replace(/[:.]/g, '-')}`);
}

export class SweepControl {
  /** Sweep folders this process created: resuming one needs no question. */
  private readonly startedHere = new Set<string>();
  private view: SweepView = IDLE_SWEEP;
  private sweep: SweepRun | null = null;
  private finished: Promise<void> | null = null;
  private lastDir: string | null = null;
  private apiKey: string | undefined;
  private readonly chosen = new Set<string>();
  private tick: ReturnType<typeof setInterval> | null = null;
  private settingUp = false;

  constructor(private readonly deps: SweepDeps) {}

  running(): boolean {
    return this.sweep !== null;
  }

  snapshot(): SweepView {
    return this.view;
  }

  /** The variants of the Server view checked, each wrong field named, and the plan over this matrix. */
  async plan(form: ServerForm, axes: AxisInput[], run: RunForm): Promise<SweepPlanView> {
    const { axes: good, problems } = checkAxes(axes);
    const none: SweepPlanView = { problems, blocked: null, variants: [], plan: null, line: null };
    if (form.kind === 'attach') return { ...none, blocked: ATTACH };
    if (form.where === 'ssh') return { ...none, blocked: ON_HOST };
    if (problems.length || good.length === 0) return none;
    let base;
    try {
      base = commandOf(form, form.port ?? (await this.deps.server.portFor(form.host)));
    } catch (e) {
      return { ...none, blocked: (e as Error).message };
    }
    const launchFor = sweepLauncher(base, form.apiKey || undefined);
    const variants = variantsOf(good);
    const plan = planSweep(
      variants.map((v) => ({ state: 'pending' as const, launch: launchFor(v) })),
      toConfig(run),
    );
    return {
      problems,
      blocked: null,
      variants: variants.map((v, i) => ({
        letter: labelOf(i),
        label: v.label,
        display: buildLaunch(launchFor(v)).display,
      })),
      plan,
      line: sweepPlanLine(plan),
    };
  }

  async chooseDir(): Promise<string> {
    if (!this.deps.chooseFolder) throw new UserError('There is no folder dialog here: type the folder path.');
    const dir = await this.deps.chooseFolder();
    if (!dir) throw new CancelledError();
    this.chosen.add(resolve(dir));
    return dir;
  }

  start(req: SweepStart): Promise<SweepView> {
    return this.opening(() => this.startNew(req));
  }

  /** Finish a stopped sweep: its variants not done run, a partly measured one continues its own session. */
  resume(dir?: string, apiKey?: string): Promise<SweepView> {
    return this.opening(() => this.resumeIn(dir, apiKey));
  }

  /** One sweep at a time, also while one is being set up. */
  private async opening(open: () => Promise<SweepView>): Promise<SweepView> {
    if (this.sweep || this.settingUp) throw new UserError('A sweep is running already: stop it first.');
    if (this.deps.runs.running()) throw new UserError('A run is going: stop it before starting a sweep.');
    this.settingUp = true;
    try {
      return await open();
    } finally {
      this.settingUp = false;
    }
  }

  /** The sweep launches its own servers: one started here by hand goes first; an attached one cannot. */
  private async freeTheServer(): Promise<void> {
    if (this.deps.server.snapshot().kind === 'attach' && this.deps.server.target()) throw new UserError(ATTACH);
    const state = this.deps.server.snapshot().state;
    if (state === 'starting' || state === 'ready') await this.deps.server.stop();
  }

  private async startNew(req: SweepStart): Promise<SweepView> {
    if (req.server.kind === 'attach') throw new UserError(ATTACH);
    if (req.server.where === 'ssh') throw new UserError(ON_HOST);
    const { axes, problems } = checkAxes(req.axes);
    if (problems.length)
      throw new UserError(`Varied setting ${problems[0].axis + 1}, ${problems[0].field}: ${problems[0].message}.`);
    const dir = this.writableDir(req.dir);
    await this.freeTheServer();
    const base = commandOf(req.server, req.server.port ?? (await this.deps.server.portFor(req.server.host)));
    await this.confirmVariants('Start this sweep?', base, variantsOf(axes), req.server.apiKey || undefined);
    const into = newSweepDir(dir);
    this.startedHere.add(into);
    const made = await createSweep(into, { ...base, axes, config: toConfig(req.run) });
    if (!made.ok) throw new UserError(`Sweep folder: ${made.error.message}.`);
    this.apiKey = req.server.apiKey || undefined;
    return this.begin(into, made.data);
  }

  private async resumeIn(dir?: string, apiKey?: string): Promise<SweepView> {
    const from = dir ? this.writableDir(dir) : this.lastDir;
    if (!from) throw new UserError('There is no sweep to resume: choose its folder.');
    const m = await readManifest(from);
    if (!m.ok) throw new UserError(m.error);
    if (apiKey) this.apiKey = apiKey;
    if (needsApiKey(m.data) && !this.apiKey)
      throw new UserError(
        'The server command had an API key, which is never saved: give it in the Server view, then resume.',
      );
    if (m.data.variants.every((v) => v.state === 'done'))
      throw new UserError(`Every variant of the sweep in ${from} is measured already: open it as a comparison.`);
    if (!this.startedHere.has(from))
      await this.confirmVariants(
        `Resume the sweep in ${from}? SpeedMatrix did not start it, and will run the commands its ${SWEEP_MANIFEST} holds.`,
        m.data,
        m.data.variants.filter((v) => v.state !== 'done'),
        this.apiKey,
      );
    await this.freeTheServer();
    return this.begin(from, m.data);
  }

  /** Stop after saving: the current cell is cancelled, its server stopped, sweep.json and the reports written. */
  async stop(): Promise<SweepView> {
    if (!this.sweep) return this.view;
    this.set({ phase: 'stopping', message: 'Stopping: saving, then stopping the server…' });
    await this.sweep.stop();
    await this.finished;
    return this.view;
  }

  async dispose(): Promise<void> {
    await this.stop().catch(() => undefined);
  }

  /** Shows each variant's command line before any is spawned, unless all are the simulator (SpeedMatrix's own). */
  private async confirmVariants(
    why: string,
    m: Pick<SweepManifest, 'command' | 'env'>,
    variants: { label: string; settings: SweepManifest['variants'][number]['settings'] }[],
    apiKey: string | undefined,
  ): Promise<void> {
    const launchFor = sweepLauncher(m, apiKey);
    const launches = variants.map((v) => ({ label: v.label, launch: launchFor(v) }));
    if (launches.every((l) => l.launch.engineKind === 'simulator')) return;
    const commands = launches.flatMap(({ label, launch }) => {
      try {
        return [commandToConfirm(label || 'base', buildLaunch(launch), launch.apiKey)];
      } catch {
        return []; // Not startable: the variant fails with that reason, nothing is spawned.
      }
    });
    await this.deps.gate?.check(why, commands);
  }

  private writableDir(dir: string): string {
    const abs = resolve(dir);
    if (!this.deps.allowWritePaths && !this.chosen.has(abs))
      throw new UserError('Choose the sweep folder with Choose folder.');
    return abs;
  }

  private begin(dir: string, manifest: SweepManifest): SweepView {
    const config = manifest.config as RunConfigInput;
    const launchFor = sweepLauncher(manifest, this.apiKey);
    const plan = planSweep(
      manifest.variants.map((v) => ({ state: v.state, launch: launchFor(v) })),
      config,
    );
    this.lastDir = dir;
    const runs = this.deps.runs.followSweep(HELD, () => this.stop().then(() => undefined));
    this.deps.server.holdForSweep(HELD);
    const active: Active = {
      manifest,
      planned: plan.secondsPerVariant,
      plannedStart: plan.serverStartSeconds === null ? null : plan.serverStartSeconds / Math.max(1, plan.toRun),
      starts: [],
      startedAt: new Map(),
      finished: [],
      runs,
    };
    this.view = {
      ...IDLE_SWEEP,
      phase: 'running',
      dir,
      plan,
      variants: manifest.variants.map(variantView),
      message: sweepPlanLine(plan),
      seq: this.view.seq,
    };
    const sweep = new SweepRun({
      dir,
      manifest,
      config,
      launchFor,
      registry: this.deps.registry,
      launcher: this.deps.launcher,
      hardware: { detectLocal: () => this.deps.hardware() },
      localTelemetry: () => this.deps.telemetry(),
      say: (message) => this.set({ message }),
      onEvent: (i, e) => this.onEvent(active, i, e),
      onVariant: (i, stage) => this.onVariant(active, i, stage),
      supervisorFor: (i, launch) => {
        const sup = this.deps.server.newSupervisor();
        this.deps.server.adopt(sup, launch, `${labelOf(i)}: ${manifest.variants[i].label}`);
        return sup;
      },
    });
    this.sweep = sweep;
    this.tick = setInterval(() => this.set({ eta: this.eta(active) }), TICK_MS);
    this.finished = sweep.done
      .then((outcome) => this.settle(dir, manifest, outcome))
      .catch((e: unknown) => this.set({ phase: 'failed', eta: null, message: (e as Error).message }))
      .finally(() => {
        if (this.tick) clearInterval(this.tick);
        this.tick = null;
        this.sweep = null;
        runs.end();
        this.deps.server.holdForSweep(null);
        this.set({});
      });
    return this.view;
  }

  private onVariant(a: Active, i: number, stage: 'starting' | 'measuring' | 'ended'): void {
    const v = a.manifest.variants[i];
    if (stage === 'starting') {
      a.startedAt.set(i, Date.now());
      a.runs.begin();
      // The list says which variant starts and runs; the message keeps what the list cannot (failures, warnings).
      this.set({ current: i, message: null });
      this.patchVariant(i, { state: 'starting', failure: null });
    } else if (stage === 'measuring') {
      a.starts.push((Date.now() - (a.startedAt.get(i) ?? Date.now())) / 1000);
      this.patchVariant(i, { state: 'running' });
    } else {
      if (this.view.variants[i].state === 'starting') a.runs.noRun();
      if (v.state === 'done') a.finished.push((Date.now() - (a.startedAt.get(i) ?? Date.now())) / 1000);
      this.set({ current: null });
      this.patchVariant(i, { state: endedState(v), failure: v.failure });
    }
    this.set({ eta: this.eta(a) });
  }

  /** A variant's run events: to the Run view as a run's, and its cells counted here. */
  private onEvent(a: Active, i: number, e: BenchEvent): void {
    a.runs.event(e);
    const cells = this.view.variants[i].cells;
    if (e.type === 'plan') this.patchVariant(i, { cells: { done: e.alreadyDone, total: measurementsToRun(e.plan) } });
    else if (e.type === 'cell-done' && isDoneForResume(e.cell.status) && cells)
      this.patchVariant(i, { cells: { ...cells, done: cells.done + 1 } });
  }

  /** The sweep ended or was stopped: sweep.md and sweep.html with what was measured. */
  private async settle(dir: string, manifest: SweepManifest, outcome: 'completed' | 'cancelled'): Promise<void> {
    const reports = await writeSweepReports(dir, manifest).then(
      () => '',
      (e: Error) => ` The sweep reports could not be written: ${e.message}`,
    );
    this.set({
      phase: outcome === 'cancelled' ? 'cancelled' : 'done',
      eta: null,
      message: sweepOutcomeLine(outcome, manifest) + reports,
    });
  }

  private patchVariant(i: number, patch: Partial<SweepVariantView>): void {
    this.set({ variants: this.view.variants.map((v, j) => (j === i ? { ...v, ...patch } : v)) });
  }

  /** Seconds left: the current variant's own ETA, then the variants still waiting. */
  private eta(a: Active): SweepView['eta'] {
    const { current, variants } = this.view;
    const measuring = current !== null && variants[current].state === 'running';
    const waiting = variants.filter((v, i) => v.state === 'waiting' && i !== current).length;
    if (current === null && waiting === 0) return { seconds: 0, withServerStarts: a.finished.length > 0 };
    return sweepSecondsLeft({
      current: measuring ? (this.deps.runs.snapshot().progress?.etaSeconds ?? null) : null,
      after: current === null ? waiting - 1 : waiting,
      finished: a.finished,
      planned: a.planned,
      serverStart: mean(a.starts) ?? a.plannedStart,
    });
  }

  private set(patch: Partial<SweepView>): void {
    this.view = { ...this.view, ...patch, seq: this.view.seq + 1 };
    this.deps.events.emit('sweep:update', this.view);
  }
}

/** A variant as the sweep folder says before anything runs: done stays done, everything else will run. */
function variantView(v: VariantState, i: number): SweepVariantView {
  return {
    letter: labelOf(i),
    label: v.label,
    file: v.file,
    state: v.state === 'done' ? 'done' : 'waiting',
    failure: null,
    cells: null,
  };
}

/** How a variant ended: measured, failed (its server did not start, or went down), or stopped. */
function endedState(v: VariantState): SweepVariantView['state'] {
  if (v.state === 'done') return 'done';
  return v.failure ? 'failed' : 'cancelled';
}
