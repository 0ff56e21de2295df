import { describe, expect, it } from 'vitest';
import { differenceOf, meanInterval, tQuantile95 } from '#shared/report/confidence';

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
});
