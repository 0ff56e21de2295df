/**
 * Showing a run's progress on a terminal: a one-line bar on a TTY (cell n/N, the current
 * cell, live tok/s, ETA), plain lines otherwise, or one JSON event per line.
 */
import {
  fmtCell,
  fmtContext,
  fmtCount,
  fmtDuration,
  fmtMs,
  fmtMsPrecise,
  fmtTokPerSec,
  withFailed,
  plural,
} from '#shared/report/format';
import { STATUS_WORDS } from '#shared/session/status-words';
import { fmtPrefillPrecision, fmtStopNote } from '#shared/report/confidence';
import { clientBusyNote } from './client-busy';
import type { ProgressUnit } from '#shared/run-progress';
import type { PrefillResult } from '#shared/session/schema';
import { WORKER_START_WALL_SECONDS, estimateSeconds, measurementsToRun, pendingSteps, progressUnit } from './plan';
import { repetitionKey } from './repetitions';
import type { PrefillPoint } from './scout-deadline';
import type { BenchEvent, PlanStep, RunPlan } from './types';

/** How far measured time may move the estimate either way: one odd cell must not swing it wildly. */
const RATIO_LIMITS = [0.5, 2] as const;

/**
 * The time a run has left, one estimate for the app and the CLI: the plan's phase model for
 * the steps still to run (on resume: only those), scaled by how long the finished steps really
 * took against their estimate, and counting down within the step in progress.
 */
export class EtaTracker {
  private remaining: PlanStep[];
  /** When the worker began its steps (its first phase); until then its start-up is still ahead. */
  private stepsFrom: number | null = null;
  private lastDoneAt: number;
  /** Estimated wall seconds of the steps finished so far. */
  private estimatedDone = 0;
  private ratio = 1;
  /** Prefills measured so far: the model's prefill times come from them once there are some. */
  private readonly prefillPoints: PrefillPoint[] = [];
  /** Decode windows measured so far (server seconds): an adaptive run's later cells are expected to take as long. */
  private readonly windows: number[] = [];

  constructor(
    private readonly plan: RunPlan,
    done: { cells: readonly string[]; prefill: readonly number[] },
    now = Date.now(),
  ) {
    this.remaining = pendingSteps(plan.steps, new Set(done.cells), new Set(done.prefill));
    this.lastDoneAt = now;
  }

  /** The worker's first phase, a finished decode cell or prefill point: the steps up to it are done. */
  push(e: BenchEvent, now = Date.now()): void {
    if (this.stepsFrom === null && (e.type === 'phase' || e.type === 'prefill-start' || e.type === 'cell-start')) {
      // Worker start-up is over: measured time from here on is the steps' own.
      this.stepsFrom = now;
      this.lastDoneAt = now;
    }
    this.startStep(e, now);
    let i = -1;
    if (e.type === 'cell-done')
      i = this.remaining.findIndex(
        (s) => s.kind === 'decode' && repetitionKey(s, s.repetition) === repetitionKey(e.cell, e.repetition ?? 1),
      );
    else if (e.type === 'prefill-done')
      i = this.remaining.findIndex((s) => s.kind === 'prefill' && s.measured && s.context === e.result.context);
    if (i < 0) return;
    const finished = this.remaining.slice(0, i + 1);
    this.remaining = this.remaining.slice(i + 1);
    // Known before the finished steps are costed, so the ratio below compares like with like.
    if (e.type === 'cell-done' && e.cell.windowSeconds !== null) this.windows.push(e.cell.windowSeconds);
    this.estimatedDone += this.estimate(finished);
    if (e.type === 'prefill-done' && e.result.promptTokens && e.result.ttftSeconds)
      this.prefillPoints.push({ tokens: e.result.promptTokens, seconds: e.result.ttftSeconds });
    this.lastDoneAt = now;
    // Measured time only refines the model once a decode cell (the bulk of a run) has run.
    if (e.type === 'cell-done' && this.stepsFrom !== null && this.estimatedDone > 0) {
      const r = (now - this.stepsFrom) / 1000 / this.estimatedDone;
      this.ratio = Math.min(RATIO_LIMITS[1], Math.max(RATIO_LIMITS[0], r));
    }
  }

  /**
   * A cell or prefill starts: the steps before it (warm-up, cache warm-up) are over, so the
   * countdown runs within this step, not within a warm-up already done.
   */
  private startStep(e: BenchEvent, now: number): void {
    let at = -1;
    if (e.type === 'cell-start')
      at = this.remaining.findIndex(
        (s) => s.kind === 'decode' && repetitionKey(s, s.repetition) === repetitionKey(e, e.repetition ?? 1),
      );
    else if (e.type === 'prefill-start')
      at = this.remaining.findIndex((s) => s.kind === 'prefill' && s.measured && s.context === e.context);
    if (at <= 0) return;
    this.estimatedDone += this.estimate(this.remaining.slice(0, at));
    this.remaining = this.remaining.slice(at);
    this.lastDoneAt = now;
  }

  private estimate(steps: readonly PlanStep[]): number {
    return estimateSeconds(steps, this.plan.config, this.prefillPoints, this.windows);
  }

  /** Wall seconds left now. */
  seconds(now = Date.now()): number {
    if (this.remaining.length === 0) return 0;
    const pending = this.ratio * this.estimate(this.remaining);
    const start = this.stepsFrom === null ? WORKER_START_WALL_SECONDS : 0;
    const afterCurrent = this.ratio * this.estimate(this.remaining.slice(1));
    return Math.max(afterCurrent, start + pending - (now - this.lastDoneAt) / 1000);
  }
}

export type ProgressMode = 'tty' | 'plain' | 'json';

interface ProgressOutput {
  write(text: string): void;
  /** The terminal's width now (it can change while a run goes); 120 when unknown. */
  columns?(): number | undefined;
}

/** A part of the bar line's middle, and how long it stays as the line narrows (lower stays longer). */
export interface LineField {
  text: string;
  keep: number;
}

/**
 * The bar line in `width` columns. The cell count and the ETA are kept whole; the bar goes
 * first when there is no room, then the middle's fields go whole, the least useful first (a
 * number is never cut in half). Too narrow even for the count: the ETA alone.
 */
export function fitLine(bar: string, count: string, fields: readonly LineField[], tail: string, width: number): string {
  const join = (kept: readonly LineField[]) => [count, ...kept.map((f) => f.text).filter(Boolean), tail].join('  ');
  const all = join(fields);
  if (`${bar} ${all}`.length <= width) return `${bar} ${all}`;
  const byKeep = [...fields].sort((a, b) => b.keep - a.keep);
  for (let dropped = 0; dropped <= byKeep.length; dropped++) {
    const gone = new Set(byKeep.slice(0, dropped));
    const line = join(fields.filter((f) => !gone.has(f)));
    if (line.length <= width) return line;
  }
  return tail.slice(0, Math.max(0, width));
}

const BAR = 24;

/** A BenchEvent as a JSON line: per-request arrays and the session body are left out (they are in the file). */
export function eventToJsonLine(e: BenchEvent): string {
  if (e.type === 'cell-done') return JSON.stringify({ ...e, cell: { ...e.cell, requests: undefined } });
  if (e.type === 'run-done')
    return JSON.stringify({
      type: e.type,
      outcome: e.outcome,
      sessionFile: e.sessionFile,
      counts: e.counts,
      simulated: e.session.simulated,
    });
  return JSON.stringify(e);
}

/** "prefill at 8K, 32K" or "no prefill": where prefill is measured, as the person reads it. */
function prefillPhrase(plan: RunPlan): string {
  const run = plan.prefill.filter((p) => p.action === 'run').map((p) => fmtContext(p.context));
  return run.length ? `prefill at ${run.join(', ')}` : 'no prefill';
}

export class ProgressPrinter {
  private index = 0;
  private total = 0;
  private unit: ProgressUnit = 'cell';
  private eta: EtaTracker | null = null;
  private current = '';
  /** The current step's live state: stage, throughput, active requests (display order). */
  private live: LineField[] = [];
  private barShown = false;
  private lastDraw = 0;
  private stopRequested = false;
  /** When the plan arrived: the elapsed time shown beside the ETA. */
  private startedMs: number | null = null;
  /** The step a calibration or warm-up message stands in for, shown again once the cell goes on. */
  private stepLabel = '';
  /** A wait with no samples of its own (the idle gate, the drain): what it waits for and since when. */
  private wait: { text: string; sinceMs: number } | null = null;
  private waitTicker: ReturnType<typeof setInterval> | null = null;
  /** Plain output: when the last line about a long wait was written. */
  private lastWaitLineMs = 0;

  constructor(
    private readonly mode: ProgressMode,
    private readonly out: ProgressOutput,
  ) {}

  handle(e: BenchEvent): void {
    if (this.mode === 'json') {
      this.track(e);
      // The ETA in JSON lines is the same estimate the bar and the app show.
      const line =
        this.eta && (e.type === 'cell-start' || e.type === 'cell-done') ? { ...e, etaSeconds: this.eta.seconds() } : e;
      if (e.type !== 'saved' && e.type !== 'session') this.out.write(`${eventToJsonLine(line)}\n`);
      return;
    }
    this.track(e);
    switch (e.type) {
      case 'plan':
        this.startedMs = Date.now();
        this.total = measurementsToRun(e.plan);
        this.unit = progressUnit(e.plan);
        this.index = e.alreadyDone;
        this.line(
          `Plan: ${plural(e.plan.counts.cells, 'cell')} (${e.plan.counts.toRun} to run${e.plan.config.repeat > 1 ? ` ${e.plan.config.repeat} times each` : ''}${e.alreadyDone ? `, ${e.alreadyDone} of them done already` : ''}, ${e.plan.counts.overCapacity} over capacity, ${e.plan.counts.tooLong} too long, ${e.plan.counts.skipped} skipped), ${prefillPhrase(e.plan)}, about ${fmtDuration(this.etaNow())}${e.alreadyDone ? ' left' : ''}.`,
        );
        for (const w of e.plan.warnings) this.line(`  note: ${w}`);
        break;
      case 'cell-start':
        this.index = e.index;
        this.total = e.total;
        this.current = fmtCell(e.context, e.concurrency);
        this.stepLabel = this.current;
        this.live = [{ text: 'starting', keep: 2 }];
        this.draw(true);
        break;
      case 'phase':
        this.endWait();
        if (e.phase === 'warmup' || e.phase === 'calibration') {
          this.current = e.message;
          this.live = [];
          this.draw(true);
        } else {
          // The cell goes on: a calibration message no longer stands for what it does.
          if (this.stepLabel) this.current = this.stepLabel;
          const stage =
            e.phase === 'window'
              ? 'measuring'
              : e.phase === 'readiness'
                ? 'ramping up'
                : e.phase === 'cooldown'
                  ? this.stopRequested
                    ? 'cancelling'
                    : 'finishing'
                  : 'waiting for the server to be idle';
          if (e.phase === 'idle-gate' || e.phase === 'cooldown') this.startWait(stage);
          this.live = [{ text: stage, keep: 2 }];
          if (this.mode === 'tty') this.draw(false);
        }
        break;
      case 'sample':
        this.endWait();
        if (this.stepLabel) this.current = this.stepLabel;
        this.live = [
          { text: e.stage === 'window' ? 'measuring' : rampText(e), keep: 2 },
          { text: `${fmtTokPerSec(e.tokensPerSecond)} tok/s`, keep: 1 },
          { text: `${Math.round(e.activeRequests)} active`, keep: 3 },
        ];
        if (this.mode === 'tty') this.draw(false);
        else if (e.stage === 'ramp') this.waitLine(rampText(e), e.elapsedSeconds);
        break;
      case 'cell-done': {
        const c = e.cell;
        const stop = fmtStopNote(c);
        const figures =
          c.totalTokensPerSecond !== null
            ? `  ${withFailed(`${fmtTokPerSec(c.totalTokensPerSecond)} tok/s`, c.failedRequests)}  TTFT ${fmtMs(c.ttft?.p50)}  between tokens ${fmtMsPrecise(c.timeBetweenTokens?.p50)}${stop ? `  (${stop})` : ''}`
            : '';
        const rep = e.repetition && e.repetition > 1 ? ` (repetition ${e.repetition})` : '';
        // A valid cell's own reason stays in the session, but a busy client is said at once: it may rerun elsewhere.
        const busy = c.status === 'valid' ? clientBusyNote(c.clientHealth) : null;
        const why = c.status !== 'valid' ? c.reason : busy;
        this.line(
          `cell ${e.index}/${e.total}  ${fmtCell(c.context, c.concurrency)}${rep}  ${STATUS_WORDS[c.status]}${figures}${why ? `  (${why})` : ''}`,
        );
        break;
      }
      case 'prefill-start':
        this.current = `prefill ${fmtContext(e.context)}${scoutTimes(e.expectedSeconds, e.deadlineSeconds)}`;
        this.stepLabel = this.current;
        this.live = [];
        this.draw(true);
        break;
      case 'prefill-done': {
        const p = e.result;
        this.line(
          p.status === 'valid'
            ? `prefill ${fmtContext(p.context)}  ${fmtTokPerSec(p.tokensPerSecond)} tok/s  TTFT ${fmtMs(p.ttftSeconds)}  (${fmtCount(p.promptTokens)} prompt tokens${precisionOf(p)})`
            : `prefill ${fmtContext(p.context)}  ${STATUS_WORDS[p.status]}${p.reason ? `  (${p.reason})` : ''}`,
        );
        break;
      }
      case 'log':
        if (e.level !== 'info') this.line(`${e.level === 'warn' ? 'warning' : 'error'}: ${e.message}`);
        break;
      case 'error':
        this.line(`error: ${e.message}`);
        break;
      case 'server-down':
        this.line(`server down: ${e.message}`);
        break;
      case 'run-done':
        this.endWait();
        this.clearBar();
        break;
      default:
        break;
    }
  }

  /** The person asked to stop: the cell in progress is being cancelled, not finished. */
  stopping(): void {
    this.stopRequested = true;
    this.live = [{ text: 'cancelling', keep: 0 }];
    this.draw(true);
  }

  /** A wait without samples: the bar (or a plain line now and then) says how long it has lasted. */
  private startWait(text: string): void {
    this.wait = { text, sinceMs: Date.now() };
    this.waitTicker = setInterval(() => {
      if (!this.wait) return;
      const waited = (Date.now() - this.wait.sinceMs) / 1000;
      const text = `${this.wait.text} after ${fmtDuration(waited)}`;
      if (this.mode !== 'tty') return this.waitLine(text, waited);
      this.live = [{ text, keep: 2 }];
      this.draw(false);
    }, 1000);
    this.waitTicker.unref?.();
  }

  private endWait(): void {
    if (this.waitTicker) clearInterval(this.waitTicker);
    this.waitTicker = null;
    this.wait = null;
  }

  /** Plain output: a wait that lasts says so every WAIT_LINE_SECONDS, never more often. */
  private waitLine(text: string, waitedSeconds: number): void {
    if (this.mode !== 'plain' || waitedSeconds < WAIT_LINE_SECONDS) return;
    const now = Date.now();
    if (now - this.lastWaitLineMs < WAIT_LINE_SECONDS * 1000) return;
    this.lastWaitLineMs = now;
    this.line(`... ${this.current}: ${text}`);
  }

  /** The run's ETA follows its plan and every finished step. */
  private track(e: BenchEvent): void {
    if (e.type === 'plan') this.eta = new EtaTracker(e.plan, { cells: e.doneCells, prefill: e.donePrefill });
    else this.eta?.push(e);
  }

  /** "1 min 5 s elapsed, ETA 40 s": the time so far beside the time left. */
  private timeText(): string {
    const elapsed = this.elapsedText();
    return elapsed ? `${elapsed}, ${this.etaText()}` : this.etaText();
  }

  private elapsedText(): string {
    return this.startedMs === null ? '' : `${fmtDuration((Date.now() - this.startedMs) / 1000)} elapsed`;
  }

  private etaText(): string {
    return `ETA ${fmtDuration(this.etaNow())}`;
  }

  private etaNow(): number | null {
    return this.eta ? this.eta.seconds() : null;
  }

  /** A permanent line (clears the bar first on a TTY). */
  line(text: string): void {
    this.clearBar();
    this.out.write(`${text}\n`);
  }

  private clearBar(): void {
    if (this.mode === 'tty' && this.barShown) {
      this.out.write('\r\x1b[2K');
      this.barShown = false;
    }
  }

  private draw(force: boolean): void {
    if (this.mode !== 'tty') {
      if (force && this.current)
        this.out.write(
          `... ${this.current}${this.total ? `  (${this.unit} ${Math.min(this.index, this.total)}/${this.total}, ${this.timeText()})` : ''}\n`,
        );
      return;
    }
    const now = Date.now();
    if (!force && now - this.lastDraw < 200) return;
    this.lastDraw = now;
    const done = this.total ? Math.max(0, this.index - 1) / this.total : 0;
    const filled = Math.round(done * BAR);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
    const count = `${this.unit} ${Math.min(this.index, this.total)}/${this.total}`;
    const text = fitLine(
      bar,
      count,
      // On a narrow terminal the elapsed time goes first: the ETA says more.
      [{ text: this.current, keep: 0 }, ...this.live, { text: this.elapsedText(), keep: 9 }],
      this.etaText(),
      (this.out.columns?.() ?? 120) - 1,
    );
    this.out.write(`\r\x1b[2K${text}`);
    this.barShown = true;
  }
}

/** How often plain output repeats what a long wait waits for. */
const WAIT_LINE_SECONDS = 30;

type SampleEvent = Extract<BenchEvent, { type: 'sample' }>;

/**
 * What a ramp waits for and how long it has: "waiting for 1,024 streams to start: 640 of 1,024
 * after 45 s", then, once all have started, "waiting for 16 streams to run steadily: 14 running,
 * 2 waiting after 50 s" (the server's counts where /metrics has them).
 */
export function rampText(e: SampleEvent): string {
  const n = fmtCount(e.concurrency);
  const after = `after ${fmtDuration(e.elapsedSeconds)}`;
  if (e.streamsStarted !== undefined && e.streamsStarted < e.concurrency)
    return `waiting for ${n} streams to start: ${fmtCount(e.streamsStarted)} of ${n} ${after}`;
  const server =
    e.waitingRequests !== null
      ? `: ${fmtCount(Math.round(e.activeRequests))} running, ${fmtCount(e.waitingRequests)} waiting`
      : '';
  return `waiting for ${n} streams to run steadily${server} ${after}`;
}

/** "  (expected about 7 min 00 s, gives up after 14 min 00 s)" for a scout; empty when nothing is known. */
function scoutTimes(expected: number | null | undefined, deadline: number | undefined): string {
  if (deadline === undefined) return '';
  const about = expected !== null && expected !== undefined ? `expected about ${fmtDuration(expected)}, ` : '';
  return `  (${about}gives up after ${fmtDuration(deadline)})`;
}

/** ", ±0.9%, 3 prompts" after a prefill's prompt tokens when it was measured to a precision; '' otherwise. */
function precisionOf(p: PrefillResult): string {
  const how = fmtPrefillPrecision(p);
  return how ? `, ${how}` : '';
}
