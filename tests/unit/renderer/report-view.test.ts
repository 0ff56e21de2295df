/** What an export sends of the Results view: the metric, and the targets and price only where they are valid. */
import { describe, expect, it } from 'vitest';
import { reportViewOf } from '../../../src-renderer/src/store/report-view-slice';

describe('the Results view sent with an export', () => {
  it('sends the metric, the targets as typed and the price as a number', () => {
    expect(
      reportViewOf({ heatmapMetric: 'ttft', targetsText: ' ttft-p90<=2s,tbt-p90<=50ms ', gpuPriceText: '2.5' }),
    ).toEqual({ metric: 'ttft', slo: 'ttft-p90<=2s,tbt-p90<=50ms', gpuPricePerHour: 2.5, gpuPriceCurrency: 'USD' });
    expect(
      reportViewOf({ heatmapMetric: 'cost-per-million', targetsText: '', gpuPriceText: '2.10 EUR' }),
    ).toMatchObject({ gpuPricePerHour: 2.1, gpuPriceCurrency: 'EUR' });
  });

  it('leaves out targets and a price the screen does not use either (malformed, or not above zero)', () => {
    expect(reportViewOf({ heatmapMetric: 'total', targetsText: 'ttft<=soon', gpuPriceText: 'abc' })).toEqual({
      metric: 'total',
      slo: '',
      gpuPricePerHour: null,
    });
    expect(
      reportViewOf({ heatmapMetric: 'cost-per-million', targetsText: '', gpuPriceText: '-1' }).gpuPricePerHour,
    ).toBe(null);
  });
});
