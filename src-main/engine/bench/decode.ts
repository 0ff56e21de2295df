/**
 * One sustained-decode cell (docs/method.md, "Sustained decode"), in phases: the idle gate,
 * the ramp of C workers, the readiness gate, the measurement window, cancel and drain; then
 * the figures and the status. The judging is pure and lives apart: readiness.ts (when the
 * window opens), figures.ts (the numbers), status.ts (the verdict). Everything measured goes
 * into the returned DecodeCell, including every request's own timings.
 */
import { availableParallelism } from 'node:os';
import { fmtCell, fmtCount, plural } from '#shared/report/format';
import type { EngineKind } from '../server/target';
import type { ClientHealth, DecodeCell, RequestSamples, WindowPrecision } from '#shared/session/schema';
import { unmeasuredCell } from './cells';
import { Interrupt, type ServerClock } from './clock';
import {
  completedInWindow,
  failureCount,
  perRequestRate,
  stallInWindow,
  timeBetweenTokens,
  endToEndLatency,
  reasoningOfCell,
  timeToFirstToken,
  type Window,
  windowTokens,
} from './figures';
import { type BenchHttp, getTextOrNull } from './http';
import { queueSample, type QueueSample } from './metrics';
import {
  batchMeansInterval,
  type PrecisionTarget,
  type RateInterval,
  type StopReason,
  stopDecision,
  type TokenTick,
} from './precision';
import { READINESS_START, rampStuckReason, readinessStep } from './readiness';
import { clientHeldPrecision } from './client-delay';
import { clientBusyNote } from './client-busy';
import { mean } from '#shared/mean';
import { hasFigure } from '#shared/session/status-words';
import { type ClientSide, decideStatus, type FailureCount, queueEvidence, referenceDifference } from './status';
import { nowMs } from './stream';
import { CellLoad, type DecodeCellInput, type LoadOutcome, type StreamLoad, type StreamRecord } from './cell-load';
import { ShardedLoad } from './stream-shards';
import { threadsFor } from './client-threads';

/** Idle gates give up after this long and go on (with a log line). */
export const IDLE_TIMEOUT_SECONDS = 60;
/** Live samples to the UI: twice a (server) second, at most twice a wall second, at least every 50 ms. */
const SAMPLE_EVERY_SECONDS = 0.5;
/** An adaptive window reads its token count this often (server seconds) and decides whether to close. */
const TICK_SECONDS = 0.25;

export interface DecodeCellOutput {
  cell: DecodeCell;
  /** The server went away during the cell (connection refused or reset). */
  connectionLost: boolean;
  /** The measurement window in wall-clock epoch milliseconds (null when it never closed). */
  window: { startMs: number; endMs: number } | null;
  /** Every stream of the cell (benchmarks compare them with a simulator's ground truth). */
  streams: readonly StreamRecord[];
}

export async function scrapeQueue(http: BenchHttp, engine: EngineKind): Promise<QueueSample | null> {
  const text = await getTextOrNull(http, '/metrics', 5_000);
  return text === null ? null : queueSample(text, engine);
}

/** Waits until the server runs and queues nothing; false when it did not within the timeout. */
export async function idleGate(
  x: Pick<DecodeCellInput, 'http' | 'engine' | 'metrics' | 'clock'>,
  stop: Interrupt,
  timeoutSeconds = IDLE_TIMEOUT_SECONDS,
): Promise<boolean> {
  if (!x.metrics) return true;
  const start = nowMs();
  while (!stop.fired) {
    const q = await scrapeQueue(x.http, x.engine);
    if (q && q.running === 0 && q.waiting === 0) return true;
    if (x.clock.since(start) > timeoutSeconds) return false;
    await stop.sleep(Math.min(250, x.clock.wallMs(0.25)));
  }
  return true;
}

interface LiveState {
  stage: 'ramp' | 'window';
  rampStart: number;
  windowOpen: number;
  lastQueue: QueueSample | null;
}

/** Live samples about twice a second, whatever the stage; returns the stopper. */
function startSampler(x: DecodeCellInput, load: StreamLoad, live: LiveState): () => void {
  const { clock, context, concurrency } = x;
  let lastTokens = 0;
  let lastAt = live.rampStart;
  let lastStage = live.stage;
  const timer = setInterval(
    () => {
      const now = nowMs();
      const inWin = live.stage === 'window';
      if (live.stage !== lastStage) {
        lastStage = live.stage;
        lastTokens = 0;
      }
      const tokens = load.tokens(inWin);
      const tps = inWin
        ? tokens / Math.max(1e-9, clock.seconds(now - live.windowOpen))
        : (tokens - lastTokens) / Math.max(1e-9, clock.seconds(now - lastAt));
      lastTokens = tokens;
      lastAt = now;
      x.emit({
        type: 'sample',
        context,
        concurrency,
        stage: live.stage,
        tokensPerSecond: tps,
        activeRequests: x.metrics && live.lastQueue ? live.lastQueue.running : load.clientActive(),
        waitingRequests: live.lastQueue ? live.lastQueue.waiting : null,
        tokens: inWin ? tokens : 0,
        elapsedSeconds: clock.since(inWin ? live.windowOpen : live.rampStart),
        ...(inWin ? {} : { streamsStarted: load.streamsStarted() }),
      });
    },
    Math.max(50, Math.min(500, clock.wallMs(SAMPLE_EVERY_SECONDS))),
  );
  return () => clearInterval(timer);
}

/** Polls until readiness.ts says the window may open; true when it timed out instead. */
async function readinessPhase(
  x: DecodeCellInput,
  load: StreamLoad,
  live: LiveState,
  stopCell: Interrupt,
): Promise<boolean> {
  const { clock, context, concurrency: C } = x;
  x.emit({
    type: 'phase',
    phase: 'readiness',
    message: `waiting for ${plural(C, 'stream')} to be steady`,
    context,
    concurrency: C,
  });
  let state = READINESS_START;
  while (!stopCell.fired) {
    if (x.metrics) live.lastQueue = await scrapeQueue(x.http, x.engine);
    load.checkStalls();
    if (stopCell.fired) break;
    const step = readinessStep(
      state,
      {
        t: clock.since(live.rampStart),
        everyWorkerHasToken: load.everyWorkerHasToken(),
        server: x.metrics ? (live.lastQueue ?? { running: 0, waiting: 0 }) : null,
      },
      { concurrency: C, timeoutSeconds: x.readinessTimeoutSeconds },
    );
    state = step.state;
    if (step.decision === 'open') return false;
    if (step.decision === 'timed-out') {
      const stuck = rampStuckReason(
        load.streamsStarted(),
        C,
        x.metrics ? live.lastQueue : null,
        x.readinessTimeoutSeconds,
      );
      if (stuck) {
        load.fatal ??= `The ramp could not end: ${stuck}.`;
        stopCell.fire();
        return true;
      }
      x.emit({
        type: 'log',
        level: 'warn',
        message: `Cell ${fmtCell(context, C)}: readiness did not come within ${x.readinessTimeoutSeconds} s; measuring anyway.`,
      });
      return true;
    }
    await stopCell.sleep(Math.min(250, clock.wallMs(0.25)));
  }
  return false;
}

interface WindowRecord {
  /** Wall epoch ms; endMs is 0 when the window never closed (the user stopped the run in it). */
  startMs: number;
  endMs: number;
  /** Once-a-second /metrics scrapes inside the window. */
  scrapes: QueueSample[];
  /** Streams with a token, counted by the client at the same times (the fallback without /metrics). */
  clientActive: number[];
  /** The client's own outstanding requests at the same times. */
  clientOutstanding: number[];
  /** The client's mean event-loop delay in the window (wall ms): how late it read what the server had sent. */
  clientLoopDelayMs: number;
  /** The client's own health in the window (client-health.ts); null until it closed. */
  clientHealth: ClientHealth | null;
  /** An adaptive window: why it closed and its interval then; null for a fixed window. */
  precision: WindowPrecision | null;
}

/** The fixed measurement window, scraping /metrics once a (server) second. */
async function windowPhase(
  x: DecodeCellInput,
  load: StreamLoad,
  live: LiveState,
  stopCell: Interrupt,
): Promise<WindowRecord> {
  const { clock } = x;
  x.emit({
    type: 'phase',
    phase: 'window',
    message: x.precision
      ? `measuring to ±${x.precision.relative * 100}% (${x.precision.minSeconds} to ${x.windowSeconds} s)`
      : `measuring for ${x.windowSeconds} s`,
    context: x.context,
    concurrency: x.concurrency,
  });
  const rec: WindowRecord = {
    startMs: nowMs(),
    endMs: 0,
    scrapes: [],
    clientActive: [],
    clientOutstanding: [],
    clientLoopDelayMs: 0,
    clientHealth: null,
    precision: null,
  };
  load.openWindow(rec.startMs);
  live.windowOpen = rec.startMs;
  live.stage = 'window';
  const end = rec.startMs + clock.wallMs(x.windowSeconds);
  // The window end is its own timer so a slow scrape never delays it.
  let nextScrape = rec.startMs;
  const scrapeLoop = (async () => {
    while (!stopCell.fired && nowMs() < end) {
      if (x.metrics) {
        const q = await scrapeQueue(x.http, x.engine);
        const at = nowMs();
        if (q && at <= end) {
          live.lastQueue = q;
          rec.scrapes.push({ ...q, atSeconds: clock.seconds(at - rec.startMs) });
        }
      }
      rec.clientActive.push(load.clientActive());
      rec.clientOutstanding.push(load.outstanding());
      load.checkStalls();
      nextScrape += clock.wallMs(1);
      await stopCell.sleep(nextScrape - nowMs());
    }
  })();
  const ticks: TokenTick[] = [{ t: 0, tokens: 0 }];
  const closed = x.precision ? await adaptiveWait(x, load, stopCell, rec.startMs, end, ticks) : null;
  if (!x.precision) await stopCell.sleep(end - nowMs());
  // A user stop inside the window leaves it unclosed: the cell is Cancelled, not shortened.
  if (!x.stop.fired) {
    rec.endMs = nowMs();
    // Read at the close, over the window's own tokens, before the streams are cancelled.
    const tokens = load.tokens(true);
    const seen = await load.closeWindow(rec.endMs, tokens);
    rec.clientLoopDelayMs = seen.meanLoopDelayMs;
    rec.clientHealth = seen.health;
    if (x.precision && closed) rec.precision = precisionAtClose(x, closed, ticks, rec, tokens);
  }
  stopCell.fire();
  await scrapeLoop;
  return rec;
}

/**
 * The interval that closed an adaptive window, so a cell that stopped for its precision states the one it reached
 * (recomputed with one more tick, the batches regroup and can read wider); at the maximum, the one at the close.
 * With how much of it the client's own delay held, when that held it.
 */
function precisionAtClose(
  x: DecodeCellInput,
  closed: { reason: StopReason; interval: RateInterval | null },
  ticks: TokenTick[],
  rec: WindowRecord,
  tokens: number,
): WindowPrecision {
  if (!closed.interval) ticks.push({ t: x.clock.seconds(rec.endMs - rec.startMs), tokens });
  const ci = closed.interval ?? batchMeansInterval(ticks);
  const precision: WindowPrecision = {
    stopReason: closed.reason,
    targetRelative: x.precision!.relative,
    halfWidthRelative: ci && Number.isFinite(ci.relative) ? ci.relative : null,
    batches: ci?.batches ?? 0,
    batchSeconds: ci?.batchSeconds ?? 0,
  };
  const held = clientHeldPrecision(precision, rec.clientLoopDelayMs, x.clock.wallMs(precision.batchSeconds));
  if (held !== null) precision.clientDelayShare = held;
  return precision;
}

/**
 * An adaptive window's wait: reads the window's tokens every TICK_SECONDS into `ticks` and returns
 * as soon as precision.ts says the window may close, with the interval it decided on (null when the
 * fixed end came first); null: the cell was stopped first.
 */
async function adaptiveWait(
  x: DecodeCellInput,
  load: StreamLoad,
  stopCell: Interrupt,
  startMs: number,
  endMs: number,
  ticks: TokenTick[],
): Promise<{ reason: StopReason; interval: RateInterval | null } | null> {
  const target: PrecisionTarget = { ...x.precision!, maxSeconds: x.windowSeconds };
  const tickMs = x.clock.wallMs(TICK_SECONDS);
  while (!stopCell.fired) {
    await stopCell.sleep(Math.min(tickMs, endMs - nowMs()));
    if (stopCell.fired) return null;
    const now = nowMs();
    // The fixed end is a wall time: it decides the maximum, whatever rounding the server clock has.
    if (now >= endMs) return { reason: 'max-duration', interval: null };
    ticks.push({ t: x.clock.seconds(now - startMs), tokens: load.tokens(true) });
    const interval = batchMeansInterval(ticks);
    const decision = stopDecision(ticks[ticks.length - 1].t, interval, target);
    if (decision) return { reason: decision, interval };
  }
  return null;
}

/** The cell's streams on this thread, or spread over threads when there are many (stream-shards.ts). */
function loadFor(x: DecodeCellInput, stopCell: Interrupt): StreamLoad {
  const threads = x.threads ?? threadsFor(x.concurrency, availableParallelism());
  const input = { ...x, workers: x.concurrency, part: 0 };
  return threads > 1 ? new ShardedLoad(input, stopCell, threads) : new CellLoad(input, stopCell);
}

export async function runDecodeCell(x: DecodeCellInput): Promise<DecodeCellOutput> {
  const { context, concurrency: C } = x;
  const startedAt = new Date().toISOString();
  const stopCell = new Interrupt();
  const unsubscribe = x.stop.onFire(() => stopCell.fire());

  x.emit({ type: 'phase', phase: 'idle-gate', message: 'waiting for the server to be idle', context, concurrency: C });
  if (!(await idleGate(x, stopCell)))
    x.emit({
      type: 'log',
      level: 'warn',
      message: `The server was still busy after ${IDLE_TIMEOUT_SECONDS} s before cell ${context}×${C}; measuring anyway.`,
    });
  if (x.stop.fired) {
    unsubscribe();
    const cell = {
      ...unmeasuredCell(context, C, 'cancelled', 'the run was stopped before this cell started'),
      startedAt,
      finishedAt: new Date().toISOString(),
    };
    return { cell, connectionLost: false, window: null, streams: [] };
  }

  const load = loadFor(x, stopCell);
  const live: LiveState = { stage: 'ramp', rampStart: nowMs(), windowOpen: 0, lastQueue: null };
  load.start();
  const stopSampler = startSampler(x, load, live);
  const readinessTimedOut = await readinessPhase(x, load, live, stopCell);
  const win = stopCell.fired ? null : await windowPhase(x, load, live, stopCell);

  // Cancel every stream, then let the server drain.
  const seen = await load.finish();
  stopSampler();
  unsubscribe();
  x.emit({
    type: 'phase',
    phase: 'cooldown',
    message: 'cancelling streams, waiting for idle',
    context,
    concurrency: C,
  });
  if (!seen.connectionLost && !x.stop.fired) await idleGate(x, new Interrupt(), 30);

  const window = win && win.endMs > 0 ? { startMs: win.startMs, endMs: win.endMs } : null;
  const cell = cellOf(x, seen, {
    window,
    win,
    readinessTimedOut,
    startedAt,
    rampStart: live.rampStart,
    lastQueue: live.lastQueue,
  });
  return { cell, connectionLost: seen.connectionLost, window, streams: seen.streams };
}

interface CellFacts {
  window: Window | null;
  win: WindowRecord | null;
  readinessTimedOut: boolean;
  startedAt: string;
  rampStart: number;
  lastQueue: QueueSample | null;
}

/**
 * What the client itself kept at the server in the window: its mean outstanding count, less the
 * requests missing while it turned a finished one around: from reading its last token (read late
 * by the client's own event-loop delay) to sending the next, summed over the window.
 */
function clientSide(win: WindowRecord, load: LoadOutcome, w: Window, clock: ServerClock): ClientSide | null {
  if (win.clientOutstanding.length === 0) return null;
  const inWindow = load.turnarounds.filter((t) => t.sentAt >= w.startMs && t.sentAt <= w.endMs);
  const turnaroundMs = inWindow.reduce((sum, t) => sum + t.gapMs + win.clientLoopDelayMs, 0);
  const outstanding = mean(win.clientOutstanding) ?? 0;
  return {
    inFlight: Math.max(0, outstanding - turnaroundMs / Math.max(1, w.endMs - w.startMs)),
    turnaroundSeconds: inWindow.length ? clock.seconds(turnaroundMs / inWindow.length) : 0,
  };
}

/** The schedule a simulated server gave up between the window's first and last scrape, when it gave up any. */
function simulatorLag(scrapes: readonly QueueSample[]): { simulatorLagSeconds?: number } {
  const lag = scrapes.map((q) => q.simLagSeconds).filter((v): v is number => v !== undefined);
  const lost = lag.length >= 2 ? lag[lag.length - 1] - lag[0] : 0;
  return lost > 0 ? { simulatorLagSeconds: lost } : {};
}

/** The cell record: figures from figures.ts, the status from status.ts. */
function cellOf(x: DecodeCellInput, load: LoadOutcome, f: CellFacts): DecodeCell {
  const { clock, context, concurrency: C } = x;
  const w = f.window;
  const streams = load.streams;
  const cancelled = w === null && x.stop.fired;
  const tokens = w ? windowTokens(streams) : 0;
  const windowSeconds = w ? clock.seconds(w.endMs - w.startMs) : null;
  let fatal = load.fatal;
  // A window with no token at all is not a measurement: the server accepted work and made nothing.
  if (w && tokens === 0 && !fatal) {
    const waiting = f.lastQueue && f.lastQueue.waiting > 0 ? ` (${f.lastQueue.waiting} waiting)` : '';
    fatal = `No token arrived during the whole ${Math.round(windowSeconds ?? 0)} s window: the server accepted the requests but produced nothing${load.firstError ? `; ${load.firstError}` : ''}${waiting}.`;
  }
  const failures: FailureCount = load.fused
    ? load.fused
    : w
      ? failureCount(streams, w)
      : { windowRequests: streams.length, failed: load.failed, firstError: load.firstError };
  const queue = queueEvidence(f.win?.scrapes ?? [], w && f.win ? clientSide(f.win, load, w, clock) : null);
  const avgActive = x.metrics && queue ? queue.avgRunning : mean(f.win?.clientActive ?? []);
  const ttft = timeToFirstToken(streams, clock);
  const tbt = timeBetweenTokens(streams, clock);
  const stall = w ? stallInWindow(streams, w, tbt?.p50 ?? null, x.stallSeconds, clock) : null;
  const evidence = {
    concurrency: C,
    avgActiveRequests: avgActive,
    queue,
    readinessTimedOut: f.readinessTimedOut,
    stepSeconds: tbt?.p50 ?? null,
  };
  const verdict = decideStatus({
    ...evidence,
    cancelled,
    fatalError: fatal,
    failures,
    looped: load.looped !== null,
    stall,
  });
  const referenceVerdict = referenceDifference(evidence, verdict);
  const common = {
    promptTokens: streams.find((s) => s.promptTokens >= 0)?.promptTokens ?? null,
    requests: requestSamples(streams, clock, w ? w.startMs : f.rampStart),
    startedAt: f.startedAt,
    finishedAt: new Date().toISOString(),
    readinessTimedOut: f.readinessTimedOut,
    failedRequests: failures.failed,
    windowRequests: w || load.fused ? failures.windowRequests : null,
    queueEvidence: queue,
    ...simulatorLag(f.win?.scrapes ?? []),
    ...(f.win?.clientHealth ? { clientHealth: f.win.clientHealth } : {}),
    ...(referenceVerdict ? { referenceVerdict } : {}),
  };

  if (!hasFigure(verdict.status)) {
    const cell: DecodeCell = { ...unmeasuredCell(context, C, verdict.status, verdict.reason), ...common };
    const lf = load.looped;
    if (lf && verdict.status === 'looped') {
      cell.evidence = {
        loopExcerpt: lf.finding.excerpt,
        loopPeriodChars: lf.finding.period,
        loopStream: lf.stream,
        logLines: [],
      };
      cell.reason = `the model kept repeating the same text (a ${fmtCount(lf.finding.period)}-character passage ${fmtCount(lf.finding.repeats)} times in its ${lf.stream})`;
    }
    return cell;
  }

  const window = w as Window;
  const total = tokens / (windowSeconds as number);
  const beforeWindow = load.failed - failures.failed;
  const failedNote = [
    failures.failed > 0
      ? `${failures.failed} of ${failures.windowRequests} requests in the window failed and were replaced (the figure stands up to 10%); the first: ${failures.firstError ?? 'no message'}`
      : null,
    beforeWindow > 0
      ? `${beforeWindow} request${beforeWindow === 1 ? '' : 's'} failed before the window and ${beforeWindow === 1 ? 'was' : 'were'} replaced${failures.failed ? '' : `: ${load.firstError ?? 'no message'}`}`
      : null,
  ]
    .filter(Boolean)
    .join('; ');
  return {
    context,
    concurrency: C,
    status: verdict.status,
    reason: [verdict.reason, failedNote, clientBusyNote(f.win?.clientHealth)].filter(Boolean).join('; ') || null,
    totalTokensPerSecond: total,
    perRequestTokensPerSecond: perRequestRate(streams, window, clock),
    fairShareTokensPerSecond: total / C,
    ttft,
    timeBetweenTokens: tbt,
    e2eLatency: endToEndLatency(streams, clock),
    ...reasoningOfCell(streams, clock),
    avgActiveRequests: avgActive,
    completedRequests: completedInWindow(streams, window),
    outputTokens: tokens,
    windowSeconds,
    maxWaitingSeen: f.win?.scrapes.length ? Math.max(...f.win.scrapes.map((q) => q.waiting)) : null,
    stall,
    ...(f.win?.precision ? { precision: f.win.precision } : {}),
    evidence: null,
    telemetry: null,
    ...common,
  };
}

/** Every request's own timings, columnar, seconds relative to `origin` (the window start). */
function requestSamples(streams: readonly StreamRecord[], clock: ServerClock, origin: number): RequestSamples {
  const rel = (t: number) => (t < 0 ? null : clock.seconds(t - origin));
  return {
    sentAt: streams.map((s) => clock.seconds(s.sentAt - origin)),
    firstTokenAt: streams.map((s) => rel(s.firstTokenAt)),
    lastTokenAt: streams.map((s) => rel(s.lastTokenAt)),
    outputTokens: streams.map((s) => s.tokens),
    windowTokens: streams.map((s) => (s.tokensAtClose >= 0 ? Math.max(0, s.tokensAtClose - s.tokensAtOpen) : 0)),
    promptTokens: streams.map((s) => (s.promptTokens >= 0 ? s.promptTokens : null)),
    outcome: streams.map((s) => (s.outcome === 'done' ? 'done' : s.outcome === 'error' ? 'error' : 'cancelled')),
    longestGap: streams.map((s) => (s.longestGapEndedAt < 0 ? null : clock.seconds(s.longestGapMs))),
    longestGapEndedAt: streams.map((s) => (s.longestGapEndedAt < 0 ? null : rel(s.longestGapEndedAt))),
  };
}
