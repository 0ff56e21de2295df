import { describe, expect, it } from 'vitest';
import { coverage, coverageRow, servedRate, servedRateOver } from '../../bench/lib/coverage';
import { unmeasuredCell } from '../../../src-main/engine/bench/cells';
import type { DecodeCell } from '#shared/session/schema';

const reading = (atMs: number, generationTokens: number, lagSeconds = 0) => ({ atMs, generationTokens, lagSeconds });

function measured(total: number | null, halfWidthRelative: number | null): DecodeCell {
  return {
    ...unmeasuredCell(8192, 16, 'valid', null),
    totalTokensPerSecond: total,
    precision: { stopReason: 'precision', targetRelative: 0.01, halfWidthRelative, batches: 10, batchSeconds: 0.5 },
  };
}

describe('the simulator’s served rate from its own counters', () => {
  it('is tokens over simulated seconds: wall time times the speed-up', () => {
    // 2 wall seconds at 10x are 20 simulated seconds; 20,000 tokens in them.
    expect(servedRate(reading(1_000, 5_000), reading(3_000, 25_000), 10)).toBeCloseTo(1_000, 9);
  });

  it('leaves out the simulated seconds the simulator gave up (its clock did not run)', () => {
    expect(servedRate(reading(0, 0, 1), reading(2_000, 18_000, 3), 10)).toBeCloseTo(1_000, 9);
  });

  it('has none over no simulated time', () => {
    expect(servedRate(reading(0, 0), reading(0, 10), 10)).toBeNull();
    expect(servedRate(reading(0, 0, 0), reading(1_000, 10, 10), 10)).toBeNull();
  });
});

describe('the served rate over the first seconds of a reference window', () => {
  // Readings a simulated second apart at 10x: 100 tok/s for 3 s, then 50 tok/s.
  const series = [0, 100, 200, 300, 350, 400].map((tokens, i) => reading(i * 100, tokens));

  it('runs to the first reading at least that far on', () => {
    expect(servedRateOver(series, 3, 10)).toBeCloseTo(100, 9);
    expect(servedRateOver(series, 2.5, 10)).toBeCloseTo(100, 9);
    expect(servedRateOver(series, 5, 10)).toBeCloseTo(80, 9);
  });

  it('takes the whole series when the span is longer, and has none without two readings', () => {
    expect(servedRateOver(series, 60, 10)).toBeCloseTo(80, 9);
    expect(servedRateOver(series.slice(0, 1), 1, 10)).toBeNull();
  });
});

describe('whether a stated interval holds the reference', () => {
  it('holds a reference inside ±halfWidth of the estimate, edges included, and misses one outside', () => {
    expect(coverageRow(measured(1_000, 0.01), 1_010)!.held).toBe(true);
    expect(coverageRow(measured(1_000, 0.01), 990)!.held).toBe(true);
    expect(coverageRow(measured(1_000, 0.01), 1_010.5)!.held).toBe(false);
    expect(coverageRow(measured(1_000, 0.01), 989)!.held).toBe(false);
  });

  it('judges only cells with a figure, a stated interval and a reference', () => {
    expect(coverageRow(measured(null, 0.01), 1_000)).toBeNull();
    expect(coverageRow(measured(1_000, null), 1_000)).toBeNull();
    expect(coverageRow({ ...measured(1_000, 0.01), precision: undefined }, 1_000)).toBeNull();
    expect(coverageRow(measured(1_000, 0.01), undefined)).toBeNull();
  });

  it('is the share of cells held', () => {
    const rows = [1_005, 1_020, 995, 1_000].map((ref) => coverageRow(measured(1_000, 0.01), ref)!);
    expect(coverage(rows)).toBe(0.75);
    expect(coverage([])).toBeNull();
  });
});
