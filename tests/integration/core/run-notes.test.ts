/**
 * The app core against the real simulator process: what the orchestrator notes when a run
 * starts (a context too long for the server's max_model_len) reaches the page under the run's
 * plan, as the CLI prints it as "note: ...".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppCore, createAppCore } from '../../../src-main/hosts/app-facade';
import type { RunUpdate } from '#shared/ipc/contract';

const noGpu = async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] });
const until = async (cond: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};
// The orchestrator's note for a context that cannot fit with the run's max output (16K + 1,024 > 16,384).
const TOO_LONG_NOTE =
  /^16K context \+ 1,024 output tokens exceeds max_model_len 16,384: those cells are marked Too long and not run\.$/;

describe('app core: the notes of a started run', () => {
  let core: AppCore;
  let dir: string;
  const updates: RunUpdate[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'speedmatrix-notes-'));
    core = createAppCore({ host: 'bridge', dataDir: dir, detectHardware: noGpu, stopTimeoutMs: 8000 });
    core.on('run:update', (u) => updates.push(u));
    const d = await core.invoke('server:defaults', []);
    if (!d.ok) throw new Error(d.error);
    const started = await core.invoke('server:start', [
      { ...d.data, simSpeed: 10, simLoadSeconds: 0.3, maxModelLen: '16K', gpuMemoryUtilization: '0.3' },
    ]);
    expect(started.ok).toBe(true);
    let state = 'starting';
    while (state === 'starting') {
      await new Promise((r) => setTimeout(r, 100));
      const snap = await core.invoke('server:snapshot', []);
      state = snap.ok ? snap.data.state : 'failed';
    }
    expect(state).toBe('ready');
  }, 90_000);
  afterAll(async () => {
    await core?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the orchestrator's Too long note under the run's plan, which the plan before the start does not have", async () => {
    const form = {
      contexts: [4096, 16384],
      concurrency: [1],
      prefillContexts: [],
      secondsPerMeasurement: 5,
      maxOutputTokens: 1024,
      tokenTargeting: 'estimate' as const,
    };
    const planned = await core.invoke('run:plan', [form]);
    if (!planned.ok) throw new Error(planned.error);
    expect(planned.data.notes.some((n) => TOO_LONG_NOTE.test(n))).toBe(false);

    const started = await core.invoke('run:start', [form]);
    if (!started.ok) throw new Error(started.error);
    const withNote = (u: RunUpdate) => u.plan?.notes.some((n) => TOO_LONG_NOTE.test(n)) ?? false;
    await until(() => updates.some(withNote), 60_000);
    // Once, under the plan, beside the plan's own warnings.
    expect(updates.find(withNote)?.plan?.notes.filter((n) => TOO_LONG_NOTE.test(n))).toHaveLength(1);
    const stopped = await core.invoke('run:stop', []);
    expect(stopped.ok).toBe(true);
  }, 120_000);
});
