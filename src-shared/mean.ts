/** The arithmetic mean, defined once for the engine, the telemetry summary and the reports. */

/** The mean of the finite numbers among `values` (nulls left out); null when there are none. */
export function mean(values: Iterable<number | null>): number | null {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    sum += v;
    n++;
  }
  return n === 0 ? null : sum / n;
}
