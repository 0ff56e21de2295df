/**
 * A cell measured while the simulated server fell behind its own clock is marked: the host's stall is made real by
 * stopping the simulator process (SIGSTOP) inside the window; the cell records the simulated seconds it gave up
 * (`simulatorLagSeconds`, from its /metrics) and the report's notes say so.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { buildReportModel } from '#shared/report/report-model';
import { simTest as it } from '../../helpers/fixtures';
import { runBench, targetOf, tempDir } from './bench-helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cells measured while the simulator lagged', () => {
  it('a 3 s stall of the simulator inside the window: the cell carries the lag and the report notes it', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ args: ['--disable-uvicorn-access-log'] });
    const target = await targetOf(sim.url);
    let stalled: Promise<void> | null = null;
    const { session } = await runBench(
      target,
      { contexts: [0], concurrency: [1], prefillContexts: [], secondsPerMeasurement: 8, warmup: false, simSpeed: 1 },
      join(tempDir(), 'lag.speedmatrix.json'),
      {
        onEventAlso: (e) => {
          if (e.type !== 'phase' || e.phase !== 'window' || stalled) return;
          stalled = (async () => {
            await sleep(2500);
            process.kill(sim.pid, 'SIGSTOP');
            await sleep(3000);
            process.kill(sim.pid, 'SIGCONT');
          })();
        },
      },
    );
    await stalled;
    const cell = session.cells[0];
    // 3 s stopped, of which the first second (MAX_CATCH_UP_MS) is caught up; the machine's own scheduling may add a little.
    expect(cell.simulatorLagSeconds).toBeGreaterThan(1.4);
    expect(cell.simulatorLagSeconds).toBeLessThan(2.5);
    const notes = buildReportModel(session).cellNotes.join('\n');
    expect(notes).toMatch(/The simulated server fell \S+ s behind its own clock during the window/);
  });

  it('an undisturbed window carries no lag', async ({ launchSim }) => {
    const sim = await launchSim({ args: ['--disable-uvicorn-access-log'] });
    const { session } = await runBench(
      await targetOf(sim.url),
      { contexts: [0], concurrency: [1], prefillContexts: [], secondsPerMeasurement: 4, warmup: false, simSpeed: 1 },
      join(tempDir(), 'calm.speedmatrix.json'),
    );
    expect(session.cells[0].status).toBe('valid');
    expect(session.cells[0].simulatorLagSeconds).toBeUndefined();
  });
});
