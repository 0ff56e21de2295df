/** Distribution summaries of latencies (seconds). */
import type { LatencyStats } from '#shared/session/schema';
import { mean } from '#shared/mean';

/** Percentile with linear interpolation between closest ranks (numpy's default). `sorted` ascending. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** p50, p90, p95, p99, mean and how many values; null when there are none. Negative noise is clamped to 0. */
export function latencyStats(values: readonly number[]): LatencyStats | null {
  const xs = values
    .filter((v) => Number.isFinite(v))
    .map((v) => Math.max(0, v))
    .sort((a, b) => a - b);
  const avg = mean(xs);
  if (avg === null) return null;
  return {
    p50: percentile(xs, 0.5),
    p90: percentile(xs, 0.9),
    p95: percentile(xs, 0.95),
    p99: percentile(xs, 0.99),
    mean: avg,
    count: xs.length,
  };
}
