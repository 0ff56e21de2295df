/**
 * The engine's event stream folded into RunUpdates for the renderer, at most one per
 * interval: finished cells and prefill points are always delivered, live samples only the
 * latest. A burst of a hundred events becomes one message, so the UI never drowns.
 */
import { cellKey as key } from '../../src-shared/cell-key';
import type { BenchEvent, RunPlan } from '../bench';
import { measurementsToRun } from '../bench/plan';
import { EtaTracker } from '../bench/progress';
import type { LiveCell, PlanView, RunPhase, RunProgress, RunUpdate } from '../../src-shared/ipc/contract';
import type { DecodeCell, PrefillResult, Session } from '../../src-shared/session/schema';

export function toPlanView(plan: RunPlan, notes: string[] = []): PlanView {
  return {
    contexts: plan.config.contexts,
    concurrency: plan.config.concurrency,
    prefillContexts: plan.config.prefillContexts,
    cells: plan.cells.map((c) => ({
      context: c.context,
      concurrency: c.concurrency,
      status: c.action,
      reason: c.reason,
    })),
    etaSeconds: plan.etaSeconds,
    kvBudget: plan.config.kvBudget,
    maxModelLen: plan.maxModelLen,
    notes: [...plan.warnings, ...notes],
  };
}

export class RunUpdates {
  private phase: RunPhase = 'idle';
  private plan: PlanView | null = null;
  private live: LiveCell | null = null;
  private progress: RunProgress | null = null;
  private message: string | null = null;
  /** Whether the session owner's session is this run's yet (a new run's arrives after its plan). */
  private ownsSession = false;
  /** Cells this run has delivered, by key: the final session adds only what never came as an event. */
  private delivered = new Set<string>();
  private eta: EtaTracker | null = null;
  private pendingCells: DecodeCell[] = [];
  private pendingPrefill: PrefillResult[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private runId = 0;
  private seq = 0;
  private doneCount = 0;
  private toRun = 0;

  constructor(
    private readonly emit: (u: RunUpdate) => void,
    private readonly intervalMs = 100,
    /** The session owner's session: the one copy of the run's cells. */
    private readonly session: () => Session | null = () => null,
  ) {}

  /** A fresh run (or resume) begins: forget the last one. */
  begin(phase: RunPhase = 'starting', resume = false): void {
    this.runId++;
    this.phase = phase;
    this.plan = null;
    this.live = null;
    this.progress = null;
    this.message = null;
    // A resume continues the open session: its finished cells stay in view from the first message.
    this.ownsSession = resume;
    this.delivered.clear();
    this.eta = null;
    this.pendingCells = [];
    this.pendingPrefill = [];
    this.doneCount = 0;
    this.toRun = 0;
    this.schedule();
  }

  push(e: BenchEvent): void {
    if (e.type !== 'plan') this.eta?.push(e);
    switch (e.type) {
      case 'plan':
        this.plan = toPlanView(e.plan);
        this.toRun = measurementsToRun(e.plan);
        this.doneCount = e.alreadyDone;
        this.eta = new EtaTracker(e.plan, { cells: e.doneCells, prefill: e.donePrefill });
        this.progress = { done: this.doneCount, total: this.toRun, etaSeconds: this.eta.seconds() };
        break;
      case 'session':
        // A resumed run starts from what the session holds: the view keeps every finished cell.
        this.ownsSession = true;
        this.deliver(e.session.cells);
        this.pendingPrefill.push(...e.session.prefill);
        break;
      case 'prefill-start':
        if (this.phase === 'starting') this.phase = 'prefill';
        this.live = {
          context: e.context,
          concurrency: 1,
          stage: 'prefill',
          tokensPerSecond: null,
          activeRequests: 1,
          outputTokens: null,
          elapsedSeconds: null,
        };
        break;
      case 'prefill-done':
        this.pendingPrefill.push(e.result);
        break;
      case 'cell-start':
        this.phase = 'decode';
        this.live = {
          context: e.context,
          concurrency: e.concurrency,
          stage: 'starting',
          tokensPerSecond: null,
          activeRequests: null,
          outputTokens: null,
          elapsedSeconds: null,
        };
        this.progress = {
          done: this.doneCount,
          total: this.toRun || e.total,
          etaSeconds: this.eta?.seconds() ?? e.etaSeconds,
        };
        break;
      case 'phase':
        if (
          this.live &&
          e.context === this.live.context &&
          (e.concurrency === undefined || e.concurrency === this.live.concurrency)
        ) {
          this.live = { ...this.live, stage: e.phase };
        }
        this.message = e.message;
        break;
      case 'sample':
        this.live = {
          context: e.context,
          concurrency: e.concurrency,
          stage: e.stage === 'window' ? 'measuring' : 'ramping up',
          tokensPerSecond: e.tokensPerSecond,
          activeRequests: e.activeRequests,
          outputTokens: e.tokens,
          elapsedSeconds: e.elapsedSeconds,
        };
        break;
      case 'cell-done':
        this.deliver([e.cell]);
        // A cancelled cell is not done: a resume measures it.
        if (e.cell.status !== 'cancelled') this.doneCount++;
        this.progress = {
          done: this.doneCount,
          total: this.toRun || e.total,
          etaSeconds: this.eta?.seconds() ?? e.etaSeconds,
        };
        if (this.live && key(this.live) === key(e.cell)) this.live = null;
        break;
      case 'server-down':
      case 'error':
        this.message = e.message;
        break;
      case 'log':
        if (e.level !== 'info') this.message = e.message;
        break;
      case 'run-done':
        this.phase = e.outcome === 'completed' ? 'done' : e.outcome === 'cancelled' ? 'cancelled' : 'failed';
        this.live = null;
        this.deliver(e.session.cells.filter((c) => !this.delivered.has(key(c))));
        if (this.progress) this.progress = { ...this.progress, etaSeconds: 0 };
        this.message =
          e.outcome === 'completed'
            ? 'The run finished.'
            : e.outcome === 'cancelled'
              ? 'The run was stopped; finished cells are kept.'
              : (this.message ?? 'The run failed.');
        this.flush();
        return;
      case 'saved':
        return;
    }
    this.schedule();
  }

  private deliver(cells: DecodeCell[]): void {
    for (const c of cells) this.delivered.add(key(c));
    this.pendingCells.push(...cells);
  }

  /** The run failed before the engine could start it. */
  fail(message: string): void {
    this.phase = 'failed';
    this.live = null;
    this.message = message;
    this.flush();
  }

  /** Everything so far, for a renderer that (re)loads mid-run. */
  snapshot(): RunUpdate {
    return {
      phase: this.phase,
      plan: this.plan,
      live: this.live,
      cells: this.ownsSession ? [...(this.session()?.cells ?? [])] : [],
      prefill: this.ownsSession ? [...(this.session()?.prefill ?? [])] : [],
      progress: this.liveProgress(),
      message: this.message,
      run: this.runId,
      seq: this.seq,
    };
  }

  /** The progress with the ETA counted down to now while the run goes. */
  private liveProgress(): RunProgress | null {
    const running = this.phase === 'starting' || this.phase === 'prefill' || this.phase === 'decode';
    return this.progress && this.eta && running ? { ...this.progress, etaSeconds: this.eta.seconds() } : this.progress;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const u: RunUpdate = {
      phase: this.phase,
      plan: this.plan,
      live: this.live,
      cells: this.pendingCells,
      prefill: this.pendingPrefill,
      progress: this.liveProgress(),
      message: this.message,
      run: this.runId,
      seq: ++this.seq,
    };
    this.pendingCells = [];
    this.pendingPrefill = [];
    this.emit(u);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
