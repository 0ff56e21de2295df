import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAmdSmiStatic } from '../../../src-main/platform/hardware/amd-smi-parse';
import {
  cell,
  decodeThrottleReasons,
  parseComputeApps,
  parseComputeCaps,
  parseCudaVersion,
  parseDriverVersion,
  parseGpuIdentity,
  parseTelemetryLine,
} from '../../../src-main/platform/hardware/nvidia-smi-parse';
import { H200_FIXTURES } from '../../helpers/paths';

const fixture = (f: string) => readFileSync(join(H200_FIXTURES, f), 'utf8');
const section = (name: string) => {
  const lines = fixture('nvidia-smi-query.txt').split('\n');
  const i = lines.findIndex((l) => l.startsWith(`### ${name}`));
  const out: string[] = [];
  for (const l of lines.slice(i + 1)) {
    if (l.startsWith('###')) break;
    out.push(l);
  }
  return out.join('\n');
};

describe('nvidia-smi parsers on the real H200 captures', () => {
  it('CUDA and driver version from the plain header and from -q', () => {
    expect(parseCudaVersion(fixture('nvidia-smi.txt'))).toBe('13.0');
    expect(parseDriverVersion(fixture('nvidia-smi.txt'))).toBe('580.159.04');
    expect(parseCudaVersion(fixture('nvidia-smi-q.txt'))).toBe('13.0');
    expect(parseDriverVersion(fixture('nvidia-smi-q.txt'))).toBe('580.159.04');
  });

  it('identity fields picked from the captured noheader,nounits row', () => {
    // The capture's columns, reordered into the identity query's order.
    const header = section('query csv header units')
      .split('\n')[0]
      .split(',')
      .map((h) => h.trim().replace(/ \[.*\]$/, ''));
    const row = section('query csv noheader nounits')
      .split('\n')[0]
      .split(',')
      .map((v) => v.trim());
    const pick = (f: string) => row[header.indexOf(f)];
    const line = ['index', 'name', 'uuid', 'memory.total', 'driver_version', 'pci.bus_id', 'power.limit']
      .map(pick)
      .join(', ');
    expect(parseGpuIdentity(line)).toEqual([
      {
        index: 0,
        name: 'NVIDIA H200',
        uuid: 'GPU-44554bc3-4124-a088-eacf-1fa8b4a6e604',
        memoryTotalBytes: 143771 * 1024 * 1024,
        driver: '580.159.04',
        busId: '00000000:00:06.0',
        powerLimitWatts: 700,
      },
    ]);
    expect(parseComputeCaps(`${pick('index')}, ${pick('compute_cap')}`)).toEqual(new Map([[0, '9.0']]));
  });

  it('unit-carrying cells still parse; zero is a value, [N/A] is missing', () => {
    const row = section('query csv header units').split('\n')[1].split(',');
    expect(
      parseGpuIdentity([row[0], row[1], row[2], row[7], row[4], row[3], row[14]].join(','))[0].memoryTotalBytes,
    ).toBe(143771 * 1024 * 1024);
    expect(cell('0')).toBe('0');
    expect(cell('[N/A]')).toBeNull();
    expect(cell('[Not Supported]')).toBeNull();
    expect(cell('N/A')).toBeNull();
  });

  it('compute apps: empty capture, and rows', () => {
    expect(parseComputeApps(section('compute apps'))).toEqual([]);
    expect(parseComputeApps('4242, VLLM::EngineCore, 70123\n4300, /usr/bin/python3, [N/A]\n')).toEqual([
      { pid: 4242, name: 'VLLM::EngineCore', usedMemoryBytes: 70123 * 1024 * 1024 },
      { pid: 4300, name: '/usr/bin/python3', usedMemoryBytes: null },
    ]);
  });

  it('telemetry lines from the torch-load capture (utilization, memory, power, SM clock, temperature)', () => {
    // Captured with fields timestamp, utilization.gpu, memory.used, power.draw, clocks.sm, temperature.gpu; place them in our field order.
    const rows = fixture('torch-load.txt')
      .split('\n')
      .filter((l) => /^\d{4}\//.test(l));
    expect(rows.length).toBe(12);
    const samples = rows.map((r) => {
      const [ts, util, mem, power, sm, temp] = r.split(',').map((c) => c.trim());
      return parseTelemetryLine(
        [ts, '0', util, mem, power, '700.00', sm, '3201', temp, 'P0', '0x0000000000000000'].join(', '),
        0,
      )!;
    });
    expect(samples[2]).toMatchObject({
      gpu: 0,
      utilization: 1,
      memoryUsedBytes: 883 * 1024 * 1024,
      powerWatts: 303.3,
      smClockHz: 1515e6,
      memClockHz: 3201e6,
      temperatureC: 60,
      pstate: 'P0',
      throttleReasons: [],
    });
    expect(samples[1].t - samples[0].t).toBe(254);
    expect(new Date(samples[0].t).getMinutes()).toBe(37);
  });

  it('telemetry line with missing values', () => {
    const s = parseTelemetryLine(
      '2026/11/29 23:37:47.918, 1, [N/A], 0, [Not Supported], N/A, 345, 3201, 39, P8, [N/A]',
      5,
    )!;
    expect(s).toMatchObject({
      gpu: 1,
      utilization: null,
      memoryUsedBytes: 0,
      powerWatts: null,
      powerLimitWatts: null,
      throttleReasons: null,
      pstate: 'P8',
    });
    expect(parseTelemetryLine('garbage')).toBeNull();
  });

  it('throttle reason bits', () => {
    expect(decodeThrottleReasons('0x0000000000000001')).toEqual(['gpu_idle']);
    expect(decodeThrottleReasons('0x00000000000000C4')).toEqual([
      'sw_power_cap',
      'hw_thermal_slowdown',
      'hw_power_brake_slowdown',
    ]);
    expect(decodeThrottleReasons('0x0000000000000000')).toEqual([]);
    expect(decodeThrottleReasons('[N/A]')).toBeNull();
  });
});

describe('amd-smi static --json', () => {
  it('reads both layouts tolerantly', () => {
    const newer = JSON.stringify({
      gpu_data: [
        {
          gpu: 0,
          asic: { market_name: 'AMD Instinct MI300X', target_graphics_version: 'gfx942', asic_serial: '0xABC' },
          bus: { bdf: '0000:05:00.0' },
          vram: { type: 'HBM3', size: { value: 196592, unit: 'MB' } },
          driver: { name: 'amdgpu', version: '6.8.5' },
          limit: { max_power: { value: 750, unit: 'W' } },
        },
      ],
    });
    expect(parseAmdSmiStatic(newer)).toEqual([
      {
        index: 0,
        name: 'AMD Instinct MI300X',
        uuid: '0xABC',
        vramBytes: 196592 * 1024 ** 2,
        driver: '6.8.5',
        busId: '0000:05:00.0',
        target: 'gfx942',
        powerLimitWatts: 750,
      },
    ]);
    const older = JSON.stringify([
      { gpu: 1, asic: { market_name: 'MI210' }, vram: { size: '64 GB' }, driver: { version: 'N/A' } },
    ]);
    expect(parseAmdSmiStatic(older)[0]).toMatchObject({
      index: 1,
      name: 'MI210',
      vramBytes: 64 * 1024 ** 3,
      driver: null,
      powerLimitWatts: null,
    });
    expect(parseAmdSmiStatic('not json')).toEqual([]);
  });
});
