import { describe, expect, it } from 'vitest';
import type { GpuSample } from '../../../src-main/platform/hardware/nvidia-smi-parse';
import {
  appendTelemetrySeries,
  summarizeCellTelemetry,
  toTelemetrySeries,
} from '../../../src-main/platform/hardware/telemetry';
import { TelemetrySeriesSchema } from '#shared/session/schema';

const s = (t: number, gpu: number, power: number | null, util: number, reasons: string[] | null = []): GpuSample => ({
  t,
  gpu,
  utilization: util,
  memoryUsedBytes: 1e9 * (gpu + 1),
  powerWatts: power,
  powerLimitWatts: 700,
  smClockHz: 1.5e9,
  memClockHz: 3.2e9,
  temperatureC: 60 + gpu,
  pstate: 'P0',
  throttleReasons: reasons,
});

describe('summarizeCellTelemetry', () => {
  it('averages inside the window and gives energy per output token = avg power x window / tokens', () => {
    const samples = [
      s(0, 0, 100, 0.1),
      s(1000, 0, 600, 1, ['sw_power_cap']),
      s(2000, 0, 700, 1, ['gpu_idle']),
      s(3000, 0, 650, 0.9),
      s(4000, 0, 100, 0),
    ];
    const c = summarizeCellTelemetry(samples, 1000, 3000, 3900);
    expect(c.avgPowerWatts).toBeCloseTo(650);
    expect(c.avgGpuUtilization).toBeCloseTo(0.9667, 3);
    expect(c.avgSmClockHz).toBe(1.5e9);
    expect(c.avgTemperatureC).toBe(60);
    expect(c.throttleReasons).toEqual(['sw_power_cap']);
    // 650 W x 2 s / 3900 tokens
    expect(c.energyPerTokenJoules).toBeCloseTo(1300 / 3900);
  });

  it('several GPUs: power and memory summed per moment, utilization averaged', () => {
    const samples = [s(0, 0, 300, 1), s(0, 1, 200, 0.5), s(1000, 0, 310, 1), s(1000, 1, 190, 0.5)];
    const c = summarizeCellTelemetry(samples, 0, 1000, 1000);
    expect(c.avgPowerWatts).toBeCloseTo(500);
    expect(c.avgMemoryUsedBytes).toBe(3e9);
    expect(c.avgGpuUtilization).toBeCloseTo(0.75);
    expect(c.energyPerTokenJoules).toBeCloseTo(0.5);
  });

  it('no samples, no power, or no tokens -> nulls, not zeros', () => {
    expect(summarizeCellTelemetry([], 0, 1000, 10)).toEqual({
      avgGpuUtilization: null,
      avgPowerWatts: null,
      avgSmClockHz: null,
      avgMemoryUsedBytes: null,
      avgTemperatureC: null,
      throttleReasons: [],
      energyPerTokenJoules: null,
    });
    expect(summarizeCellTelemetry([s(0, 0, null, 1, null)], 0, 1000, 10).energyPerTokenJoules).toBeNull();
    expect(summarizeCellTelemetry([s(0, 0, 300, 1)], 0, 1000, 0).energyPerTokenJoules).toBeNull();
  });
});

describe('toTelemetrySeries', () => {
  it('columnar, t in seconds from the origin, valid against the session schema', () => {
    const series = toTelemetrySeries(
      [s(10_500, 0, 300, 1, ['sw_power_cap', 'hw_slowdown']), s(11_500, 0, null, 0.5, null)],
      { originMs: 10_000 },
    );
    expect(series.t).toEqual([0.5, 1.5]);
    expect(series.powerWatts).toEqual([300, null]);
    expect(series.throttleReasons).toEqual(['sw_power_cap,hw_slowdown', null]);
    expect(TelemetrySeriesSchema.parse(series)).toEqual(series);
  });
});

describe('appendTelemetrySeries', () => {
  const first = toTelemetrySeries([s(1_000, 0, 300, 1), s(2_000, 0, 310, 1)], { originMs: 0 });
  it('a resumed run adds its later samples after the first part', () => {
    const later = toTelemetrySeries([s(60_000, 0, 320, 1), s(61_000, 0, 330, 1)], { originMs: 0 });
    const merged = appendTelemetrySeries(first, later);
    expect(merged.t).toEqual([1, 2, 60, 61]);
    expect(merged.powerWatts).toEqual([300, 310, 320, 330]);
    expect(TelemetrySeriesSchema.parse(merged)).toEqual(merged);
  });
  it('samples the session already holds are not repeated (a loop that ran through both parts)', () => {
    const wholeLoop = toTelemetrySeries([s(1_000, 0, 300, 1), s(2_000, 0, 310, 1), s(60_000, 0, 320, 1)], {
      originMs: 0,
    });
    expect(appendTelemetrySeries(first, wholeLoop).t).toEqual([1, 2, 60]);
    expect(appendTelemetrySeries(first, first)).toEqual(first);
  });
  it('a session without telemetry takes the new series as it is', () => {
    expect(appendTelemetrySeries(null, first)).toEqual(first);
  });
});
