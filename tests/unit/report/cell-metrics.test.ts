import { describe, expect, it } from 'vitest';
import { CELL_METRICS, CELL_METRIC_DEFS, costPerMillionTokens, metricUnavailable } from '#shared/report/cell-metrics';
import type { DecodeCell, Session } from '#shared/session/schema';
import { sampleSession } from '../../helpers/sample-session';

const ctx = { gpuPricePerHour: 2, gpuCount: 1 };

describe('heatmap metrics', () => {
  it('prices a million output tokens from the GPU price per hour and the output rate', () => {
    // $2 an hour is $2/3600 a second; at 1,000 tok/s a million tokens take 1,000 s.
    expect(costPerMillionTokens(1000, ctx)).toBeCloseTo(0.5556, 4);
    expect(costPerMillionTokens(1000, { gpuPricePerHour: 2, gpuCount: 8 })).toBeCloseTo(4.4444, 4);
    expect(costPerMillionTokens(1000, { gpuPricePerHour: null, gpuCount: 1 })).toBeNull();
    expect(costPerMillionTokens(0, ctx)).toBeNull();
  });

  it('reads every metric from a measured cell, with its unit when printed', () => {
    const cell = {
      totalTokensPerSecond: 4786.2,
      perRequestTokensPerSecond: 37.1,
      ttft: { p50: 0.862, p90: 1.1, p99: 1.3, mean: 0.9 },
      timeBetweenTokens: { p50: 0.0269, p90: 0.03, p99: 0.031, mean: 0.027 },
      e2eLatency: { p50: 20.5, p90: 24.25, p99: 30, mean: 21, count: 12 },
      telemetry: { avgPowerWatts: 300, energyPerTokenJoules: 0.0627 },
    } as unknown as DecodeCell;
    const shown = Object.fromEntries(
      CELL_METRICS.map((m) => [m, CELL_METRIC_DEFS[m].format(CELL_METRIC_DEFS[m].value(cell, ctx))]),
    );
    expect(shown).toEqual({
      total: '4,786.2',
      'per-request': '37.1',
      ttft: '862 ms',
      'ttft-p90': '1,100 ms',
      'ttft-p99': '1,300 ms',
      tbt: '26.9 ms',
      'tbt-p90': '30.0 ms',
      'tbt-p99': '31.0 ms',
      e2e: '20,500 ms',
      'e2e-p90': '24,250 ms',
      'e2e-p99': '30,000 ms',
      'joules-per-token': '0.063 J/token',
      'tokens-per-watt': '15.954 tok/s/W',
      'cost-per-million': '0.12',
    });
  });

  it('says why a metric has nothing to show', () => {
    const s: Session = sampleSession();
    const noTelemetry = { ...s, cells: s.cells.map((c) => ({ ...c, telemetry: null })) };
    expect(metricUnavailable(noTelemetry, 'joules-per-token', ctx)).toMatch(/no GPU power telemetry/);
    expect(metricUnavailable(s, 'cost-per-million', { gpuPricePerHour: null, gpuCount: 1 })).toMatch(
      /GPU price per hour/,
    );
    expect(metricUnavailable(s, 'total', ctx)).toBeNull();
  });
});
