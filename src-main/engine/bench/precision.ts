/**
 * Adaptive measurement (docs/adaptive-precision.md): when a decode cell's window may close. Pure.
 * The window's tokens are sampled as a cumulative count over time; the 95% interval of the total
 * rate comes from batch means: the window so far is cut into BATCHES equal sub-windows, each gives
 * one rate, and the Student's t interval of those rates' mean (confidence.ts, the same as repeats)
 * is the interval. Neighbouring moments of a decode are correlated (request turnover, a server's
 * slow drifts), single samples are not independent, but sub-windows much longer than that
 * correlation nearly are, which is what keeps the interval honest. The mean of equal sub-windows'
 * rates is the window's own total tok/s, so the interval is centred on the cell's figure.
 */
import { meanInterval } from '#shared/report/confidence';
import type { PrefillResult } from '#shared/session/schema';

/** Sub-windows the window is cut into; the batch length grows with the window. */
export const BATCHES = 10;

/** One reading of the window's tokens so far. */
export interface TokenTick {
  /** Server seconds since the window opened. */
  t: number;
  /** Output tokens counted since the window opened (cumulative). */
  tokens: number;
}

export interface RateInterval {
  /** Total tok/s over the window so far. */
  rate: number;
  /** Half-width of the 95% interval, tok/s. */
  halfWidth: number;
  /** halfWidth / rate (0.008 is ±0.8%); Infinity for a zero rate. */
  relative: number;
  batches: number;
  batchSeconds: number;
}

/** Cumulative tokens at time t, linear between the ticks around it (ticks sorted by time, the first at 0). */
function tokensAt(ticks: readonly TokenTick[], t: number): number {
  let i = 1;
  while (i < ticks.length - 1 && ticks[i].t < t) i++;
  const a = ticks[i - 1];
  const b = ticks[i];
  if (b.t <= a.t) return b.tokens;
  return a.tokens + ((b.tokens - a.tokens) * (t - a.t)) / (b.t - a.t);
}

/** Most lag-1 autocorrelation of the batch rates the correction believes (10 batches estimate it roughly). */
const MAX_BATCH_CORRELATION = 0.8;

/**
 * How much wider the interval is when neighbouring batch rates are still alike (batches not much longer than the
 * rate's own memory): the variance of a mean of AR(1)-correlated values is (1 + r) / (1 - r) times the independent
 * one, r the lag-1 autocorrelation of the batch rates (negative values are taken as 0: never narrower).
 */
export function correlationFactor(rates: readonly number[]): number {
  const n = rates.length;
  if (n < 3) return 1;
  const mean = rates.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    den += (rates[i] - mean) ** 2;
    if (i > 0) num += (rates[i] - mean) * (rates[i - 1] - mean);
  }
  const r = den > 0 ? Math.min(MAX_BATCH_CORRELATION, Math.max(0, num / den)) : 0;
  return Math.sqrt((1 + r) / (1 - r));
}

/**
 * The batch-means 95% interval of the total rate from ticks that start at the window's opening
 * ({t: 0, tokens: 0}); null until there is at least one tick per batch.
 */
export function batchMeansInterval(ticks: readonly TokenTick[], batches = BATCHES): RateInterval | null {
  if (ticks.length < batches + 1 || ticks[0].t !== 0) return null;
  const span = ticks[ticks.length - 1].t;
  if (!(span > 0)) return null;
  const batchSeconds = span / batches;
  const rates: number[] = [];
  let before = 0;
  for (let i = 1; i <= batches; i++) {
    const upTo = i === batches ? ticks[ticks.length - 1].tokens : tokensAt(ticks, i * batchSeconds);
    rates.push((upTo - before) / batchSeconds);
    before = upTo;
  }
  const ci = meanInterval(rates);
  if (!ci || ci.halfWidth === null) return null;
  const rate = ticks[ticks.length - 1].tokens / span;
  const halfWidth = ci.halfWidth * correlationFactor(rates);
  return {
    rate,
    halfWidth,
    // The stopping rule and the stored interval read this: it carries the same widening as halfWidth.
    relative: rate > 0 ? halfWidth / rate : Number.POSITIVE_INFINITY,
    batches,
    batchSeconds,
  };
}

/** Why a window closed: the interval was narrow enough, or the maximum duration came first. */
export type StopReason = 'precision' | 'max-duration';

export interface PrecisionTarget {
  /** The wanted half-width relative to the rate (0.01 for ±1%). */
  relative: number;
  /** The window never closes for precision before this many server seconds. */
  minSeconds: number;
  /** ... and always closes at this many (the run's --duration). */
  maxSeconds: number;
}

/** Whether the window closes now, and why; null while it measures on. */
export function stopDecision(
  elapsed: number,
  interval: RateInterval | null,
  target: PrecisionTarget,
): StopReason | null {
  if (elapsed >= target.maxSeconds) return 'max-duration';
  if (elapsed >= target.minSeconds && interval !== null && interval.relative <= target.relative) return 'precision';
  return null;
}

/** A prefill is measured at most this many times (each a cold prompt under a fresh tag). */
export const PREFILL_MAX_MEASUREMENTS = 3;

export type PrefillPrecision = NonNullable<PrefillResult['precision']>;

/** One cold measurement of a prefill: its prompt tok/s and its time to first token (server seconds). */
export interface PrefillMeasurement {
  tokensPerSecond: number;
  ttftSeconds: number;
}

/**
 * Whether a prefill measured so far is known well enough (docs/adaptive-precision.md, "Prefill"): its 95% interval
 * (Student's t over the measurements) within `relative` of the mean after at least two; else the cap of measurements;
 * else the time cap: the first measurement is the context's scout, which a matrix sends anyway, and the repeats after it
 * may take `repeatSeconds` in all (the run's shortest decode window), reckoning the next one as long as their mean so
 * far. Null: measure again.
 */
export function prefillStop(
  measured: readonly PrefillMeasurement[],
  relative: number,
  repeatSeconds: number,
  maxMeasurements = PREFILL_MAX_MEASUREMENTS,
): PrefillPrecision | null {
  const ci = meanInterval(measured.map((m) => m.tokensPerSecond));
  const halfWidthRelative = ci && ci.halfWidth !== null && ci.mean > 0 ? ci.halfWidth / ci.mean : null;
  const measurements = measured.length;
  if (halfWidthRelative !== null && halfWidthRelative <= relative)
    return { measurements, halfWidthRelative, stopReason: 'precision' };
  if (measurements >= maxMeasurements) return { measurements, halfWidthRelative, stopReason: 'max-measurements' };
  const all = measured.reduce((sum, m) => sum + m.ttftSeconds, 0);
  const repeats = measurements > 0 ? all - measured[0].ttftSeconds : 0;
  if (measurements > 0 && repeats + all / measurements > repeatSeconds)
    return { measurements, halfWidthRelative, stopReason: 'max-duration' };
  return null;
}
