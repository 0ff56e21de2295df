/** The one-sample Kolmogorov-Smirnov test: does a sample look drawn from a distribution? */

/** The largest distance between the sample's empirical CDF and `cdf`. */
export function ksStatistic(sample: readonly number[], cdf: (x: number) => number): number {
  const xs = [...sample].sort((a, b) => a - b);
  const n = xs.length;
  let d = 0;
  xs.forEach((x, i) => {
    const f = cdf(x);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  });
  return d;
}

/** The statistic's critical value at the 5% level (asymptotic, good from about 35 values). */
export const ksCritical5 = (n: number): number => 1.358 / Math.sqrt(n);

/** The exponential CDF of a given rate. */
export const exponentialCdf =
  (rate: number) =>
  (x: number): number =>
    x <= 0 ? 0 : 1 - Math.exp(-rate * x);
