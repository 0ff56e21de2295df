/** Attach mode through the core: a server started elsewhere (the real simulator process) is probed, never supervised. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { simTest } from '../../helpers/fixtures';

const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  {
    apiKey: 'sk-attach-key',
    args: ['--served-model-name', 'fara', '--max-model-len', '32768', '--gpu-memory-utilization', '0.2'],
  },
);

describe('attach to a running server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-attach-'));
  const core = createAppCore({
    host: 'bridge',
    dataDir: dir,
    detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
  });
  afterAll(async () => {
    await core.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports ready with the served model, max_model_len and the KV budget from /metrics', async ({ sim }) => {
    const d = await core.invoke('server:defaults', []);
    if (!d.ok) throw new Error(d.error);
    const preview = await core.invoke('server:preview', [{ ...d.data, kind: 'attach', url: sim.url }]);
    expect(preview.ok && preview.data.display).toBe(`attach ${sim.url}`);
    const r = await core.invoke('server:start', [
      { ...d.data, kind: 'attach', url: sim.url, apiKey: 'sk-attach-key', model: '' },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data.state).toBe('ready');
    expect(r.data.ready).toMatchObject({ model: 'fara', maxModelLen: 32768 });
    expect(r.data.ready?.kvBudget.source).toBe('metrics-cache-config');
    expect(r.data.ready?.kvBudget.tokens).toBeGreaterThan(0);
    const plan = await core.invoke('run:plan', [
      {
        contexts: [8192, 65536],
        concurrency: [1],
        prefillContexts: [],
        secondsPerMeasurement: 5,
        maxOutputTokens: 512,
        tokenTargeting: 'estimate',
      },
    ]);
    expect(plan.ok && plan.data.cells.map((c) => c.status)).toEqual(['run', 'too-long']);
    // Detaching stops nothing: the server started elsewhere keeps running.
    const off = await core.invoke('server:stop', []);
    expect(off.ok && off.data.state).toBe('idle');
    expect((await fetch(`${sim.url}/health`)).status).toBe(200);
  });

  it('says why when the key is wrong', async ({ sim }) => {
    const d = await core.invoke('server:defaults', []);
    if (!d.ok) throw new Error(d.error);
    const r = await core.invoke('server:start', [{ ...d.data, kind: 'attach', url: sim.url, apiKey: 'wrong' }]);
    if (!r.ok) throw new Error(r.error);
    expect(r.data.state).toBe('failed');
    expect(r.ok && r.data.failure?.message).toMatch(/401|key/i);
  });
});
