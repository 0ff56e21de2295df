/**
 * The one value scale of every chart, in the app and in the reports: it starts at zero and
 * ends at a round number, with round ticks, so two figures that differ by 7 % look 7 % apart
 * (docs/architecture.md, "Charts"). Pure, no Node imports.
 */

interface ZeroScale {
  /** The top of the axis: a round number at or above the largest value (1 when there is none). */
  max: number;
  step: number;
  /** 0, step, 2·step, … max. */
  ticks: number[];
}

/** A round step (1, 2, 2.5 or 5 × 10^n) giving at most `intervals` intervals up to `max`. */
function niceStep(max: number, intervals = 4): number {
  const raw = max > 0 ? max / intervals : 0.25;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** Zero to a round maximum covering `maxValue`, with about four round ticks. */
export function zeroScale(maxValue: number, intervals = 4): ZeroScale {
  const top = Number.isFinite(maxValue) && maxValue > 0 ? maxValue : 1;
  const step = niceStep(top, intervals);
  const n = Math.max(1, Math.ceil(top / step - 1e-9));
  // Rounded to the step's precision so 0.1 + 0.2 does not print as 0.30000000000000004.
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  const ticks = Array.from({ length: n + 1 }, (_, i) => Number((i * step).toFixed(digits)));
  return { max: ticks[n], step, ticks };
}

/**
 * A time axis that may start before zero (a cell's requests are sent before its window opens):
 * from a round tick at or below `min` to one at or above `max`, zero among the ticks when inside.
 */
export function timeScale(min: number, max: number, intervals = 6): { min: number; max: number; ticks: number[] } {
  const lo = Number.isFinite(min) ? min : 0;
  const hi = Number.isFinite(max) && max > lo ? max : lo + 1;
  const step = niceStep(hi - lo, intervals);
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  const ticks = Array.from({ length: last - first + 1 }, (_, i) => Number(((first + i) * step).toFixed(digits)));
  return { min: ticks[0], max: ticks[ticks.length - 1], ticks };
}

/** Axis tick text: "0", "500", "2.5K", "10K", "7.5". */
export function fmtTick(v: number): string {
  const trim = (x: number) => String(Math.round(x * 100) / 100);
  return Math.abs(v) >= 1000 ? `${trim(v / 1000)}K` : trim(v);
}

/** One colour per series in overlaid charts (the sessions of a comparison), in order; the reports and the app. */
export const SERIES_COLORS = ['#2f6fb3', '#d1603d', '#3a9a5b', '#8e5ac8', '#c49a1a', '#2b9fae'];
