/**
 * The pure rules of `npm run bench:coverage` (docs/adaptive-precision.md, "Coverage"): the simulator's served rate
 * from two readings of its own counters, and whether a cell's stated interval holds it.
 */
import type { DecodeCell } from '#shared/session/schema';

/** One reading of the simulator's /metrics: generated tokens so far, and simulated seconds it gave up (lag). */
export interface CounterReading {
  /** Wall milliseconds at which the page was read (the midpoint of request and answer). */
  atMs: number;
  generationTokens: number;
  lagSeconds: number;
}

/**
 * Tokens the simulator generated per simulated second between two readings: the wall time between them times the
 * clock's speed-up, less the simulated seconds it gave up meanwhile (its clock did not run for those).
 */
export function servedRate(a: CounterReading, b: CounterReading, speed: number): number | null {
  const simulated = ((b.atMs - a.atMs) / 1000) * speed - (b.lagSeconds - a.lagSeconds);
  if (!(simulated > 0)) return null;
  return (b.generationTokens - a.generationTokens) / simulated;
}

/**
 * The served rate over the first `seconds` simulated seconds of a series of readings (the first reading at the
 * window's opening): up to the first reading at least that far on, or the last one; null with fewer than two.
 */
export function servedRateOver(series: readonly CounterReading[], seconds: number, speed: number): number | null {
  if (series.length < 2) return null;
  const first = series[0];
  const upTo =
    series.find((r, i) => i > 0 && ((r.atMs - first.atMs) / 1000) * speed >= seconds) ?? series[series.length - 1];
  return servedRate(first, upTo, speed);
}

export interface CoverageRow {
  key: string;
  estimate: number;
  /** The stated 95% half-width, tok/s. */
  halfWidth: number;
  reference: number;
  held: boolean;
}

/** A cell with a figure and a stated interval, judged against the reference rate of its context and concurrency. */
export function coverageRow(cell: DecodeCell, reference: number | undefined): CoverageRow | null {
  const estimate = cell.totalTokensPerSecond;
  const relative = cell.precision?.halfWidthRelative;
  if (estimate == null || relative == null || reference === undefined) return null;
  const halfWidth = relative * estimate;
  return {
    key: `${cell.context}x${cell.concurrency}`,
    estimate,
    halfWidth,
    reference,
    held: Math.abs(reference - estimate) <= halfWidth,
  };
}

/** The share of rows whose interval held the reference; null without rows. */
export function coverage(rows: readonly CoverageRow[]): number | null {
  return rows.length ? rows.filter((r) => r.held).length / rows.length : null;
}
