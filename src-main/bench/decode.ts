/**
 * One sustained-decode cell (METHOD.md): idle gate, C workers keeping C requests in flight,
 * the readiness gate, a fixed measurement window, cancel, idle gate again; then the figures
 * and the status. Everything it measured goes into the returned DecodeCell, including every
 * request's own timings (seconds relative to the window start).
 */
import type { EngineKind } from '../server/target';
import type { DecodeCell, RequestSamples } from '../../src-shared/session/schema';
import { unmeasuredCell } from './cells';
import { Interrupt, type ServerClock } from './clock';
import { type BenchHttp, getTextOrNull } from './http';
import { queueSample, type QueueSample } from './metrics';
import { latencyStats, mean } from './stats';
import { decideStatus } from './status';
import { ChatStream, nowMs } from './stream';
import type { BenchEvent } from './types';

/** Readiness: not before this many seconds, then steady for this long (METHOD.md). */
export const READINESS_MIN_SECONDS = 2;
export const READINESS_STEADY_SECONDS = 3;
/** Idle gates give up after this long and go on (with a log line). */
export const IDLE_TIMEOUT_SECONDS = 60;
/** Live samples to the UI: twice a (server) second, at most twice a wall second, at least every 50 ms. */
const SAMPLE_EVERY_SECONDS = 0.5;

export interface DecodeCellInput {
  http: BenchHttp;
  engine: EngineKind;
  /** Whether /metrics answers with queue gauges (else readiness is client-side). */
  metrics: boolean;
  clock: ServerClock;
  context: number;
  concurrency: number;
  /** The serialized request body (the same for every request of the cell). */
  body: string;
  windowSeconds: number;
  stallSeconds: number;
  readinessTimeoutSeconds: number;
  /** The user's stop. */
  stop: Interrupt;
  emit: (e: BenchEvent) => void;
}

export interface DecodeCellOutput {
  cell: DecodeCell;
  /** The server went away during the cell (connection refused or reset). */
  connectionLost: boolean;
  /** The measurement window in wall-clock epoch milliseconds (null when it never closed). */
  window: { startMs: number; endMs: number } | null;
  /** Every stream of the cell (benchmarks compare them with a simulator's ground truth). */
  streams: readonly ChatStream[];
}

export async function scrapeQueue(http: BenchHttp, engine: EngineKind): Promise<QueueSample | null> {
  const text = await getTextOrNull(http, '/metrics', 5_000);
  return text === null ? null : queueSample(text, engine);
}

/** Waits until the server runs and queues nothing; false when it did not within the timeout. */
export async function idleGate(x: Pick<DecodeCellInput, 'http' | 'engine' | 'metrics' | 'clock'>, stop: Interrupt, timeoutSeconds = IDLE_TIMEOUT_SECONDS): Promise<boolean> {
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

export async function runDecodeCell(x: DecodeCellInput): Promise<DecodeCellOutput> {
  const { clock, concurrency: C, context } = x;
  const startedAt = new Date().toISOString();
  const stopCell = new Interrupt();
  const unsubscribe = x.stop.onFire(() => stopCell.fire());

  x.emit({ type: 'phase', phase: 'idle-gate', message: 'waiting for the server to be idle', context, concurrency: C });
  if (!(await idleGate(x, stopCell)))
    x.emit({ type: 'log', level: 'warn', message: `The server was still busy after ${IDLE_TIMEOUT_SECONDS} s before cell ${context}×${C}; measuring anyway.` });

  if (x.stop.fired) {
    unsubscribe();
    const cell = { ...unmeasuredCell(context, C, 'cancelled', 'the run was stopped before this cell started'), startedAt, finishedAt: new Date().toISOString() };
    return { cell, connectionLost: false, window: null, streams: [] };
  }

  const streams: ChatStream[] = [];
  const live = new Set<ChatStream>();
  let running = true;
  let firstError: string | null = null;
  let connectionLost = false;
  let looped: ChatStream | null = null;
  let lastQueue: QueueSample | null = null;

  const onEnd = (s: ChatStream) => {
    live.delete(s);
    if (!running) return;
    if (s.outcome === 'error') {
      firstError ??= s.error;
      connectionLost ||= s.connectionLost;
      stopCell.fire();
    } else if (s.outcome === 'done') startOne();
  };
  const onLoop = (s: ChatStream) => {
    looped ??= s;
    stopCell.fire(); // the measurement is discarded: no need to go on
  };
  const startOne = () => {
    const s = new ChatStream(x.http, { body: x.body, detectLoops: true, onEnd, onLoop });
    streams.push(s);
    live.add(s);
  };

  // Stall checks: no first token within the readiness timeout (unless the server says it is
  // queued), or no bytes for stallSeconds once streaming.
  const checkStalls = () => {
    const now = nowMs();
    for (const s of live) {
      if (s.firstTokenAt < 0) {
        const queued = lastQueue !== null && lastQueue.waiting > 0;
        if (!queued && clock.seconds(now - s.sentAt) > x.readinessTimeoutSeconds + x.windowSeconds)
          s.failWith(`No first token after ${Math.round(clock.seconds(now - s.sentAt))} s: the server accepted the request but produced nothing.`);
      } else if (clock.seconds(now - s.lastActivityAt) > x.stallSeconds) {
        s.failWith(`No token for ${x.stallSeconds} s: the stream stalled (the server stopped producing tokens).`);
      }
    }
  };

  const tokensNow = (fromOpen: boolean) => {
    let n = 0;
    for (const s of streams) n += fromOpen ? Math.max(0, s.tokens - s.tokensAtOpen) : s.tokens;
    return n;
  };
  const clientActive = () => {
    let n = 0;
    for (const s of live) if (s.firstTokenAt >= 0) n++;
    return n;
  };

  // Ramp: C requests at once.
  const rampStart = nowMs();
  for (let i = 0; i < C; i++) startOne();

  // Live samples about twice a second, whatever the stage.
  let stage: 'ramp' | 'window' = 'ramp';
  let windowOpen = 0;
  let lastSampleTokens = 0;
  let lastSampleAt = rampStart;
  const sampler = setInterval(() => {
    const now = nowMs();
    const tokens = tokensNow(stage === 'window');
    const active = x.metrics && lastQueue ? lastQueue.running : clientActive();
    const tps =
      stage === 'window'
        ? tokens / Math.max(1e-9, clock.seconds(now - windowOpen))
        : (tokens - lastSampleTokens) / Math.max(1e-9, clock.seconds(now - lastSampleAt));
    lastSampleTokens = tokens;
    lastSampleAt = now;
    x.emit({
      type: 'sample',
      context,
      concurrency: C,
      stage,
      tokensPerSecond: tps,
      activeRequests: active,
      waitingRequests: lastQueue ? lastQueue.waiting : null,
      tokens: stage === 'window' ? tokens : 0,
      elapsedSeconds: clock.since(stage === 'window' ? windowOpen : rampStart),
    });
  }, Math.max(50, Math.min(500, clock.wallMs(SAMPLE_EVERY_SECONDS))));

  // Readiness gate.
  x.emit({ type: 'phase', phase: 'readiness', message: `waiting for ${C} streams to be steady`, context, concurrency: C });
  let steadySince = -1;
  let readinessTimedOut = false;
  const tick = () => Math.min(250, clock.wallMs(0.25));
  while (!stopCell.fired) {
    if (x.metrics) lastQueue = await scrapeQueue(x.http, x.engine);
    checkStalls();
    if (stopCell.fired) break;
    const now = nowMs();
    let everyStreamHasToken = live.size >= C;
    for (const s of live) if (s.firstTokenAt < 0) everyStreamHasToken = false;
    const serverOk = !x.metrics || (lastQueue !== null && lastQueue.waiting === 0 && lastQueue.running >= C);
    if (everyStreamHasToken && serverOk) {
      if (steadySince < 0) steadySince = now;
    } else steadySince = -1;
    const elapsed = clock.seconds(now - rampStart);
    if (elapsed >= READINESS_MIN_SECONDS && steadySince >= 0 && clock.seconds(now - steadySince) >= READINESS_STEADY_SECONDS) break;
    if (elapsed >= x.readinessTimeoutSeconds) {
      readinessTimedOut = true;
      x.emit({ type: 'log', level: 'warn', message: `Cell ${context}×${C}: readiness did not come within ${x.readinessTimeoutSeconds} s; measuring anyway.` });
      break;
    }
    await stopCell.sleep(tick());
  }

  // The measurement window.
  const windowSamples: QueueSample[] = [];
  const clientSamples: number[] = [];
  let t0 = 0;
  let t1 = 0;
  if (!stopCell.fired) {
    x.emit({ type: 'phase', phase: 'window', message: `measuring for ${x.windowSeconds} s`, context, concurrency: C });
    t0 = nowMs();
    for (const s of streams) s.tokensAtOpen = s.tokens;
    windowOpen = t0;
    stage = 'window';
    lastSampleTokens = 0;
    const end = t0 + clock.wallMs(x.windowSeconds);
    // Scrapes once a (server) second; the window end is its own timer so scrapes never delay it.
    let nextScrape = t0;
    const scrapeLoop = (async () => {
      while (!stopCell.fired && nowMs() < end) {
        if (x.metrics) {
          const q = await scrapeQueue(x.http, x.engine);
          if (q && nowMs() <= end) {
            lastQueue = q;
            windowSamples.push(q);
          }
        }
        clientSamples.push(clientActive());
        checkStalls();
        nextScrape += clock.wallMs(1);
        await stopCell.sleep(nextScrape - nowMs());
      }
    })();
    await stopCell.sleep(end - nowMs());
    // A user stop inside the window leaves it unclosed: the cell is Cancelled, not shortened.
    if (!x.stop.fired) {
      t1 = nowMs();
      for (const s of streams) s.tokensAtClose = s.tokens;
    }
    stopCell.fire();
    await scrapeLoop;
  }

  // Cancel every stream, then let the server drain.
  running = false;
  clearInterval(sampler);
  for (const s of [...live]) s.cancel();
  unsubscribe();
  x.emit({ type: 'phase', phase: 'cooldown', message: 'cancelling streams, waiting for idle', context, concurrency: C });
  if (!connectionLost && !x.stop.fired) await idleGate(x, new Interrupt(), 30);

  const cancelled = t1 === 0 && x.stop.fired;
  const loopedStream = looped as ChatStream | null;
  const measured = t1 > 0;
  const windowSeconds = measured ? clock.seconds(t1 - t0) : null;

  const requests = requestSamples(streams, clock, measured ? t0 : rampStart);
  let windowTokens = 0;
  let completed = 0;
  for (const s of streams) {
    if (!measured) break;
    windowTokens += Math.max(0, (s.tokensAtClose >= 0 ? s.tokensAtClose : s.tokens) - s.tokensAtOpen);
    if (s.outcome === 'done' && s.endedAt >= t0 && s.endedAt <= t1) completed++;
  }
  // A window with no token at all is not a measurement: the server accepted work and made nothing.
  if (measured && windowTokens === 0 && !firstError)
    firstError = `No token arrived during the whole ${Math.round(windowSeconds ?? 0)} s window: the server accepted the requests but produced nothing${lastQueue && lastQueue.waiting > 0 ? ` (${lastQueue.waiting} waiting)` : ''}.`;
  const avgActive = x.metrics && windowSamples.length ? mean(windowSamples.map((q) => q.running)) : mean(clientSamples);
  const maxWaitingSeen = x.metrics && windowSamples.length ? Math.max(...windowSamples.map((q) => q.waiting)) : null;
  const verdict = decideStatus({
    cancelled,
    error: firstError,
    looped: loopedStream !== null,
    concurrency: C,
    avgActiveRequests: avgActive,
    maxWaitingSeen,
    readinessTimedOut,
  });
  const promptTokens = streams.find((s) => s.promptTokens >= 0)?.promptTokens ?? null;
  const finishedAt = new Date().toISOString();

  if (verdict.status === 'cancelled' || verdict.status === 'error' || verdict.status === 'looped') {
    const cell = unmeasuredCell(context, C, verdict.status, verdict.reason);
    cell.promptTokens = promptTokens;
    cell.requests = requests;
    cell.startedAt = startedAt;
    cell.finishedAt = finishedAt;
    cell.readinessTimedOut = readinessTimedOut;
    if (loopedStream?.loop && verdict.status === 'looped') {
      const lf = loopedStream.loop;
      cell.evidence = { loopExcerpt: lf.finding.excerpt, loopPeriodChars: lf.finding.period, loopStream: lf.stream, logLines: [] };
      cell.reason = `the model kept repeating the same text (a ${lf.finding.period}-character passage ${lf.finding.repeats} times in its ${lf.stream})`;
    }
    return { cell, connectionLost, window: t1 > 0 ? { startMs: t0, endMs: t1 } : null, streams };
  }

  const ws = windowSeconds as number;
  const total = windowTokens / ws;
  const ttft = latencyStats(streams.filter((s) => s.firstTokenAt >= 0).map((s) => clock.seconds(s.firstTokenAt - s.sentAt)));
  const tbt = latencyStats(
    streams
      .filter((s) => s.tokens >= 2 && s.lastTokenAt > s.firstTokenAt)
      .map((s) => clock.seconds(s.lastTokenAt - s.firstTokenAt) / (s.tokens - 1)),
  );
  const cell: DecodeCell = {
    context,
    concurrency: C,
    status: verdict.status,
    reason: verdict.reason,
    promptTokens,
    totalTokensPerSecond: total,
    perRequestTokensPerSecond: total / C,
    ttft,
    timeBetweenTokens: tbt,
    avgActiveRequests: avgActive,
    completedRequests: completed,
    outputTokens: windowTokens,
    windowSeconds: ws,
    readinessTimedOut,
    maxWaitingSeen,
    evidence: null,
    requests,
    telemetry: null,
    startedAt,
    finishedAt,
  };
  return { cell, connectionLost, window: t1 > 0 ? { startMs: t0, endMs: t1 } : null, streams };
}

/** Every request's own timings, columnar, seconds relative to `origin` (the window start). */
export function requestSamples(streams: readonly ChatStream[], clock: ServerClock, origin: number): RequestSamples {
  const rel = (t: number) => (t < 0 ? null : clock.seconds(t - origin));
  return {
    sentAt: streams.map((s) => clock.seconds(s.sentAt - origin)),
    firstTokenAt: streams.map((s) => rel(s.firstTokenAt)),
    lastTokenAt: streams.map((s) => rel(s.lastTokenAt)),
    outputTokens: streams.map((s) => s.tokens),
    windowTokens: streams.map((s) => (s.tokensAtClose >= 0 ? Math.max(0, s.tokensAtClose - s.tokensAtOpen) : 0)),
    promptTokens: streams.map((s) => (s.promptTokens >= 0 ? s.promptTokens : null)),
    outcome: streams.map((s) => (s.outcome === 'done' ? 'done' : s.outcome === 'error' ? 'error' : 'cancelled')),
  };
}
