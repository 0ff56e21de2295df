import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GpuTelemetry, summarizeCellTelemetry, toTelemetrySeries } from '../../../src-main/platform/hardware/telemetry';
import { TelemetrySeriesSchema } from '#shared/session/schema';
import { FAKE_NVIDIA_SMI } from '../../helpers/fake-servers';
import { ROOT } from '../../helpers/paths';

const live: GpuTelemetry[] = [];
afterEach(() => {
  for (const t of live.splice(0)) t.stop();
  delete process.env.FAKE_NVIDIA_SMI_SCENARIO;
});
const telemetry = (o: ConstructorParameters<typeof GpuTelemetry>[0]) => {
  const t = new GpuTelemetry(o);
  live.push(t);
  return t;
};
const until = async (cond: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('GpuTelemetry with the fake nvidia-smi replaying the torch-load capture', () => {
  it('streams samples from one long-lived loop; a cell summary with energy per token', async () => {
    process.env.FAKE_NVIDIA_SMI_SCENARIO = 'h200';
    const t = telemetry({ nvidiaSmi: FAKE_NVIDIA_SMI, intervalMs: 100 });
    const seen: number[] = [];
    t.on('sample', (s) => seen.push(s.gpu));
    t.start();
    await until(() => t.samples.length >= 6);
    t.stop();
    const s = t.samples;
    expect(seen.length).toBe(s.length);
    // Rows 1..6 of the capture: 3 %, 47 %, 100 %, 100 %, 100 %, 99 % utilization.
    expect(s.slice(0, 6).map((x) => x.utilization)).toEqual([0.03, 0.47, 1, 1, 1, 0.99]);
    expect(s[2]).toMatchObject({
      gpu: 0,
      powerWatts: 303.3,
      powerLimitWatts: 700,
      smClockHz: 1515e6,
      memClockHz: 3201e6,
      temperatureC: 60,
      pstate: 'P0',
      throttleReasons: ['sw_power_cap'],
    });
    expect(s[0].throttleReasons).toEqual(['gpu_idle']);
    const from = s[2].t;
    const to = s[5].t;
    const cell = summarizeCellTelemetry(s, from, to, 1000);
    expect(cell.avgPowerWatts).toBeCloseTo((303.3 + 500.67 + 624.67 + 696.47) / 4, 5);
    expect(cell.throttleReasons).toEqual(['sw_power_cap']);
    expect(cell.energyPerTokenJoules).toBeCloseTo((cell.avgPowerWatts! * (to - from)) / 1000 / 1000, 8);
    expect(TelemetrySeriesSchema.safeParse(toTelemetrySeries(s, { intervalSeconds: 0.1 })).success).toBe(true);
  });

  it('several GPUs: one line per GPU per tick', async () => {
    process.env.FAKE_NVIDIA_SMI_SCENARIO = 'multi';
    const t = telemetry({ nvidiaSmi: FAKE_NVIDIA_SMI, intervalMs: 100 });
    t.start();
    await until(() => t.samples.length >= 8);
    expect(new Set(t.samples.map((s) => s.gpu))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('restarts nvidia-smi when it dies, and keeps sampling', async () => {
    process.env.FAKE_NVIDIA_SMI_SCENARIO = 'dies';
    const t = telemetry({ nvidiaSmi: FAKE_NVIDIA_SMI, intervalMs: 50 });
    const restarts: number[] = [];
    t.on('restart', (r) => restarts.push(r.attempt));
    t.start();
    await until(() => t.samples.length >= 5);
    expect(restarts.length).toBeGreaterThanOrEqual(2);
    expect(restarts.every((a) => a === 1)).toBe(true); // each life gave samples, so the count starts over
    expect(t.unavailableReason).toBeNull();
  });

  it('no nvidia-smi: says so once, then stays quiet', async () => {
    const t = telemetry({ nvidiaSmi: '/nonexistent/nvidia-smi' });
    const msgs: string[] = [];
    t.on('unavailable', (m) => msgs.push(m));
    t.start();
    await until(() => msgs.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(msgs).toEqual(['no NVIDIA GPU telemetry: nvidia-smi is not installed']);
    expect(t.running).toBe(false);
    expect(t.samples).toEqual([]);
  });

  it('nvidia-smi that keeps failing (no driver): gives up once with its message', async () => {
    process.env.FAKE_NVIDIA_SMI_SCENARIO = 'no-gpu';
    const t = telemetry({ nvidiaSmi: FAKE_NVIDIA_SMI, maxRestarts: 1 });
    const msgs: string[] = [];
    t.on('unavailable', (m) => msgs.push(m));
    t.start();
    await until(() => msgs.length > 0);
    expect(msgs).toEqual([
      expect.stringMatching(/^no GPU telemetry: nvidia-smi keeps exiting \(NVIDIA-SMI has failed/),
    ]);
  });
});

describe('stopping what could not start', () => {
  it('telemetry stopped at once on a machine without nvidia-smi signals nothing: its own process group lives on', async () => {
    // Its own group (spawnSync has no `detached`), so that on a regression only the child is signalled, not the runner.
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tests/helpers/stop-failed-spawns.ts')], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const [code, signal] = await new Promise<[number | null, string | null]>((r) =>
      child.once('exit', (c, s) => r([c, s])),
    );
    expect({ code, signal, out }).toEqual({
      code: 0,
      signal: null,
      out: 'still here; signal sent to the failed child: false\n',
    });
  }, 30_000);
});
