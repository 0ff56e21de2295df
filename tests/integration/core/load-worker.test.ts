/**
 * The app's load client runs in a worker process started through the host's launcher (as a
 * matrix's does), never in main: driven through the app core against the real simulator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { type WorkerChannel, forkLauncher } from '../../../src-main/engine/bench';
import type { LoadView } from '#shared/ipc/contract';
import { noGpu, startSmallSim, until } from '../../helpers/core-sim';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-load-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the app’s load run', () => {
  it('measures from a worker the host’s launcher started, and keeps the server’s log in its session', async () => {
    const launched: WorkerChannel[] = [];
    const core = createAppCore({
      host: 'bridge',
      dataDir: dir,
      detectHardware: noGpu,
      launcher: { launch: () => launched[launched.push(forkLauncher.launch()) - 1] },
    });
    try {
      let state = '';
      core.on('server:state', (s) => (state = s.state));
      const views: LoadView[] = [];
      core.on('load:update', (v) => views.push(v));
      await startSmallSim(core, '8K');
      await until(() => state === 'ready', 60_000);
      const started = await core.invoke('load:start', [
        {
          rates: [4],
          sweep: false,
          sweepPoints: 8,
          arrivals: 'constant',
          maxInFlight: null,
          durationSeconds: 4,
          warmupSeconds: 1,
          inputLen: '128',
          outputLen: '16',
          slo: '',
        },
      ]);
      if (!started.ok) throw new Error(started.error);
      expect(launched).toHaveLength(1);
      expect(launched[0].pid).toBeGreaterThan(0);
      expect(launched[0].pid).not.toBe(process.pid);
      await until(() => ['done', 'failed', 'cancelled'].includes(views.at(-1)?.phase ?? ''), 90_000);
      expect(views.at(-1)).toMatchObject({ phase: 'done', error: null });
      const s = await core.invoke('session:get', []);
      if (!s.ok) throw new Error(s.error);
      expect(s.data.session?.load?.results.map((r) => [r.targetRate, r.completed > 0])).toEqual([[4, true]]);
      expect(s.data.session?.serverLog?.lines.length).toBeGreaterThan(0);
    } finally {
      await core.dispose();
    }
  }, 150_000);
});
