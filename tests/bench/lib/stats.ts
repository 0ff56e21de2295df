/** Median, quantiles and spread over repeats. */
export function quantile(xs: readonly number[], q: number): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(xs: readonly number[]): Spread {
  const f = xs.filter((x) => Number.isFinite(x));
  return {
    median: median(f),
    min: f.length ? Math.min(...f) : Number.NaN,
    max: f.length ? Math.max(...f) : Number.NaN,
    n: f.length,
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
