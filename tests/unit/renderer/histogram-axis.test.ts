import { describe, expect, it } from 'vitest';
import { HISTOGRAM_BINS, histogramAxis } from '../../../src-renderer/src/charts/histogram-axis';

/** The bin a value falls in, as Plotly counts it: bins closed on the left, from 0 in steps of binSize. */
const binOf = (v: number, size: number): number => Math.floor(v / size);

describe("a histogram's axis", () => {
  it('runs from zero to a round top in 40 bins when no value sits on the top', () => {
    const a = histogramAxis([120, 480, 1_300]);
    expect(a.top).toBe(1_500);
    expect(a.binSize).toBe(1_500 / HISTOGRAM_BINS);
    expect(a.ticks[0]).toBe(0);
    expect(a.ticks.at(-1)).toBe(1_500);
  });

  it('keeps a value exactly on the round top inside the axis, in a bin of its own drawn on it', () => {
    const values = [2_000, 2_000, 2_000, 2_000];
    const a = histogramAxis(values);
    expect(a.ticks.at(-1)).toBe(2_000);
    expect(a.top).toBeGreaterThan(2_000);
    // Every value's bin ends on or before the axis' end, so Plotly draws it.
    for (const v of values) expect((binOf(v, a.binSize) + 1) * a.binSize).toBeLessThanOrEqual(a.top + 1e-9);
  });

  it('gives an empty or all-zero sample an axis of its own rather than none', () => {
    expect(histogramAxis([]).top).toBeGreaterThan(0);
    expect(histogramAxis([0, 0]).top).toBeGreaterThan(0);
  });
});
