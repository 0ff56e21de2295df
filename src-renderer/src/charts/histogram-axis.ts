/**
 * A histogram's value axis: from zero to a round top with round ticks, in 40 bins. Plotly's bins
 * are closed on the left, so a value exactly on the round top (four TTFTs of exactly 2,000 ms on a
 * 0–2,000 ms axis) would fall in a bin past the axis and vanish: the axis then gains one bin.
 */
import { zeroScale } from '#shared/report/scale';

export const HISTOGRAM_BINS = 40;

export interface HistogramAxis {
  /** Where the axis and the bins end. */
  top: number;
  binSize: number;
  ticks: number[];
}

export function histogramAxis(values: readonly number[]): HistogramAxis {
  const largest = Math.max(0, ...values);
  const s = zeroScale(largest);
  const binSize = s.max / HISTOGRAM_BINS;
  return { top: largest >= s.max ? s.max + binSize : s.max, binSize, ticks: s.ticks };
}
