/**
 * The figures of a decode cell from its streams' own timings (docs/method.md, "Figures of a
 * cell"). Pure: streams are read as plain records (wall epoch milliseconds), the clock turns
 * durations into server seconds.
 */
import type { LatencyStats, StallEvidence } from '#shared/session/schema';
import type { ServerClock } from './clock';
import { latencyStats, percentile } from './stats';
import type { FailureCount } from './status';

/** What the figures need of a stream (ChatStream has all of it). */
export interface StreamTimes {
  sentAt: number;
  firstTokenAt: number;
  lastTokenAt: number;
  endedAt: number;
  tokens: number;
  outcome: 'running' | 'done' | 'cancelled' | 'error';
  error: string | null;
  tokensAtOpen: number;
  tokensAtClose: number;
  longestGapMs: number;
  longestGapEndedAt: number;
  gapAtCloseMs: number;
  /** When the first answer token came after any reasoning (-1: none), and the reasoning's tokens. */
  firstAnswerAt: number;
  reasoningTokens: number;
}

/** A stall is a gap over this many times the cell's median time between tokens ... */
export const STALL_TBT_FACTOR = 20;
/** ... and at least this long (seconds). */
export const STALL_MIN_SECONDS = 2;
/**
 * ... and at least this long in wall-clock milliseconds. Against a simulator with a sped-up
 * clock, 2 s of server time is a fraction of a wall second, which a busy machine's scheduling
 * alone can open between two chunks; at speed 1 the 2 s above always decides.
 */
export const STALL_MIN_WALL_MS = 1000;

export interface Window {
  /** Wall epoch ms. */
  startMs: number;
  endMs: number;
}

/** Requests in flight at some time during the window (failed ones included). */
export function inWindow<T extends StreamTimes>(streams: readonly T[], w: Window): T[] {
  return streams.filter((s) => s.sentAt <= w.endMs && (s.endedAt < 0 || s.endedAt >= w.startMs));
}

/** How many of the window's requests failed, and the first failure's message. */
export function failureCount(streams: readonly StreamTimes[], w: Window): FailureCount {
  const mine = inWindow(streams, w);
  const failed = mine.filter((s) => s.outcome === 'error');
  const first = [...failed].sort((a, b) => a.endedAt - b.endedAt)[0];
  return { windowRequests: mine.length, failed: failed.length, firstError: first?.error ?? null };
}

/** Output tokens counted inside the window. */
export function windowTokens(streams: readonly StreamTimes[]): number {
  let n = 0;
  for (const s of streams) n += Math.max(0, (s.tokensAtClose >= 0 ? s.tokensAtClose : s.tokens) - s.tokensAtOpen);
  return n;
}

/** Streams that ended with [DONE] inside the window. */
export function completedInWindow(streams: readonly StreamTimes[], w: Window): number {
  return streams.filter((s) => s.outcome === 'done' && s.endedAt >= w.startMs && s.endedAt <= w.endMs).length;
}

/** A request's own time between tokens, server seconds; null below two tokens. */
export function ownTimeBetweenTokens(s: StreamTimes, clock: ServerClock): number | null {
  if (s.tokens < 2 || s.lastTokenAt <= s.firstTokenAt) return null;
  return clock.seconds(s.lastTokenAt - s.firstTokenAt) / (s.tokens - 1);
}

const present = (v: number | null): v is number => v !== null && v > 0;

export function timeToFirstToken(streams: readonly StreamTimes[], clock: ServerClock): LatencyStats | null {
  return latencyStats(streams.filter((s) => s.firstTokenAt >= 0).map((s) => clock.seconds(s.firstTokenAt - s.sentAt)));
}

export function timeBetweenTokens(streams: readonly StreamTimes[], clock: ServerClock): LatencyStats | null {
  return latencyStats(streams.map((s) => ownTimeBetweenTokens(s, clock)).filter(present));
}

/** End-to-end latency, send to last token, of the requests that finished with [DONE]. */
export function endToEndLatency(streams: readonly StreamTimes[], clock: ServerClock): LatencyStats | null {
  return latencyStats(
    streams
      .filter((s) => s.outcome === 'done' && s.lastTokenAt >= 0)
      .map((s) => clock.seconds(s.lastTokenAt - s.sentAt)),
  );
}

/**
 * Per request tok/s: the median over the window's requests of each one's own rate, 1 / its time
 * between tokens (not 1 / the median time between tokens, which differs when rates spread).
 */
export function perRequestRate(streams: readonly StreamTimes[], w: Window, clock: ServerClock): number | null {
  const rates = inWindow(streams, w)
    .map((s) => ownTimeBetweenTokens(s, clock))
    .filter(present)
    .map((tbt) => 1 / tbt)
    .sort((a, b) => a - b);
  return rates.length ? percentile(rates, 0.5) : null;
}

/**
 * The longest gap between two tokens of one stream inside the window, when it is over 20× the
 * median time between tokens (and at least 2 s) but under the stall limit (a stream stalled
 * that long has already failed). A gap still open when the window closed counts too.
 */
export function stallInWindow(
  streams: readonly StreamTimes[],
  w: Window,
  medianTbtSeconds: number | null,
  stallLimitSeconds: number,
  clock: ServerClock,
): StallEvidence | null {
  if (medianTbtSeconds === null) return null;
  const threshold = Math.max(STALL_MIN_SECONDS, STALL_TBT_FACTOR * medianTbtSeconds);
  let worst: StallEvidence | null = null;
  for (const s of inWindow(streams, w)) {
    const gaps: Array<[number, number]> = [];
    if (s.longestGapEndedAt >= w.startMs && s.longestGapEndedAt <= w.endMs)
      gaps.push([s.longestGapMs, s.longestGapEndedAt]);
    if (s.gapAtCloseMs > 0) gaps.push([s.gapAtCloseMs, w.endMs]);
    for (const [gapMs, endedAt] of gaps) {
      const gap = clock.seconds(gapMs);
      if (
        gapMs >= STALL_MIN_WALL_MS &&
        gap > threshold &&
        gap < stallLimitSeconds &&
        (worst === null || gap > worst.gapSeconds)
      )
        worst = { gapSeconds: gap, endedAtSeconds: clock.seconds(endedAt - w.startMs), thresholdSeconds: threshold };
    }
  }
  return worst;
}

/**
 * A thinking model's figures (docs/method.md, "Reasoning models"): time to the first answer token
 * of the requests that reached their answer, and reasoning tokens per request; nothing when no
 * request had reasoning, so a plain model's cell carries no empty figures.
 */
export function reasoningOfCell(
  streams: readonly StreamTimes[],
  clock: ServerClock,
): { timeToFirstAnswer?: LatencyStats | null; reasoningTokensPerRequest?: number } {
  const thinking = streams.filter((s) => s.reasoningTokens > 0);
  if (thinking.length === 0) return {};
  const answered = streams.filter((s) => s.firstAnswerAt >= 0);
  // Requests that reached their answer reasoned to the end; the others only count when none did.
  const whole = answered.filter((s) => s.reasoningTokens > 0);
  const counted = whole.length ? whole : thinking;
  return {
    timeToFirstAnswer: latencyStats(answered.map((s) => clock.seconds(s.firstAnswerAt - s.sentAt))),
    reasoningTokensPerRequest: counted.reduce((n, s) => n + s.reasoningTokens, 0) / counted.length,
  };
}
