/**
 * The Run view's Load mode (docs/load.md): `speedmatrix load`'s engine run against the ready
 * server, in the benchmark worker process (as a matrix runs), its form checked by the CLI's own rules, its passes sent to the page as LoadViews
 * ('load:update', at most one per interval), and its session opened, unsaved, when it ends.
 * While it runs, the page's matrix runs and sweeps wait (RunControl.hold).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadEvent, LoadRunHandle } from '../../engine/bench/load-run';
import { startLoadInWorker } from '../../engine/bench/load-worker';
import { readTrace, traceSpanSeconds, withTrace } from '../../engine/bench/load-trace';
import { basename } from 'node:path';
import type { WorkerLauncher } from '../../engine/bench';
import type { ServerTarget } from '../../engine/server/target';
import { hardwareOfTarget } from '../../workflows/orchestrator/server-hardware';
import type { LoadView, TraceChoice } from '#shared/ipc/contract';
import type { LoadForm } from '#shared/ipc/forms';
import { IDLE_LOAD } from '#shared/ipc/idle-load';
import { passLabel } from '#shared/report/load-model';
import type { LoadConfig } from '#shared/session/schema-load';
import type { Hardware } from '#shared/session/schema';
import { loadConfigFrom, type LoadInput } from '../../workflows/inputs/load-input';
import type { CoreEvents } from './emitter';
import type { RunControl } from './run-control';
import type { SessionControl } from './session-control';
import { CancelledError, UserError, inFieldWords } from './user-error';

interface LoadDeps {
  events: CoreEvents;
  sessions: SessionControl;
  runs: RunControl;
  /** The ready server, or null. */
  target(): ServerTarget | null;
  serverLogLines(): string[];
  /** This machine's hardware, recorded when the server runs on it (as for a matrix run). */
  hardware(): Promise<Hardware | undefined>;
  /** Folder for working session files of runs not yet saved by the person. */
  runsDir: string;
  updateIntervalMs?: number;
  /** How the load client's worker starts (the app: utilityProcess); default a Node child process. */
  launcher?: WorkerLauncher;
  /** The trace file dialog (absent where there is none). */
  chooseTraceFile?: () => Promise<string | null>;
}

const HELD = 'A load run is going: stop it first.';

/** The Load mode's label of each flag the form sets (LoadPanel.tsx). */
const FIELD_LABELS: Record<string, string> = {
  '--sweep-points': 'Rates between',
  '--arrivals': 'Arrivals',
  '--max-in-flight': 'Most in flight',
  '--duration': 'Seconds per rate',
  '--warmup': 'Warm-up',
  '--input-len': 'Input',
  '--output-len': 'Output',
  '--slo': 'Targets',
  '--rates': 'Request rates',
  '--turns': 'Turns',
  '--think-time': 'Think time',
};

/** The form's arrivals and lengths; a trace brings its own times and lengths, so with one they are not asked for. */
function workloadOf(form: LoadForm): LoadInput {
  if (form.trace) return { trace: form.trace.file, traceSpeed: String(form.trace.speed) };
  return {
    rates: form.sweep ? 'sweep' : form.rates.join(','),
    sweepPoints: form.sweep ? String(form.sweepPoints) : undefined,
    arrivals: form.arrivals,
    maxInFlight: form.maxInFlight === null ? undefined : String(form.maxInFlight),
    duration: String(form.durationSeconds),
    warmup: String(form.warmupSeconds),
    inputLen: form.inputLen,
    outputLen: form.outputLen,
  };
}

/** The form as a load test's settings (workflows/inputs/load-input.ts): the app and the CLI check a workload by the same rules. */
export function loadConfigFromForm(form: LoadForm): LoadConfig {
  if (!form.trace && !form.sweep && form.rates.length === 0)
    throw new UserError('Add at least one request rate (requests per second), or choose Sweep.');
  const flags: LoadInput = {
    ...workloadOf(form),
    slo: form.slo.trim() ? form.slo : undefined,
    ...(form.turns && form.turns > 1 ? { turns: String(form.turns), thinkTime: String(form.thinkSeconds ?? 0) } : {}),
  };
  return inFieldWords(FIELD_LABELS, () => loadConfigFrom(flags));
}

/** A trace file's requests, or the reason it cannot be replayed in the form's words (no flag names). */
async function readTraceInWords(file: string) {
  try {
    return await readTrace(file);
  } catch (e) {
    throw new UserError((e as Error).message.replace(/^--trace: /, 'Trace: '));
  }
}

export class LoadControl {
  private view: LoadView = IDLE_LOAD;
  private handle: LoadRunHandle | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly deps: LoadDeps) {}

  snapshot(): LoadView {
    return this.view;
  }

  /** The trace dialog's file, read and checked now, so a file that cannot be replayed is refused at once. */
  async chooseTrace(): Promise<TraceChoice> {
    if (!this.deps.chooseTraceFile) throw new UserError('There is no file dialog here.');
    const file = await this.deps.chooseTraceFile();
    if (!file) throw new CancelledError();
    const entries = await readTraceInWords(file);
    return { file, name: basename(file), requests: entries.length, spanSeconds: traceSpanSeconds(entries, 1) };
  }

  async start(form: LoadForm): Promise<LoadView> {
    if (this.deps.runs.running()) throw new UserError('A run is going: stop it before starting a load run.');
    const target = this.deps.target();
    if (!target) throw new UserError('No server is ready: start one (or attach to one) in the Server view first.');
    const trace = form.trace ? await readTraceInWords(form.trace.file) : null;
    const config = trace ? withTrace(loadConfigFromForm(form), trace) : loadConfigFromForm(form);
    await mkdir(this.deps.runsDir, { recursive: true });
    const hardware = await hardwareOfTarget(target, { detectLocal: () => this.deps.hardware() });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const run = startLoadInWorker({
      launcher: this.deps.launcher,
      target,
      config,
      simSpeed: target.simSpeed,
      hardware,
      sessionFile: join(this.deps.runsDir, `load-${stamp}.speedmatrix.json`),
      onEvent: (e) => this.onEvent(e),
      serverLogLines: this.deps.serverLogLines,
      ...(trace ? { trace } : {}),
    });
    this.handle = run;
    const release = this.deps.runs.hold(HELD, () => this.stop().then(() => undefined));
    this.view = { ...IDLE_LOAD, phase: 'running', config, run: this.view.run + 1, seq: this.view.seq };
    this.emitNow();
    run.done
      .then(({ session, cancelled }) => {
        // The session is the person's to Save, as a matrix run's is.
        this.deps.sessions.set(session, { file: null, dirty: true });
        // The session's passes are the truth: a pass cut short by Stop is shown live but not kept.
        const load = session.load;
        this.update({
          phase: cancelled ? 'cancelled' : 'done',
          current: null,
          config: load?.config ?? config,
          results: load?.results ?? [],
        });
      })
      .catch((e: Error) => this.update({ phase: 'failed', current: null, error: e.message }))
      .finally(() => {
        this.handle = null;
        release();
        this.emitNow();
      });
    return this.view;
  }

  async stop(): Promise<LoadView> {
    this.handle?.stop();
    return this.view;
  }

  private onEvent(e: LoadEvent): void {
    const v = this.view;
    if (e.type === 'pass-start') {
      this.update({ current: { label: passLabel(e), index: e.index, total: e.total, sent: 0, completed: 0 } });
    } else if (e.type === 'tick' && v.current) {
      this.update({ current: { ...v.current, sent: e.sent, completed: e.completed } }, false);
    } else if (e.type === 'pass-done') {
      this.update({ results: [...v.results, e.result] });
    } else if (e.type === 'log') this.update({ messages: [...v.messages, e.message] });
  }

  /** A change; passes and messages go out at once, progress ticks at most once per interval. */
  private update(patch: Partial<LoadView>, now = true): void {
    this.view = { ...this.view, ...patch };
    if (now) this.emitNow();
    else this.timer ??= setTimeout(() => this.emitNow(), this.deps.updateIntervalMs ?? 200);
  }

  private emitNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.view = { ...this.view, seq: this.view.seq + 1 };
    this.deps.events.emit('load:update', this.view);
  }

  async dispose(): Promise<void> {
    this.handle?.stop();
    if (this.timer) clearTimeout(this.timer);
  }
}
