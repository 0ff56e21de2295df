/**
 * The figures of one load pass from its requests' own records (docs/load.md, "Figures of a
 * rate"). Pure: records are wall epoch ms, the clock turns durations into server seconds.
 */
import type { CountedStats, LoadPass, LoadQueue, LoadRateResult, Slo, TurnTtft } from '#shared/session/schema-load';
import { mean } from '#shared/mean';
import { fmtRate } from '#shared/report/format';
import type { ServerClock } from './clock';
import type { LoadPassOutput, LoadRecord, QueueReading } from './load-rate';
import { latencyStats } from './stats';

/** Achieved below this share of the rate asked for is not keeping up. */
export const KEPT_UP_SHARE = 0.9;
/** A waiting queue that grew by more than this many requests over the window is not being served. */
export const WAITING_GROWTH_LIMIT = 1;
/** The share of a rate's requests that must meet every SLO target for the rate to meet them. */
export const SLO_SHARE = 0.99;

/** p50/p90/p99/mean with the count of values; null when there are none. */
export function countedStats(values: readonly number[]): CountedStats | null {
  const finite = values.filter((v) => Number.isFinite(v));
  const s = latencyStats(finite);
  return s && { ...s, count: finite.length };
}

/** Output tokens of a request emitted inside [from, to], taking its tokens as spread evenly from its first to its last. */
export function tokensInside(r: LoadRecord, from: number, to: number): number {
  if (r.firstTokenAt < 0 || r.outputTokens <= 0) return 0;
  const first = r.firstTokenAt >= from && r.firstTokenAt <= to ? 1 : 0;
  const rest = r.outputTokens - 1;
  const span = r.lastTokenAt - r.firstTokenAt;
  if (rest <= 0) return first;
  if (span <= 0) return r.lastTokenAt >= from && r.lastTokenAt <= to ? r.outputTokens : 0;
  const overlap = Math.max(0, Math.min(to, r.lastTokenAt) - Math.max(from, r.firstTokenAt));
  return first + (rest * overlap) / span;
}

/** Mean time between tokens of one request (its decode time over its gaps), wall ms; NaN below 2 tokens. */
const tbtMs = (r: LoadRecord): number =>
  r.outputTokens >= 2 && r.lastTokenAt > r.firstTokenAt
    ? (r.lastTokenAt - r.firstTokenAt) / (r.outputTokens - 1)
    : Number.NaN;

/**
 * Achieved req/s of a window (docs/load.md, "Achieved rate"): the window's own requests (due inside
 * it) that finished, over the time the server took to take them up: the window, stretched by how
 * much longer the last of them waited for its first token than the first did. A server that keeps
 * up makes them wait alike; one behind its arrivals makes each wait longer than the one before and
 * is credited with its own pace. Counting the requests the offered rate counts keeps it at or below
 * the offered rate; completions inside the window would count the warm-up's arrivals in place of the
 * window's last ones, which in a short pass is not the same number.
 */
export function achievedRate(done: readonly LoadRecord[], windowMs: number, clock: ServerClock): number {
  if (windowMs <= 0 || done.length === 0) return 0;
  // Only requests that had a first token say how long they waited (an empty answer has none).
  const byDue = done.filter((r) => r.firstTokenAt >= 0).sort((a, b) => a.dueAt - b.dueAt);
  const wait = (r: LoadRecord) => r.firstTokenAt - r.dueAt;
  const stretch = byDue.length < 2 ? 0 : Math.max(0, wait(byDue[byDue.length - 1]) - wait(byDue[0]));
  return done.length / clock.seconds(windowMs + stretch);
}

/** Waiting requests and queue time over the window, from the /metrics readings. */
export function queueOver(readings: readonly QueueReading[], startMs: number, endMs: number): LoadQueue | null {
  const inside = readings.filter((r) => r.at >= startMs && r.at <= endMs + 1500);
  if (inside.length === 0) return null;
  const waits = inside.map((r) => r.waiting);
  const third = Math.max(1, Math.floor(waits.length / 3));
  const growth = (mean(waits.slice(-third)) ?? 0) - (mean(waits.slice(0, third)) ?? 0);
  const before = [...readings].reverse().find((r) => r.at <= startMs) ?? inside[0];
  const after = inside[inside.length - 1];
  const n = (after.queueCount ?? 0) - (before.queueCount ?? 0);
  const sum = (after.queueSum ?? 0) - (before.queueSum ?? 0);
  return {
    scrapes: inside.length,
    meanWaiting: mean(waits) ?? 0,
    maxWaiting: Math.max(...waits),
    waitingGrowth: growth,
    meanQueueSeconds: after.queueCount === null || n <= 0 ? null : Math.max(0, sum / n),
  };
}

/** Whether the server kept up, and if not, why in words with the evidence. */
export function keptUp(
  target: number | null,
  achieved: number,
  held: number,
  queue: LoadQueue | null,
): { keptUp: boolean; reason: string | null } {
  const why: string[] = [];
  if (target !== null && achieved < KEPT_UP_SHARE * target)
    why.push(`completed ${fmtRate(achieved)} req/s of ${fmtRate(target)} offered`);
  if (queue && queue.waitingGrowth > WAITING_GROWTH_LIMIT)
    why.push(
      `the server's waiting queue grew by ${queue.waitingGrowth.toFixed(1)} over the window (up to ${queue.maxWaiting})`,
    );
  if (held > 0) why.push(`${held} arrivals waited for the in-flight cap`);
  return { keptUp: why.length === 0, reason: why.length ? why.join('; ') : null };
}

/** Whether one finished request met every target (times in server seconds). */
function meets(slo: Slo, ttft: number, tbt: number, e2e: number): boolean {
  if (slo.ttftSeconds !== undefined && !(ttft <= slo.ttftSeconds)) return false;
  if (slo.tbtSeconds !== undefined && !(Number.isNaN(tbt) || tbt <= slo.tbtSeconds)) return false;
  if (slo.e2eSeconds !== undefined && !(e2e <= slo.e2eSeconds)) return false;
  return true;
}

interface FigureInput {
  pass: LoadPass;
  targetRate: number | null;
  output: LoadPassOutput;
  clock: ServerClock;
  slo: Slo | null;
  startedAt: string;
}

export function loadFigures(x: FigureInput): LoadRateResult {
  const { records, windowStartMs: from, windowEndMs: to, readings } = x.output;
  const { clock } = x;
  const seconds = clock.seconds(to - from);
  const perSecond = (n: number) => (seconds > 0 ? n / seconds : 0);
  const mine = records.filter((r) => r.dueAt >= from && r.dueAt < to);
  const done = mine.filter((r) => r.outcome === 'done');
  const errors = mine.filter((r) => r.outcome === 'error');
  const outputInside = records.reduce((n, r) => n + tokensInside(r, from, to), 0);
  const inputInside = records
    .filter((r) => r.firstTokenAt >= from && r.firstTokenAt <= to)
    .reduce((n, r) => n + r.inputTokens, 0);
  const ttft = done.map((r) => clock.seconds(r.firstTokenAt - r.sentAt));
  const tbt = done.map((r) => clock.seconds(tbtMs(r)));
  const e2e = done.map((r) => clock.seconds(r.endedAt - r.sentAt));
  const achieved = achievedRate(done, to - from, clock);
  const held = mine.filter((r) => r.held).length;
  const queue = queueOver(readings, from, to);
  const verdict = keptUp(x.targetRate, achieved, held, queue);
  const good = x.slo ? done.filter((_, i) => meets(x.slo as Slo, ttft[i], tbt[i], e2e[i])).length : null;
  return {
    pass: x.pass,
    targetRate: x.targetRate,
    offeredRate: perSecond(mine.length),
    achievedRate: achieved,
    outputTokensPerSecond: perSecond(outputInside),
    totalTokensPerSecond: perSecond(outputInside + inputInside),
    ttft: countedStats(ttft),
    timeBetweenTokens: countedStats(tbt),
    e2e: countedStats(e2e),
    requests: mine.length,
    completed: done.length,
    errors: errors.length,
    unfinished: mine.length - done.length - errors.length,
    firstError: [...errors].sort((a, b) => a.endedAt - b.endedAt)[0]?.error ?? null,
    meanInputTokens: mean(done.map((r) => r.inputTokens)),
    meanOutputTokens: mean(done.map((r) => r.outputTokens)),
    maxInFlight: maxInFlight(records),
    heldBack: held,
    queue,
    keptUp: verdict.keptUp,
    keptUpReason: verdict.reason,
    // The achieved rate of the requests that met every target: never above the achieved rate.
    goodput: good === null ? null : done.length > 0 ? (achieved * good) / done.length : 0,
    sloShare: good === null ? null : mine.length > 0 ? good / mine.length : 0,
    windowSeconds: seconds,
    startedAt: x.startedAt,
    // A timer may fire a fraction of a millisecond early: that is no lag.
    arrivalLag: countedStats(mine.map((r) => clock.seconds(Math.max(0, r.sentAt - r.dueAt)))),
    ...reasoningFigures(done, clock),
    prefixCache: prefixCacheOver(x.output),
    ...(records.some((r) => r.turn > 0) ? { ttftByTurn: ttftByTurn(done, clock) } : {}),
  };
}

/** Time to the first answer token and reasoning tokens per request, when any answer had reasoning (else nothing). */
export function reasoningFigures(
  done: readonly LoadRecord[],
  clock: ServerClock,
): Pick<LoadRateResult, 'timeToFirstAnswer' | 'meanReasoningTokens'> {
  if (!done.some((r) => r.reasoningTokens > 0)) return {};
  const answered = done.filter((r) => r.firstAnswerAt >= 0);
  return {
    timeToFirstAnswer: countedStats(answered.map((r) => clock.seconds(r.firstAnswerAt - r.sentAt))),
    meanReasoningTokens: mean(done.map((r) => r.reasoningTokens)),
  };
}

/** The prefix cache's lookups and hits over the pass, from its counters before and after (null: not reported). */
export function prefixCacheOver(o: LoadPassOutput): LoadRateResult['prefixCache'] {
  const c = o.prefixCache;
  const delta = (k: 'prefixQueries' | 'prefixHits') => Math.max(0, (c?.after[k] ?? 0) - (c?.before[k] ?? 0));
  return c ? { queriedTokens: delta('prefixQueries'), hitTokens: delta('prefixHits') } : null;
}

/** Time to first token of the finished requests of each conversation turn, in turn order. */
export function ttftByTurn(done: readonly LoadRecord[], clock: ServerClock): TurnTtft[] {
  const turns = [...new Set(done.map((r) => r.turn))].filter((t) => t > 0).sort((a, b) => a - b);
  return turns.flatMap((turn) => {
    const ttft = countedStats(
      done.filter((r) => r.turn === turn && r.firstTokenAt >= 0).map((r) => clock.seconds(r.firstTokenAt - r.sentAt)),
    );
    return ttft ? [{ turn, ttft }] : [];
  });
}

/** The most requests open at once, from their send and end times. */
function maxInFlight(records: readonly LoadRecord[]): number {
  const edges: Array<[number, number]> = [];
  for (const r of records) {
    edges.push([r.sentAt, 1]);
    if (r.endedAt >= 0) edges.push([r.endedAt, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d));
  return most;
}

/** The largest rate that kept up with at least SLO_SHARE of its requests within every target; null when none did. */
export function bestRateWithinSlo(results: readonly LoadRateResult[]): number | null {
  const ok = results.filter((r) => r.pass === 'rate' && r.keptUp && r.sloShare !== null && r.sloShare >= SLO_SHARE);
  return ok.length ? Math.max(...ok.map((r) => r.targetRate ?? r.offeredRate)) : null;
}
