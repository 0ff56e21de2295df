/**
 * Cancel and resume (no cell measured twice), a worker that dies, and a supervised server that
 * crashes mid-run and is restarted, all against the real simulator.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, onTestFinished } from 'vitest';
import { cellKey } from '#shared/cell-key';
import type { BenchEvent, RunConfigInput } from '../../../src-main/engine/bench/types';
import { forkLauncher, type WorkerLauncher } from '../../../src-main/engine/bench/worker-transport';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import type { LaunchOptions } from '../../../src-main/engine/server/launch';
import { simTest as it } from '../../helpers/fixtures';
import { freePort } from '../../helpers/sim';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { writeSessionFile } from '../../../src-main/platform/session/write';
import { unmeasuredCell } from '../../../src-main/engine/bench/cells';
import type { DecodeCell, Session } from '#shared/session/schema';
import { cellsLeft } from '../../../src-renderer/src/store/run-slice';
import { runBench, targetOf, tempDir } from './bench-helpers';

const SPEED = 20;
const config: RunConfigInput = {
  contexts: [0, 2048],
  concurrency: [1, 2],
  prefillContexts: [2048],
  secondsPerMeasurement: 5,
  simSpeed: SPEED,
  warmup: false,
};
const doneKeys = (events: BenchEvent[]) =>
  events.flatMap((e) => (e.type === 'cell-done' && e.cell.status !== 'cancelled' ? [cellKey(e.cell)] : []));

let sup: Supervisor | null = null;
afterEach(async () => {
  await sup?.stop();
  sup = null;
});

describe('cancel and resume', () => {
  it('Stop marks the current cell Cancelled and saves; resume finishes the matrix with no cell measured twice', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ speed: SPEED, args: ['--served-model-name', 'fara'] });
    const target = await targetOf(sim.url);
    const file = join(tempDir(), 'resume.speedmatrix.json');
    let stopping = false;
    const first = await runBench(target, config, file, {
      onEventAlso: (e, stop) => {
        // Stop inside the second decode cell, while it ramps up.
        if (e.type === 'cell-start' && e.index === 2 && !stopping) {
          stopping = true;
          setTimeout(() => void stop(), 100);
        }
      },
    });
    const runDone = first.events.find((e) => e.type === 'run-done');
    expect(runDone?.type === 'run-done' && runDone.outcome).toBe('cancelled');
    const cancelled = first.session.cells.filter((c) => c.status === 'cancelled');
    expect(cancelled.length).toBe(1);
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.journal`)).toBe(false); // the final save succeeded
    const firstDone = doneKeys(first.events);
    expect(firstDone.length).toBe(1);

    const second = await runBench(target, config, file, { resume: true });
    const secondDone = doneKeys(second.events);
    expect(secondDone.filter((k) => firstDone.includes(k))).toEqual([]);
    expect([...firstDone, ...secondDone].sort()).toEqual(['0x1', '0x2', '2048x1', '2048x2'].sort());
    expect(second.session.cells.map((c) => c.status)).toEqual(['valid', 'valid', 'valid', 'valid']);
    // The first cell's figures survive untouched.
    const before = first.session.cells.find((c) => cellKey(c) === firstDone[0])!;
    const after = second.session.cells.find((c) => cellKey(c) === firstDone[0])!;
    expect(after.startedAt).toBe(before.startedAt);
    expect(after.totalTokensPerSecond).toBe(before.totalTokensPerSecond);
    // The prefill measured in the first run is not measured again.
    expect(second.events.some((e) => e.type === 'prefill-done')).toBe(false);
    expect(second.session.prefill.length).toBe(1);
  }, 90_000);

  it('resume keeps a Stream stalled cell as measured and measures only the cancelled one, the count the app shows', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ speed: SPEED, args: ['--served-model-name', 'fara'] });
    const target = await targetOf(sim.url);
    const file = join(tempDir(), 'stalled.speedmatrix.json');
    const small: RunConfigInput = { ...config, contexts: [0], concurrency: [1, 2], prefillContexts: [] };
    const first = await runBench(target, small, file);
    // The session as a run leaves it when a stream stalled in the first cell (statuses-sim.test.ts
    // makes such a cell with a paused simulator) and the run was stopped during the second.
    const [measured] = first.session.cells;
    const stalled: DecodeCell = { ...measured, status: 'stalled', reason: 'one stream produced nothing for 3.1 s' };
    const saved: Session = {
      ...first.session,
      cells: [stalled, unmeasuredCell(0, 2, 'cancelled', 'the run was stopped during this cell')],
    };
    expect((await writeSessionFile(file, saved)).ok).toBe(true);
    expect(cellsLeft(saved)).toBe(1);

    const second = await runBench(target, small, file, { resume: true });
    const plan = second.events.find((e) => e.type === 'plan');
    expect(plan?.type === 'plan' && plan.alreadyDone).toBe(1);
    expect(doneKeys(second.events)).toEqual(['0x2']);
    const kept = second.session.cells.find((c) => cellKey(c) === '0x1')!;
    expect(kept.status).toBe('stalled');
    expect(kept.startedAt).toBe(measured.startedAt);
    expect(kept.totalTokensPerSecond).toBe(measured.totalTokensPerSecond);
    expect(cellsLeft(second.session)).toBe(0);
  }, 90_000);

  it('a worker that dies: the cells it finished are saved, the current one marked, and resume completes the run', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ speed: SPEED, args: ['--served-model-name', 'fara'] });
    const target = await targetOf(sim.url);
    const file = join(tempDir(), 'crash.speedmatrix.json');
    // A launcher that kills its worker right after the first finished cell.
    const killing: WorkerLauncher = {
      launch() {
        const ch = forkLauncher.launch();
        ch.onMessage((m) => {
          if (m.type === 'event' && m.event.type === 'cell-done') setTimeout(() => ch.kill(), 10);
        });
        return ch;
      },
    };
    const first = await runBench(target, config, file, { launcher: killing });
    const runDone = first.events.find((e) => e.type === 'run-done');
    expect(runDone?.type === 'run-done' && runDone.outcome).toBe('failed');
    expect(first.events.some((e) => e.type === 'error' && /worker stopped unexpectedly/.test(e.message))).toBe(true);
    const measured = first.session.cells.filter((c) => c.status === 'valid');
    expect(measured.length).toBe(1);
    const second = await runBench(target, config, file, { resume: true });
    expect(second.session.cells.filter((c) => c.status === 'valid').length).toBe(4);
    expect(doneKeys(second.events)).not.toContain(cellKey(measured[0]));
  }, 90_000);
});

describe('a disk that cannot be written', () => {
  it('keeps the results, says where they could not be saved, and saves them in the temp folder instead', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ speed: SPEED, args: ['--served-model-name', 'fara'] });
    const target = await targetOf(sim.url);
    const dir = tempDir();
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, 'a file where a folder should be');
    const name = `unwritable-${process.pid}-${Date.now()}.speedmatrix.json`;
    const wanted = join(blocker, name);
    // The run saves to the temp folder itself; that file goes when the test ends, passed or failed.
    const fallback = join(tmpdir(), name);
    onTestFinished(() => [fallback, `${fallback}.journal`].forEach((f) => rmSync(f, { force: true })));
    const r = await runBench(target, { ...config, contexts: [0], concurrency: [1], prefillContexts: [] }, wanted);
    expect(r.file).toBe(join(tmpdir(), name));
    const warn = r.events.find(
      (e) => e.type === 'log' && e.level === 'warn' && e.message.startsWith(`Could not save ${wanted}`),
    );
    expect(warn && warn.type === 'log' ? warn.message : '').toMatch(/Saving to .* instead; nothing measured is lost/);
    const saved = await readSessionFile(r.file);
    expect(saved.ok && saved.data.cells.map((c) => c.status)).toEqual(['valid']);
    expect(existsSync(`${r.file}.journal`)).toBe(false);
  }, 60_000);
});

describe('a supervised server that crashes mid-run', () => {
  it('is restarted and the run continues; the cell it died in is an Error with the reason', async () => {
    sup = new Supervisor();
    const launch: LaunchOptions = {
      engineKind: 'simulator',
      model: 'microsoft/Fara1.5-4B',
      servedModelName: 'fara',
      host: '127.0.0.1',
      port: await freePort(),
      simSpeed: SPEED,
      simArgs: ['--sim-load-seconds', '0.2', '--sim-crash-after-tokens', '2500'],
    };
    const started = await sup.start(launch, { readyTimeoutMs: 45_000, stopTimeoutMs: 5_000 });
    if (!started.ok) throw new Error(started.error.message);
    const s = sup;
    let restarts = 0;
    const r = await runBench(
      started.data,
      { ...config, contexts: [0], concurrency: [1, 2, 4, 8] },
      join(tempDir(), 'sup.speedmatrix.json'),
      {
        onServerCrash: async () => {
          restarts++;
          await s.stop();
          const again = await s.start(
            { ...launch, simArgs: ['--sim-load-seconds', '0.2'] },
            { readyTimeoutMs: 45_000, stopTimeoutMs: 5_000 },
          );
          return again.ok ? again.data : null;
        },
      },
    );
    expect(restarts).toBe(1);
    const statuses = r.session.cells.map((c) => c.status);
    const died = r.session.cells.findIndex((c) => c.status === 'error');
    expect(died).toBeGreaterThanOrEqual(0);
    expect(r.session.cells[died].reason).toMatch(/went down/);
    // Every cell after the crash ran against the restarted server.
    expect(statuses.slice(died + 1).every((st) => st === 'valid')).toBe(true);
    expect(statuses.slice(died + 1).length).toBeGreaterThan(0);
    expect(r.session.events.some((e) => /restarted/.test(e.message))).toBe(true);
  }, 120_000);
});
