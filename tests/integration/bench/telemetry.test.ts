/**
 * GPU telemetry during a run: the fake nvidia-smi (replaying the real H200 capture, stamped
 * with the current time) runs beside a simulator run; each measured cell gets its window's
 * averages and energy per token, and the session keeps the whole series.
 */
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { GpuTelemetry } from '../../../src-main/platform/hardware/telemetry';
import { FAKE_NVIDIA_SMI } from '../../helpers/fake-servers';
import { simTest as it } from '../../helpers/fixtures';
import { runBench, targetOf, tempDir } from './bench-helpers';

describe('GPU telemetry per cell', () => {
  let telemetry: GpuTelemetry | null = null;
  afterAll(() => {
    telemetry?.stop();
  });

  it('summarises each window and stores the series in the session', async ({ launchSim }) => {
    const sim = await launchSim({ speed: 10, args: ['--served-model-name', 'fara'] });
    const target = await targetOf(sim.url);
    telemetry = new GpuTelemetry({ nvidiaSmi: FAKE_NVIDIA_SMI, intervalMs: 100 });
    telemetry.start();
    const r = await runBench(
      target,
      {
        contexts: [0],
        concurrency: [1, 2],
        prefillContexts: [],
        secondsPerMeasurement: 10,
        simSpeed: 10,
        warmup: false,
      },
      join(tempDir(), 't.speedmatrix.json'),
      { telemetry },
    );
    telemetry.stop();
    for (const cell of r.session.cells) {
      expect(cell.status).toBe('valid');
      expect(cell.telemetry?.avgPowerWatts).toBeGreaterThan(0);
      expect(cell.telemetry?.energyPerTokenJoules).toBeGreaterThan(0);
    }
    expect(r.session.telemetry?.t.length).toBeGreaterThan(5);
    expect(r.session.checksUnavailable).toEqual([]);
  }, 60_000);
});
