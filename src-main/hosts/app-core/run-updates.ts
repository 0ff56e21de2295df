/**
 * The engine's event stream folded into RunUpdates for the renderer, at most one per
 * interval: finished cells and prefill points are always delivered, live samples only the
 * latest. A burst of a hundred events becomes one message, so the UI never drowns. Each cell
 * and prefill point travels once, stamped with the session revisions it took the session
 * owner's session from and to, so the page applies it to the session it holds (docs/ipc.md).
 */
import { cellKey as key } from '#shared/cell-key';
import type { BenchEvent, RunPlan } from '../../engine/bench';
import { measurementsToRun, progressUnit } from '../../engine/bench/plan';
import { EtaTracker } from '../../engine/bench/progress';
import type { LiveCell, PlanView, RunProgress, RunUpdate } from '#shared/ipc/contract';
import type { ProgressUnit, RunPhase } from '#shared/run-progress';
import type { DecodeCell, PrefillResult } from '#shared/session/schema';
import { withoutSamples } from '#shared/session/cells';
import { isDoneForResume } from '#shared/session/status-words';

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
  /** What the orchestrator tells the person about this run (server placement, Too long contexts). */
  private notes: string[] = [];
  private live: LiveCell | null = null;
  private progress: RunProgress | null = null;
  private unit: ProgressUnit = 'cell';
  private message: string | null = null;
  private eta: EtaTracker | null = null;
  private pendingCells: DecodeCell[] = [];
  private pendingPrefill: PrefillResult[] = [];
  /** The session revisions the pending cells and prefill points span; always one unbroken range. */
  private pendingRevisions: { from: number; to: number } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private runId = 0;
  private seq = 0;
  private doneCount = 0;
  private toRun = 0;
  /** When the plan arrived: the page shows the time elapsed beside the ETA. */
  private startedAtMs: number | undefined = undefined;
  private remote: RunUpdate['remote'] = null;

  constructor(
    private readonly emit: (u: RunUpdate) => void,
    private readonly intervalMs = 100,
  ) {}

  /** A fresh run (or resume) begins: forget the last one. Returns its number (RunUpdate.run). */
  begin(phase: RunPhase = 'starting'): number {
    this.runId++;
    this.phase = phase;
    this.plan = null;
    this.notes = [];
    this.live = null;
    this.progress = null;
    this.message = null;
    this.eta = null;
    this.pendingCells = [];
    this.pendingPrefill = [];
    this.pendingRevisions = null;
    this.remote = null;
    this.doneCount = 0;
    this.toRun = 0;
    this.schedule();
    return this.runId;
  }

  /** The run's notes from the orchestrator, shown under the plan (the CLI prints them as "note: ..."). */
  addNotes(notes: readonly string[]): void {
    this.notes.push(...notes);
    if (this.plan) this.plan = { ...this.plan, notes: [...this.plan.notes, ...notes] };
    this.schedule();
  }

  /**
   * One engine event. For a finished cell or prefill point, `revision` is the session revision
   * the session owner made by applying it (omitted when no session took it: nothing to send).
   */
  push(e: BenchEvent, revision?: number | null): void {
    if (e.type !== 'plan') this.eta?.push(e);
    switch (e.type) {
      case 'plan':
        this.plan = toPlanView(e.plan, this.notes);
        this.toRun = measurementsToRun(e.plan);
        this.doneCount = e.alreadyDone;
        this.eta = new EtaTracker(e.plan, { cells: e.doneCells, prefill: e.donePrefill });
        this.unit = progressUnit(e.plan);
        this.startedAtMs = Date.now();
        this.progress = {
          done: this.doneCount,
          total: this.toRun,
          unit: this.unit,
          etaSeconds: this.eta.seconds(),
          startedAtMs: this.startedAtMs,
        };
        break;
      case 'session':
        // The session owner replaced its session: the page fetches it whole.
        return;
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
        if (this.taken(revision)) this.pendingPrefill.push(e.result);
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
          unit: this.unit,
          etaSeconds: this.eta?.seconds() ?? e.etaSeconds,
          startedAtMs: this.startedAtMs,
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
        if (this.taken(revision)) this.pendingCells.push(e.cell);
        // Counted as a resume counts it (a cancelled cell is measured again).
        if (isDoneForResume(e.cell.status)) this.doneCount++;
        this.progress = {
          done: this.doneCount,
          total: this.toRun || e.total,
          unit: this.unit,
          etaSeconds: this.eta?.seconds() ?? e.etaSeconds,
          startedAtMs: this.startedAtMs,
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

  /**
   * Whether the session owner took a finished cell or point, at `revision`: it then joins the
   * pending range. A revision that does not follow the range (the session was replaced between)
   * sends what is pending first, so an update never spans a replacement.
   */
  private taken(revision: number | null | undefined): revision is number {
    if (revision == null) return false;
    if (this.pendingRevisions && revision !== this.pendingRevisions.to + 1) this.flush();
    this.pendingRevisions = { from: this.pendingRevisions?.from ?? revision - 1, to: revision };
    return true;
  }

  /** A run on a remote host: where, and why its link is lost (null while followed). */
  setRemote(remote: NonNullable<RunUpdate['remote']>): void {
    this.remote = remote;
    this.flush();
  }

  /** The run failed before the engine could start it. */
  fail(message: string): void {
    this.phase = 'failed';
    this.live = null;
    this.message = message;
    this.flush();
  }

  /** The run's state so far, for a renderer that (re)loads mid-run: its cells are in the session ('session:get'). */
  snapshot(): RunUpdate {
    return {
      phase: this.phase,
      plan: this.plan,
      live: this.live,
      cells: [],
      prefill: [],
      requestCounts: {},
      revisions: null,
      progress: this.liveProgress(),
      message: this.message,
      remote: this.remote,
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
    // The page holds no per-request samples: they stay in the core ('session:cell-requests').
    const { cells, requestCounts } = withoutSamples(this.pendingCells);
    const u: RunUpdate = {
      phase: this.phase,
      plan: this.plan,
      live: this.live,
      cells,
      prefill: this.pendingPrefill,
      requestCounts,
      revisions: this.pendingRevisions,
      progress: this.liveProgress(),
      message: this.message,
      remote: this.remote,
      run: this.runId,
      seq: ++this.seq,
    };
    this.pendingCells = [];
    this.pendingPrefill = [];
    this.pendingRevisions = null;
    this.emit(u);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
