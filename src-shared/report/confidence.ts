/**
 * Repeated measurements: the mean of a cell's repetitions with a 95% confidence interval
 * (Student's t), whether they vary too much to trust, and whether two such means differ by
 * more than noise. Pure functions; the method is described in docs/repeats-and-targets.md.
 */
import type { PrefillResult, Repetition } from '../session/schema';
import { STATUS_WORDS } from '../session/status-words';
import { fmtMs, fmtPercent, fmtSeconds, fmtTokPerSec, fmtTokPerSecInterval, fmtTokPerSecWithin } from './format';
import { mean } from '../mean';

/** Two-sided 95% Student's t quantiles (t at 0.975) for 1..30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];
const Z975 = 1.959964;

/** A cell whose repetitions have a coefficient of variation above this is marked unstable. */
export const UNSTABLE_CV = 0.05;

/** The t quantile for a 95% two-sided interval; fractional df (Welch) round down, the safe side. */
export function tQuantile95(df: number): number {
  if (!(df >= 1)) return Number.NaN;
  const whole = Math.floor(df);
  if (whole <= T975.length) return T975[whole - 1];
  // Cornish-Fisher expansion around the normal quantile: within 0.001 of the table from df 30 on.
  const z = Z975;
  return z + (z ** 3 + z) / (4 * whole) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * whole ** 2);
}

export interface MeanInterval {
  n: number;
  mean: number;
  /** Sample standard deviation (n - 1); 0 for a single value. */
  sd: number;
  /** Half-width of the 95% interval; null with fewer than two values. */
  halfWidth: number | null;
  low: number | null;
  high: number | null;
  /** sd / mean; null with fewer than two values or a zero mean. */
  cv: number | null;
  unstable: boolean;
}

/** Mean and 95% confidence interval of repeated measurements of one figure. */
export function meanInterval(values: readonly number[]): MeanInterval | null {
  const xs = values.filter((v) => Number.isFinite(v));
  const n = xs.length;
  const avg = mean(xs);
  if (avg === null) return null;
  if (n === 1) return { n, mean: avg, sd: 0, halfWidth: null, low: null, high: null, cv: null, unstable: false };
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - avg) ** 2, 0) / (n - 1));
  const halfWidth = (tQuantile95(n - 1) * sd) / Math.sqrt(n);
  const cv = avg === 0 ? null : sd / Math.abs(avg);
  return {
    n,
    mean: avg,
    sd,
    halfWidth,
    low: avg - halfWidth,
    high: avg + halfWidth,
    cv,
    unstable: cv !== null && cv > UNSTABLE_CV,
  };
}

interface Difference {
  /** (B − A) / A, as a fraction. */
  change: number;
  /** 95% interval of the change, as fractions of A; null when either side has one value. */
  low: number | null;
  high: number | null;
  /** True when the interval excludes zero. */
  significant: boolean;
}

/**
 * B against A (Welch's t, unequal variances). The interval is that of (mean B − mean A),
 * divided by mean A, so it reads as "B is 3.1% faster, 95% CI 1.2–5.0%".
 */
export function differenceOf(a: readonly number[], b: readonly number[]): Difference | null {
  const ia = meanInterval(a);
  const ib = meanInterval(b);
  if (!ia || !ib || ia.mean === 0) return null;
  const change = (ib.mean - ia.mean) / ia.mean;
  if (ia.n < 2 || ib.n < 2) return { change, low: null, high: null, significant: false };
  const va = ia.sd ** 2 / ia.n;
  const vb = ib.sd ** 2 / ib.n;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { change, low: change, high: change, significant: change !== 0 };
  const df = (va + vb) ** 2 / (va ** 2 / (ia.n - 1) + vb ** 2 / (ib.n - 1));
  const half = (tQuantile95(df) * se) / ia.mean;
  const low = change - half;
  const high = change + half;
  return { change, low, high, significant: low > 0 || high < 0 };
}

/** The word beside a figure whose repetitions vary by more than UNSTABLE_CV. */
const UNSTABLE_WORD = 'unstable';

/** The legend line of a session with repeated cells. */
export const REPEAT_LEGEND = `± is the 95% confidence interval of the mean over a cell's repetitions (Student's t); "${UNSTABLE_WORD}": its repetitions vary by more than ${UNSTABLE_CV * 100}% (coefficient of variation).`;

/** What a repeated cell keeps of each repetition (the session's DecodeCell has it). */
interface Repeated {
  totalTokensPerSecond: number | null;
  repetitions?: ReadonlyArray<{ totalTokensPerSecond: number | null }>;
  /** How long the window measured and, for an adaptive one, how it closed. */
  windowSeconds?: number | null;
  precision?: {
    stopReason: 'precision' | 'max-duration';
    halfWidthRelative: number | null;
    clientDelayShare?: number;
  } | null;
}

/** The legend line of a session with adaptive windows (docs/adaptive-precision.md). */
export const PRECISION_LEGEND =
  '±x%, y s: the 95% interval of the cell\'s total tok/s within its own window (batch means) and how long it measured; "(max)": the window reached its longest length before that precision.';

/** How an adaptive window closed, for progress lines: "stopped early at ±0.8% after 7.5 s"; null for a fixed window. */
export function fmtStopNote(cell: Repeated): string | null {
  const p = cell.precision;
  if (!p) return null;
  const within = p.halfWidthRelative === null ? 'an unknown interval' : `±${(p.halfWidthRelative * 100).toFixed(1)}%`;
  if (p.stopReason === 'precision') return `stopped early at ${within} after ${fmtSeconds(cell.windowSeconds)}`;
  const client =
    p.clientDelayShare === undefined
      ? ''
      : `: the client's own delay (${(p.clientDelayShare * 100).toFixed(1)}% of a batch), not the server, kept it there`;
  return `reached the ${fmtSeconds(cell.windowSeconds)} maximum at ${within}, short of the precision${client}`;
}

/** Each repetition's total throughput, where it has one. */
export function repetitionTotals(cell: Repeated): number[] {
  return (cell.repetitions ?? []).flatMap((r) => (r.totalTokensPerSecond === null ? [] : [r.totalTokensPerSecond]));
}

/** The 95% interval of a cell's total throughput over its repetitions; null with fewer than two. */
export function throughputInterval(cell: Repeated): MeanInterval | null {
  const totals = repetitionTotals(cell);
  return totals.length >= 2 ? meanInterval(totals) : null;
}

/**
 * A cell's total throughput as shown everywhere: "4,786.2 ± 21.3", "4,786.2 ± 310.4 unstable" over repetitions,
 * "4,786.2 ±0.8%, 7.5 s" for one adaptive window, or "4,786.2".
 */
export function fmtCellThroughput(cell: Repeated): string {
  const ci = throughputInterval(cell);
  if (!ci && cell.precision)
    return fmtTokPerSecWithin(
      cell.totalTokensPerSecond,
      cell.precision.halfWidthRelative,
      cell.windowSeconds,
      cell.precision.stopReason === 'max-duration',
    );
  if (!ci) return fmtTokPerSec(cell.totalTokensPerSecond);
  const text = fmtTokPerSecInterval(ci.mean, ci.halfWidth);
  return ci.unstable ? `${text} ${UNSTABLE_WORD}` : text;
}

/**
 * How a prefill was measured with --precision (docs/adaptive-precision.md, "Prefill"): the interval over its cold
 * measurements and how many, "±0.9%, 3 prompts"; "1 prompt (time cap)" when the next would have run past the longest
 * window, "(max)" at the cap of measurements. Null for one plain measurement.
 */
export function fmtPrefillPrecision(p: Pick<PrefillResult, 'precision'>): string | null {
  const m = p.precision;
  if (!m) return null;
  const within = m.halfWidthRelative === null ? '' : `±${(m.halfWidthRelative * 100).toFixed(1)}%, `;
  const cap = m.stopReason === 'max-duration' ? ' (time cap)' : m.stopReason === 'max-measurements' ? ' (max)' : '';
  return `${within}${m.measurements} prompt${m.measurements === 1 ? '' : 's'}${cap}`;
}

/** A prefill's prompt tok/s as shown in tables: "25,312.4", or with --precision "25,312.4 ±0.9%, 3 prompts" or "9,012.0, 1 prompt (time cap)". */
export function fmtPrefillThroughput(p: Pick<PrefillResult, 'tokensPerSecond' | 'precision'>): string {
  const how = fmtPrefillPrecision(p);
  if (!how) return fmtTokPerSec(p.tokensPerSecond);
  return `${fmtTokPerSec(p.tokensPerSecond)}${how.startsWith('±') ? ' ' : ', '}${how}`;
}

const pct = (f: number): string => `${(Math.abs(f) * 100).toFixed(1)}%`;

/** "B is 3.1% faster, 95% CI 1.2–5.0%", "B is 2.0% slower, 95% CI …", or "no significant difference"; null without an interval. */
export function fmtDifference(d: Difference | null, name = 'B'): string | null {
  if (!d || d.low === null || d.high === null) return null;
  if (!d.significant) return 'no significant difference';
  const faster = d.change > 0;
  const [lo, hi] = faster ? [d.low, d.high] : [-d.high, -d.low];
  return `${name} is ${pct(d.change)} ${faster ? 'faster' : 'slower'}, 95% CI ${(lo * 100).toFixed(1)}–${(hi * 100).toFixed(1)}%`;
}

/** What a repeated cell shows of its repetitions: how many, the interval in words, each one's figures. */
export interface RepetitionSummary {
  count: number;
  /** "4,786.2 ± 21.3 tok/s: the 95% confidence interval of the mean of 3 repetitions (4,764.9 to 4,807.5)". */
  interval: string;
  header: string[];
  rows: string[][];
}

interface RepeatedCell {
  totalTokensPerSecond: number | null;
  repetitions?: ReadonlyArray<Repetition>;
}

/** A cell's repetitions explained (the app's cell detail); null for a cell measured once. */
export function repetitionSummary(cell: RepeatedCell): RepetitionSummary | null {
  const reps = cell.repetitions ?? [];
  if (reps.length < 2) return null;
  const ci = throughputInterval(cell);
  const of = `${reps.length} repetitions`;
  const interval =
    ci && ci.halfWidth !== null && ci.low !== null && ci.high !== null
      ? `${fmtTokPerSecInterval(ci.mean, ci.halfWidth)} tok/s: the 95% confidence interval of the mean of ${of} (${fmtTokPerSec(ci.low)} to ${fmtTokPerSec(ci.high)})${ci.unstable ? `; ${UNSTABLE_WORD}: they vary by ${fmtPercent(ci.cv)}` : ''}`
      : `no interval: fewer than two of the ${of} have a figure`;
  return {
    count: reps.length,
    interval,
    header: ['Repetition', 'Status', 'Total tok/s', 'Per request tok/s', 'TTFT', 'Measured for'],
    rows: reps.map((r) => [
      String(r.repetition),
      STATUS_WORDS[r.status],
      fmtTokPerSec(r.totalTokensPerSecond),
      fmtTokPerSec(r.perRequestTokensPerSecond),
      fmtMs(r.ttft?.p50),
      fmtSeconds(r.windowSeconds),
    ]),
  };
}
