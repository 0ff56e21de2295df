/**
 * The app core's load runs against the real simulator process: while one measures, the page's
 * matrix runs and other sessions wait with why; Stop (the Run view's, or run:stop) stops it and
 * keeps the passes measured, and its session opens unsaved; a bad form is refused in the form's
 * words before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppCore } from '../../../src-main/hosts/app-core';
import type { LoadView } from '#shared/ipc/contract';
import type { LoadForm } from '#shared/ipc/forms';
import { type CoreOnSim, coreOnReadySim, until } from '../../helpers/core-sim';

const FORM: LoadForm = {
  rates: [2, 4, 8],
  sweep: false,
  sweepPoints: 8,
  arrivals: 'poisson',
  maxInFlight: null,
  durationSeconds: 20,
  warmupSeconds: 1,
  inputLen: '256',
  outputLen: '32',
  slo: '',
};

describe('app core: a load run against the simulator', () => {
  let core: AppCore;
  let sim: CoreOnSim;
  const views: LoadView[] = [];
  beforeAll(async () => {
    sim = await coreOnReadySim('speedmatrix-load-core-', '8K');
    core = sim.core;
    core.on('load:update', (v) => views.push(v));
  }, 90_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('refuses a bad form in its fields’ words, sending nothing', async () => {
    expect(await core.invoke('load:start', [{ ...FORM, outputLen: '32-16' }])).toEqual({
      ok: false,
      error: 'Output: the range 32-16 runs backwards (e.g. Output 1024, Output 512-2048 or Output 1024~256).',
    });
    expect(views).toEqual([]);
  });

  it('holds the page’s runs while it measures; run:stop stops it and keeps the passes measured', async () => {
    const started = await core.invoke('load:start', [FORM]);
    if (!started.ok) throw new Error(started.error);
    expect(started.data.phase).toBe('running');
    expect(core.runInProgress()).toBe(true);
    const run = await core.invoke('run:start', [
      { contexts: [4096], concurrency: [1], secondsPerMeasurement: 5, maxOutputTokens: 64, tokenTargeting: 'estimate' },
    ]);
    expect(run).toEqual({ ok: false, error: 'A load run is going: stop it first.' });
    expect(await core.invoke('session:open', ['/nowhere.json'])).toEqual({
      ok: false,
      error: 'A run is going: stop it before opening another session.',
    });
    await until(() => views.some((v) => v.results.length === 1), 60_000);
    expect((await core.invoke('run:stop', [])).ok).toBe(true);
    await until(() => views.at(-1)?.phase === 'cancelled', 60_000);
    expect(core.runInProgress()).toBe(false);
    const last = views.at(-1)!;
    expect(last.results.length).toBeGreaterThanOrEqual(1);
    expect(last.results.length).toBeLessThan(3);
    expect(last.messages.at(-1)).toMatch(/^Stopped by the user/);
    // Updates only go forward.
    expect(views.map((v) => v.seq)).toEqual([...views.map((v) => v.seq)].sort((a, b) => a - b));
    const session = await core.invoke('session:get', []);
    if (!session.ok) throw new Error(session.error);
    expect(session.data.session?.load?.results.map((r) => r.targetRate)).toEqual(last.results.map((r) => r.targetRate));
    expect(session.data.meta).toMatchObject({ file: null, dirty: true });
  }, 120_000);
});
