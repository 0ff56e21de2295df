/**
 * Sweeps through the core, before any server starts: the variants of a vLLM launch form with the
 * command each would run (GPU selection and API key kept, the key never shown), and the requests
 * a sweep refuses with a sentence a person can act on.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { FORM_DEFAULTS } from '../../../src-main/hosts/app-core/server-form';
import type { ServerSnapshot, SweepView } from '#shared/ipc/contract';
import type { RunForm, ServerForm } from '#shared/ipc/forms';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-sweep-core-'));
const core = (allowWritePaths = true) =>
  createAppCore({
    host: 'bridge',
    dataDir: join(dir, 'app'),
    launchedServersDir: join(dir, 'servers'),
    allowWritePaths,
    detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
  });
const app = core();
const locked = core(false);
afterAll(async () => {
  await app.dispose();
  await locked.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const vllm: ServerForm = {
  ...FORM_DEFAULTS,
  kind: 'vllm-native',
  model: 'Qwen/Qwen3-8B',
  servedModelName: '',
  maxModelLen: '32768',
  maxNumSeqs: '256',
  port: 8000,
  gpus: '0,1',
  apiKey: 'sk-sweep-secret-1',
};
const run: RunForm = {
  contexts: [8192],
  concurrency: [1, 8],
  prefillContexts: [],
  secondsPerMeasurement: 30,
  maxOutputTokens: 4096,
  tokenTargeting: 'exact',
  repeat: 1,
};
const axes = [
  { flag: '--max-num-seqs', values: '64, 128' },
  { flag: '--kv-cache-dtype', values: 'auto, fp8' },
];

describe('a sweep of a vLLM launch, planned in the core', () => {
  it('lists the four variants with the command each runs: the flag replaced in place or appended, the key hidden', async () => {
    const r = await app.invoke('sweep:plan', [vllm, axes, run]);
    if (!r.ok) throw new Error(r.error);
    expect(r.data.problems).toEqual([]);
    expect(r.data.variants.map((v) => `${v.letter} ${v.label}`)).toEqual([
      'A --max-num-seqs=64 --kv-cache-dtype=auto',
      'B --max-num-seqs=64 --kv-cache-dtype=fp8',
      'C --max-num-seqs=128 --kv-cache-dtype=auto',
      'D --max-num-seqs=128 --kv-cache-dtype=fp8',
    ]);
    const d = r.data.variants[3].display;
    expect(d).toMatch(/^CUDA_VISIBLE_DEVICES=0,1 VLLM_API_KEY='?<redacted>'? vllm serve Qwen\/Qwen3-8B /);
    expect(d).toContain('--max-num-seqs 128 ');
    expect(d).not.toContain('--max-num-seqs 256');
    expect(d).toMatch(/--kv-cache-dtype fp8$/);
    expect(d).not.toContain('sk-sweep-secret-1');
    expect(r.data.plan).toMatchObject({ variants: 4, toRun: 4, serverStarts: 4, cellsPerVariant: 2, cells: 8 });
    expect(r.data.line).toMatch(/^Sweep plan: 4 of 4 variants to run \(4 server starts\), up to 2 cells each/);
  });

  it('says why a form cannot sweep: attach mode, a launch form that does not parse', async () => {
    const attach = await app.invoke('sweep:plan', [{ ...vllm, kind: 'attach' }, axes, run]);
    expect(attach.ok && attach.data.blocked).toMatch(/^A sweep needs SpeedMatrix to launch the server/);
    const bad = await app.invoke('sweep:plan', [{ ...vllm, maxModelLen: 'lots' }, axes, run]);
    expect(bad.ok && bad.data.blocked).toMatch(
      /^Fix the launch form first: Max model length: "lots" is not a token count/,
    );
  });

  it('refuses to start with bad variants, into a folder that holds a sweep, or attached', async () => {
    const start = (over: object, on = app) =>
      on.invoke('sweep:start', [{ server: vllm, axes, run, dir: join(dir, 'new'), ...over }]);
    expect(await start({ axes: [{ flag: '--max-num-seqs', values: '64,64' }] })).toMatchObject({
      ok: false,
      error: 'Varied setting 1, values: 64 is given twice.',
    });
    const swept = join(dir, 'swept');
    mkdirSync(swept);
    writeFileSync(join(swept, 'sweep.json'), '{}');
    expect(await start({ dir: swept })).toMatchObject({
      ok: false,
      error: `${swept} holds a sweep already: finish it with Resume sweep, or choose another folder.`,
    });
    expect(await start({ server: { ...vllm, kind: 'attach' } })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^A sweep needs SpeedMatrix to launch the server/),
    });
    // In the app a page may write only where the person chose in the folder dialog.
    expect(await start({}, locked)).toMatchObject({ ok: false, error: 'Choose the sweep folder with Choose folder.' });
    expect(await app.invoke('sweep:resume', [join(dir, 'new')])).toMatchObject({
      ok: false,
      error: expect.stringContaining('is not a sweep folder: it has no sweep.json'),
    });
  });

  it('records a variant whose server does not start with its root cause, and the Server view shows that failure', async () => {
    const updates: SweepView[] = [];
    const servers: ServerSnapshot[] = [];
    const offs = [app.on('sweep:update', (v) => updates.push(v)), app.on('server:state', (s) => servers.push(s))];
    const sim: ServerForm = { ...FORM_DEFAULTS, simSpeed: 10, simLoadSeconds: 0.3, maxModelLen: '32768' };
    // A folder holding other files gets the sweep in a new folder inside.
    const mine = join(dir, 'mine');
    mkdirSync(mine);
    writeFileSync(join(mine, 'notes.txt'), 'mine');
    const started = await app.invoke('sweep:start', [
      { server: sim, axes: [{ flag: '--max-model-len', values: '99999999' }], run, dir: mine },
    ]);
    if (!started.ok) throw new Error(started.error);
    expect(started.data.dir).toMatch(new RegExp(`^${mine}/sweep-\\d{4}-`));
    expect(existsSync(join(started.data.dir as string, 'sweep.json'))).toBe(true);
    await expect.poll(() => updates.at(-1)?.phase, { timeout: 60_000 }).toBe('done');
    offs.forEach((off) => off());
    const last = updates.at(-1) as SweepView;
    expect(last.message).toBe('Sweep done: 0 of 1 variants measured, 1 did not start.');
    expect(last.variants[0]).toMatchObject({
      letter: 'A',
      state: 'failed',
      failure: expect.stringMatching(/max_model_len/),
    });
    const failed = servers.findLast((s) => s.state === 'failed');
    expect(failed).toMatchObject({ sweepVariant: 'A: --max-model-len=99999999' });
    expect(failed?.failure?.lines.join('\n')).toMatch(/max_model_len/);
    expect((await app.invoke('server:start', [sim])).ok).toBe(true);
    await app.invoke('server:stop', []);
  }, 90_000);
});
