/**
 * A load run's arrival schedules and length draws: Poisson gaps are exponential (a
 * Kolmogorov-Smirnov test), constant gaps are even, gamma gaps have the coefficient of variation
 * asked for, and every draw repeats with its seed.
 */
import { describe, expect, it } from 'vitest';
import { mean } from '#shared/mean';
import {
  arrivalTimes,
  gapSampler,
  lengthCeiling,
  lengthSampler,
  meanLength,
} from '../../../src-main/engine/bench/load-arrivals';
import { exponentialCdf, ksCritical5, ksStatistic } from '../../helpers/ks';

const draws = (f: () => number, n: number) => Array.from({ length: n }, f);
const cvOf = (xs: number[]) => {
  const m = mean(xs) as number;
  return Math.sqrt((mean(xs.map((x) => (x - m) ** 2)) as number) / (m * m));
};

describe('arrival gaps', () => {
  it('Poisson gaps pass a Kolmogorov-Smirnov test against the exponential at 5%, and fail one at a rate 20% off', () => {
    const gaps = draws(gapSampler({ kind: 'poisson' }, 4, 7), 2000);
    expect(ksStatistic(gaps, exponentialCdf(4))).toBeLessThan(ksCritical5(gaps.length));
    expect(ksStatistic(gaps, exponentialCdf(4.8))).toBeGreaterThan(ksCritical5(gaps.length));
  });

  it('constant gaps are all 1/rate', () => {
    expect(new Set(draws(gapSampler({ kind: 'constant' }, 2.5, 1), 50))).toEqual(new Set([0.4]));
  });

  it.each([0.5, 1, 3])('gamma:%s gaps have that coefficient of variation and the rate’s mean', (cv) => {
    const gaps = draws(gapSampler({ kind: 'gamma', cv }, 2, 11), 20_000);
    expect(mean(gaps)).toBeCloseTo(0.5, 1);
    expect(Math.abs(cvOf(gaps) - cv) / cv).toBeLessThan(0.08);
  });

  it('a schedule starts at 0, stays inside its seconds, and repeats with its seed', () => {
    const a = arrivalTimes({ kind: 'poisson' }, 10, 30, 3);
    expect(a[0]).toBe(0);
    expect(Math.max(...a)).toBeLessThan(30);
    expect(a.length).toBeGreaterThan(240);
    expect(a.length).toBeLessThan(360);
    expect(arrivalTimes({ kind: 'poisson' }, 10, 30, 3)).toEqual(a);
    expect(arrivalTimes({ kind: 'poisson' }, 10, 30, 4)).not.toEqual(a);
    // Its end is outside: constant arrivals at 1 req/s over 3 s are at 0, 1 and 2.
    expect(arrivalTimes({ kind: 'constant' }, 1, 3, 0)).toEqual([0, 1, 2]);
  });
});

describe('length draws', () => {
  it('a uniform range covers both ends and nothing outside', () => {
    const xs = draws(lengthSampler({ kind: 'uniform', min: 10, max: 13 }, 5), 400);
    expect(new Set(xs)).toEqual(new Set([10, 11, 12, 13]));
  });

  it('a normal draw has its mean and spread, whole and at least 1', () => {
    const xs = draws(lengthSampler({ kind: 'normal', mean: 1024, sd: 256 }, 5), 20_000);
    expect(Math.abs((mean(xs) as number) - 1024)).toBeLessThan(10);
    expect(Math.abs(cvOf(xs) * 1024 - 256)).toBeLessThan(10);
    expect(xs.every((x) => Number.isInteger(x) && x >= 1)).toBe(true);
    expect(meanLength({ kind: 'uniform', min: 512, max: 2048 })).toBe(1280);
  });

  it('a fixed length is always that length; each spec’s mean and longest draw', () => {
    expect(new Set(draws(lengthSampler({ kind: 'fixed', tokens: 300 }, 5), 50))).toEqual(new Set([300]));
    expect(meanLength({ kind: 'fixed', tokens: 300 })).toBe(300);
    expect(meanLength({ kind: 'normal', mean: 1024, sd: 256 })).toBe(1024);
    expect(lengthCeiling({ kind: 'fixed', tokens: 300 })).toBe(300);
    expect(lengthCeiling({ kind: 'uniform', min: 512, max: 2048 })).toBe(2048);
    // A normal length is cut 3 sd above its mean, whole, and never below 1.
    expect(lengthCeiling({ kind: 'normal', mean: 1000, sd: 100.1 })).toBe(1301);
    expect(lengthCeiling({ kind: 'normal', mean: -10, sd: 1 })).toBe(1);
  });
});
