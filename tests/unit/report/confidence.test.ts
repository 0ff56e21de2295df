import { describe, expect, it } from 'vitest';
import {
  REPEAT_LEGEND,
  differenceOf,
  fmtCellThroughput,
  fmtDifference,
  meanInterval,
  repetitionTotals,
  tQuantile95,
  throughputInterval,
} from '#shared/report/confidence';

describe('confidence intervals of repeated measurements', () => {
  it('uses Student t quantiles: the table for small samples, a close expansion beyond', () => {
    expect(tQuantile95(1)).toBeCloseTo(12.706, 3);
    expect(tQuantile95(2)).toBeCloseTo(4.303, 3);
    expect(tQuantile95(30)).toBeCloseTo(2.042, 3);
    expect(tQuantile95(60)).toBeCloseTo(2.0003, 2);
    expect(tQuantile95(120)).toBeCloseTo(1.9799, 3);
    expect(tQuantile95(2.7)).toBe(tQuantile95(2));
  });

  it('gives mean ± half-width from the sample standard deviation', () => {
    const iv = meanInterval([4786, 4770, 4800])!;
    expect(iv.mean).toBeCloseTo(4785.33, 2);
    expect(iv.sd).toBeCloseTo(15.011, 3);
    // 4.303 × 15.011 / √3
    expect(iv.halfWidth).toBeCloseTo(37.29, 1);
    expect(iv.low! < iv.mean && iv.mean < iv.high!).toBe(true);
    expect(iv.unstable).toBe(false);
  });

  it('unstable from just above 5% coefficient of variation; exactly 5% is not', () => {
    // Mean 100, sample standard deviation 5 (n = 2: sd = |a - b| / √2).
    const spread = (sd: number) => [100 - sd / Math.SQRT2, 100 + sd / Math.SQRT2];
    expect(meanInterval(spread(5))!.cv).toBeCloseTo(0.05, 12);
    expect(meanInterval(spread(4.99))!.unstable).toBe(false);
    expect(meanInterval(spread(5.01))!.unstable).toBe(true);
    expect(meanInterval([95, 100, 105])!).toMatchObject({ cv: 0.05, unstable: false });
  });

  it('marks repetitions that vary by more than 5% as unstable', () => {
    expect(meanInterval([100, 112, 90])!.unstable).toBe(true);
    expect(meanInterval([100, 101, 99])!.unstable).toBe(false);
  });

  it('has no interval for a single value and nothing for no values', () => {
    const one = meanInterval([141.4])!;
    expect(one).toMatchObject({ n: 1, mean: 141.4, halfWidth: null, cv: null, unstable: false });
    expect(meanInterval([])).toBeNull();
  });

  it('calls a difference significant only when its interval excludes zero', () => {
    const a = [1000, 1004, 996, 1002];
    const faster = differenceOf(a, [1031, 1029, 1033, 1030])!;
    expect(faster.change).toBeCloseTo(0.0305, 3);
    expect(faster.significant).toBe(true);
    expect(faster.low! > 0).toBe(true);
    const noisy = differenceOf(a, [1040, 960, 1010, 990])!;
    expect(noisy.significant).toBe(false);
    expect(noisy.low! < 0 && noisy.high! > 0).toBe(true);
  });

  it('never claims significance from single measurements', () => {
    const d = differenceOf([100], [150])!;
    expect(d.change).toBeCloseTo(0.5, 6);
    expect(d).toMatchObject({ low: null, high: null, significant: false });
  });

  it('has no t quantile below one degree of freedom, and the table ends at 30', () => {
    expect(tQuantile95(0)).toBeNaN();
    expect(tQuantile95(0.5)).toBeNaN();
    expect(tQuantile95(Number.NaN)).toBeNaN();
    // 31 degrees of freedom come from the expansion, between the table's last entry and z.
    expect(tQuantile95(31)).toBeCloseTo(2.04, 2);
    expect(tQuantile95(31)).toBeLessThan(2.042);
    expect(tQuantile95(31)).toBeGreaterThan(1.96);
  });

  it('ignores values that are not finite numbers', () => {
    const iv = meanInterval([100, Number.NaN, 102, Number.POSITIVE_INFINITY])!;
    expect(iv).toMatchObject({ n: 2, mean: 101 });
    expect(meanInterval([Number.NaN])).toBeNull();
  });

  it('gives the interval as mean minus and plus the half-width', () => {
    // n = 2, sd = √2, t(1) = 12.706: half-width 12.706 × √2 / √2.
    const iv = meanInterval([10, 12])!;
    expect(iv.sd).toBeCloseTo(Math.SQRT2, 12);
    expect(iv.halfWidth).toBeCloseTo(12.706, 9);
    expect(iv.low).toBeCloseTo(11 - 12.706, 9);
    expect(iv.high).toBeCloseTo(11 + 12.706, 9);
    expect(iv.cv).toBeCloseTo(Math.SQRT2 / 11, 12);
  });

  it('has no coefficient of variation around a zero mean, and measures it against the size of a negative one', () => {
    expect(meanInterval([-1, 1])).toMatchObject({ mean: 0, cv: null, unstable: false });
    const negative = meanInterval([-100, -110])!;
    expect(negative.cv).toBeGreaterThan(0);
    expect(negative.unstable).toBe(true);
  });

  it('reads a difference as a fraction of A, its Welch interval centred on the change', () => {
    const a = [1000, 1004, 996, 1002];
    const b = [1031, 1029, 1033, 1030];
    const d = differenceOf(a, b)!;
    // Welch: se² = sA²/nA + sB²/nB, df from Welch–Satterthwaite; the half-width is t(df) × se / mean A.
    const ia = meanInterval(a)!;
    const ib = meanInterval(b)!;
    const va = ia.sd ** 2 / 4;
    const vb = ib.sd ** 2 / 4;
    const df = (va + vb) ** 2 / (va ** 2 / 3 + vb ** 2 / 3);
    const half = (tQuantile95(df) * Math.sqrt(va + vb)) / ia.mean;
    expect(d.change).toBeCloseTo((ib.mean - ia.mean) / ia.mean, 12);
    expect(d.low).toBeCloseTo(d.change - half, 12);
    expect(d.high).toBeCloseTo(d.change + half, 12);
  });

  it('calls a slowdown significant when its whole interval is below zero', () => {
    const slower = differenceOf([1031, 1029, 1033, 1030], [1000, 1004, 996, 1002])!;
    expect(slower.change).toBeLessThan(0);
    expect(slower.high!).toBeLessThan(0);
    expect(slower.significant).toBe(true);
  });

  it('with no spread on either side, any change is significant and no change is not', () => {
    expect(differenceOf([100, 100], [110, 110])).toEqual({ change: 0.1, low: 0.1, high: 0.1, significant: true });
    expect(differenceOf([100, 100], [100, 100])).toEqual({ change: 0, low: 0, high: 0, significant: false });
  });

  it('has no difference against a zero or missing A', () => {
    expect(differenceOf([0, 0], [10, 11])).toBeNull();
    expect(differenceOf([], [10, 11])).toBeNull();
    expect(differenceOf([10, 11], [])).toBeNull();
    expect(differenceOf([10, 11], [12])).toMatchObject({ low: null, high: null, significant: false });
  });
});

describe('repeated cells as shown', () => {
  const cell = (total: number | null, reps?: Array<number | null>) => ({
    totalTokensPerSecond: total,
    repetitions: reps?.map((r) => ({ totalTokensPerSecond: r })),
  });

  it('takes each repetition that has a figure', () => {
    expect(repetitionTotals(cell(5, [4, null, 6]))).toEqual([4, 6]);
    expect(repetitionTotals(cell(5))).toEqual([]);
  });

  it('has an interval only with two or more repetitions with figures', () => {
    expect(throughputInterval(cell(5, [5, null]))).toBeNull();
    expect(throughputInterval(cell(5))).toBeNull();
    expect(throughputInterval(cell(5, [4, 6]))).toMatchObject({ n: 2, mean: 5 });
  });

  it('shows the mean ± half-width, "unstable" beside it above 5% variation, the plain figure otherwise', () => {
    expect(fmtCellThroughput(cell(4786.2))).toBe('4,786.2');
    expect(fmtCellThroughput(cell(4786.2, [4786.2]))).toBe('4,786.2');
    const steady = fmtCellThroughput(cell(1000, [1000, 1001, 999]));
    expect(steady).toMatch(/^1,000\.0 ± [\d.]+$/);
    expect(fmtCellThroughput(cell(1000, [900, 1100]))).toMatch(/^1,000\.0 ± [\d,.]+ unstable$/);
  });

  it('names the unstable word and its 5% threshold in the legend', () => {
    expect(REPEAT_LEGEND).toContain('"unstable"');
    expect(REPEAT_LEGEND).toContain('5%');
  });

  it('states a significant difference with its direction and interval, and otherwise says there is none', () => {
    expect(fmtDifference({ change: 0.031, low: 0.012, high: 0.05, significant: true })).toBe(
      'B is 3.1% faster, 95% CI 1.2–5.0%',
    );
    expect(fmtDifference({ change: -0.02, low: -0.03, high: -0.01, significant: true }, 'run 2')).toBe(
      'run 2 is 2.0% slower, 95% CI 1.0–3.0%',
    );
    expect(fmtDifference({ change: 0.01, low: -0.01, high: 0.03, significant: false })).toBe(
      'no significant difference',
    );
    expect(fmtDifference({ change: 0.5, low: null, high: null, significant: false })).toBeNull();
    expect(fmtDifference({ change: 0.5, low: 0.1, high: null, significant: false })).toBeNull();
    expect(fmtDifference({ change: 0.5, low: null, high: 0.9, significant: false })).toBeNull();
    expect(fmtDifference(null)).toBeNull();
  });
});
