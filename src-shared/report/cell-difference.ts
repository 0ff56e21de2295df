/**
 * The one rule that says whether two measurements of a cell differ: used by the comparison's
 * ratios and deltas, "Cells won" and "best variant" of a sweep, the one-line verdicts, and the
 * CLI's regression gate. With repeats on both sides, Welch's test at 95%; otherwise a tie band
 * from the measurement's own noise. docs/repeats-and-targets.md ("Same or different") says how.
 */
import type { DecodeCell, PrefillResult } from '../session/schema';
import { UNSTABLE_CV, differenceOf, fmtDifference, repetitionTotals, throughputInterval } from './confidence';

export type Verdict = 'faster' | 'slower' | 'same';

export interface CellDifference {
  /** B / A of total tok/s. */
  ratio: number;
  /** B / A − 1, as a fraction. */
  change: number;
  verdict: Verdict;
  /** How it was decided: Welch's test over repetitions, or the single window's tie band. */
  method: 'welch' | 'band';
  /** The tie band's half-width as a fraction of A (band), or null (welch). */
  band: number | null;
  /** Welch's 95% interval of the change, as fractions of A; null for the band. */
  low: number | null;
  high: number | null;
}

/** Slices of the window for the batch-means estimate of a single window's noise. */
const SLICES = 6;
/** z at 97.5%: the band is the 95% interval of the difference of two windows' means. */
const Z975 = 1.96;
/**
 * The narrowest band: the most two measurements of one cell may vary and still be called stable
 * (the coefficient of variation above which repeats are "unstable"). One window says nothing
 * finer than that about the next; differences this small need --repeat.
 */
export const BAND_FLOOR = UNSTABLE_CV;

type Figures = Pick<DecodeCell, 'totalTokensPerSecond' | 'requests' | 'windowSeconds' | 'repetitions'>;

/** Each request's window tokens spread evenly over the part of its stream inside the window, per slice. */
function sliceTokens(requests: NonNullable<DecodeCell['requests']>, window: number): number[] {
  const slice = window / SLICES;
  const tokens = new Array<number>(SLICES).fill(0);
  requests.windowTokens.forEach((n, i) => {
    const first = requests.firstTokenAt[i];
    if (!n || first === null) return;
    const start = Math.max(0, first);
    const end = Math.min(window, requests.lastTokenAt[i] ?? window);
    if (end <= start) {
      tokens[Math.min(SLICES - 1, Math.floor(start / slice))] += n;
      return;
    }
    for (let k = 0; k < SLICES; k++) {
      const overlap = Math.min(end, (k + 1) * slice) - Math.max(start, k * slice);
      if (overlap > 0) tokens[k] += (n * overlap) / (end - start);
    }
  });
  return tokens;
}

/**
 * The relative standard error of a cell's total tok/s from its own window: the window cut into
 * six slices, the spread of their rates over √6 (batch means). With repetitions, the standard
 * error of their mean. Null when the cell keeps neither (an imported report).
 */
export function relativeNoise(cell: Figures): number | null {
  const ci = throughputInterval(cell);
  if (ci) return ci.mean ? ci.sd / ci.mean / Math.sqrt(ci.n) : null;
  const window = cell.windowSeconds;
  if (!cell.requests || !window || cell.requests.windowTokens.length === 0) return null;
  const rates = sliceTokens(cell.requests, window);
  const mean = rates.reduce((a, b) => a + b, 0) / SLICES;
  if (mean <= 0) return null;
  const sd = Math.sqrt(rates.reduce((a, b) => a + (b - mean) ** 2, 0) / (SLICES - 1));
  return sd / mean / Math.sqrt(SLICES);
}

/** The tie band of a pair of cells: the 95% interval of their difference, never narrower than BAND_FLOOR. */
export function tieBand(a: Figures, b: Figures): number {
  const ea = relativeNoise(a) ?? 0;
  const eb = relativeNoise(b) ?? 0;
  return Math.max(BAND_FLOOR, Z975 * Math.sqrt(ea ** 2 + eb ** 2));
}

/** B against A by the one rule; null when either has no total tok/s (or A's is zero). */
export function cellDifference(a: Figures, b: Figures): CellDifference | null {
  const ta = a.totalTokensPerSecond;
  const tb = b.totalTokensPerSecond;
  if (ta === null || tb === null || ta <= 0) return null;
  const ratio = tb / ta;
  // (B − A) / A, not ratio − 1: a change of exactly the band (105 against 100) is exactly 0.05, so the band's edge counts as the same.
  const change = (tb - ta) / ta;
  const ra = repetitionTotals(a);
  const rb = repetitionTotals(b);
  if (ra.length >= 2 && rb.length >= 2) {
    const d = differenceOf(ra, rb);
    if (d) {
      const verdict: Verdict = !d.significant ? 'same' : d.change > 0 ? 'faster' : 'slower';
      return { ratio, change, verdict, method: 'welch', band: null, low: d.low, high: d.high };
    }
  }
  const band = tieBand(a, b);
  const verdict: Verdict = Math.abs(change) <= band ? 'same' : change > 0 ? 'faster' : 'slower';
  return { ratio, change, verdict, method: 'band', band, low: null, high: null };
}

type PrefillFigures = Pick<PrefillResult, 'tokensPerSecond' | 'ttftSeconds' | 'precision' | 'clientDelay'>;

/** A prefill's 95% half-width over its --precision measurements, as a fraction; 0 for one measurement. */
const prefillHalfWidth = (p: PrefillFigures): number =>
  (p.precision?.measurements ?? 1) >= 2 ? (p.precision?.halfWidthRelative ?? 0) : 0;

/** The share of its TTFT the client's own machine delayed a prefill by: it may read that much low. */
const prefillDelayShare = (p: PrefillFigures): number =>
  p.clientDelay && p.ttftSeconds ? p.clientDelay.seconds / p.ttftSeconds : 0;

/**
 * The tie band of two prefills of one context (docs/repeats-and-targets.md, "Same or different"): the
 * 95% interval of their difference from their --precision intervals, never narrower than BAND_FLOOR
 * (one cold measurement says nothing finer), widened by the share of each TTFT the client's own
 * machine delayed (a bound on how low it may read, not a random error, so added whole).
 */
export function prefillBand(a: PrefillFigures, b: PrefillFigures): number {
  const interval = Math.sqrt(prefillHalfWidth(a) ** 2 + prefillHalfWidth(b) ** 2);
  return Math.max(BAND_FLOOR, interval) + prefillDelayShare(a) + prefillDelayShare(b);
}

/** B's prefill against A's by the band; null when either has no prompt tok/s (or A's is zero). */
export function prefillDifference(a: PrefillFigures, b: PrefillFigures): CellDifference | null {
  const ta = a.tokensPerSecond;
  const tb = b.tokensPerSecond;
  if (ta === null || tb === null || ta <= 0) return null;
  const change = (tb - ta) / ta;
  const band = prefillBand(a, b);
  const verdict: Verdict = Math.abs(change) <= band ? 'same' : change > 0 ? 'faster' : 'slower';
  return { ratio: tb / ta, change, verdict, method: 'band', band, low: null, high: null };
}

const pct = (f: number): string => `${(Math.abs(f) * 100).toFixed(1)}%`;

/** "+3.1%", "−3.0%" (a change that rounds to zero is "+0.0%"). */
export function fmtChange(c: number | null): string {
  if (c === null) return '—';
  const p = pct(c);
  return `${c >= 0 || Number(p.slice(0, -1)) === 0 ? '+' : '−'}${p}`;
}

/**
 * The difference in words, as the deltas table shows it: "B is 3.1% faster, 95% CI 1.2–5.0%" or
 * "no significant difference" (Welch, as before); "+230.1%" or "+1.2%, the same within ±5.0%" (band).
 */
export function fmtCellDifference(d: CellDifference, name: string): string {
  if (d.method === 'welch')
    return fmtDifference({ change: d.change, low: d.low, high: d.high, significant: d.verdict !== 'same' }, name) ?? '';
  if (d.verdict === 'same') return `${fmtChange(d.change)}, the same within ±${pct(d.band ?? 0)}`;
  return fmtChange(d.change);
}
