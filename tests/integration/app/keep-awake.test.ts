/**
 * While a run or a load run measures, the app keeps the machine from sleeping (Electron's
 * powerSaveBlocker, modelled by the stand-in), and lets go when it ends. Booted from the built
 * main against the Electron stand-in, with the real simulator.
 */
import { expect } from 'vitest';
import { standinTest as it } from '../../helpers/fixtures';
import { startSimulatorServer } from './electron-standin/boot';

it('a run holds one prevent-app-suspension blocker from its start to its end, then stops it', async ({ bootMain }) => {
  const m = bootMain();
  expect((await startSimulatorServer(m)).state).toBe('ready');
  expect((await m.state()).powerSaveBlockers).toEqual([]);
  const form = {
    contexts: [0],
    concurrency: [1],
    secondsPerMeasurement: 10,
    maxOutputTokens: 256,
    tokenTargeting: 'estimate',
  };
  expect(await m.call('invoke', { channel: 'run:start', args: [form] })).toMatchObject({ ok: true });
  const during = await m.waitFor((s) => s.powerSaveBlockers.length > 0, 'a blocker while the run measures');
  expect(during.powerSaveBlockers).toEqual([{ id: 0, type: 'prevent-app-suspension', stopped: false }]);
  const phase = async () =>
    (await m.call<{ data: { phase: string } }>('invoke', { channel: 'run:snapshot' })).data.phase;
  for (let i = 0; i < 600 && !['done', 'cancelled', 'failed'].includes(await phase()); i++)
    await new Promise((r) => setTimeout(r, 100));
  expect(await phase()).toBe('done');
  const after = await m.waitFor((s) => s.powerSaveBlockers.every((b) => b.stopped), 'the blocker let go', 10_000);
  expect(after.powerSaveBlockers).toEqual([{ id: 0, type: 'prevent-app-suspension', stopped: true }]);
  expect(await m.call('invoke', { channel: 'server:stop' })).toMatchObject({ ok: true });
}, 120_000);
