/**
 * SIGKILL of the server's leader while the app runs it: the orphaned engine process
 * is found and reported by pid (the Server view's failure, a notice and the 'server:orphans'
 * event) but left running until the person chooses: server:end-orphans ends it and says what
 * was ended; Stop then says nothing was left behind. A crash whose orphans are left alone is
 * cleaned up when the app quits (dispose). (The Supervisor's own detection, with and without
 * nvidia-smi, is in tests/integration/server/supervisor*.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppCore, type AppCore } from '../../../src-main/hosts/app-core';
import type { Notice, ServerOrphans } from '#shared/ipc/contract';
import { listProcesses } from '../../../src-main/engine/server/orphans';
import { alive } from '../../helpers/fake-servers';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-orphan-'));
const MARK = `orphan-${process.pid}-${Date.now()}`;
const previous = process.env.SIM_ENGINE_ORPHAN_SECONDS;
afterAll(() => {
  if (previous === undefined) delete process.env.SIM_ENGINE_ORPHAN_SECONDS;
  else process.env.SIM_ENGINE_ORPHAN_SECONDS = previous;
  rmSync(dir, { recursive: true, force: true });
});

/** pid -> process group of every live process, through the supervisor's own process table (throws where it cannot be read). */
async function groups(): Promise<Map<number, number>> {
  return new Map(
    (await listProcesses()).filter((p) => p.state !== 'Z' && p.pgid !== null).map((p) => [p.pid, p.pgid!]),
  );
}

/** The command line of a live process, from the same table. */
async function commandOf(pid: number): Promise<string> {
  return (await listProcesses()).find((p) => p.pid === pid)?.command ?? '';
}

async function startAndKillLeader(core: AppCore): Promise<{ leader: number; engine: number }> {
  const d = await core.invoke('server:defaults', []);
  if (!d.ok) throw new Error(d.error);
  expect(
    (
      await core.invoke('server:start', [
        { ...d.data, kind: 'simulator', servedModelName: MARK, simSpeed: 20, simLoadSeconds: 0.2 },
      ])
    ).ok,
  ).toBe(true);
  let state = 'starting';
  for (let i = 0; i < 600 && state === 'starting'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const snap = await core.invoke('server:snapshot', []);
    state = snap.ok ? snap.data.state : 'failed';
  }
  expect(state).toBe('ready');
  const table = await groups();
  let leader = 0;
  for (const [p, g] of table) if (g === p && (await commandOf(p)).includes(MARK)) leader = p;
  expect(leader).toBeGreaterThan(0);
  const engine = [...table].filter(([pid, g]) => g === leader && pid !== leader).map(([pid]) => pid);
  expect(engine.length).toBe(1);
  process.kill(leader, 'SIGKILL');
  return { leader, engine: engine[0] };
}

function newCore(): AppCore {
  return createAppCore({
    host: 'bridge',
    dataDir: dir,
    detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
    stopTimeoutMs: 5_000,
  });
}

describe('the server leader killed under the app', () => {
  it('the orphan is reported with its pid and left running; server:end-orphans ends it; Stop confirms nothing is left', async () => {
    // The simulated engine otherwise gives up by itself 3 s after being orphaned: only the app may end it here.
    process.env.SIM_ENGINE_ORPHAN_SECONDS = '60';
    const notices: Notice[] = [];
    const orphanEvents: ServerOrphans[] = [];
    const core = newCore();
    core.on('notice', (n) => notices.push(n));
    core.on('server:orphans', (o) => orphanEvents.push(o));
    try {
      const { leader, engine } = await startAndKillLeader(core);
      let failure = '';
      for (let i = 0; i < 300 && !failure; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const snap = await core.invoke('server:snapshot', []);
        if (snap.ok && snap.data.state === 'failed')
          failure = `${snap.data.failure?.message} ${snap.data.failure?.advice}`;
      }
      expect(failure).toMatch(
        new RegExp(`signal SIGKILL.*It left 1 process\\(es\\) running: pid ${engine} \\(VLLM::EngineCore\\)`),
      );
      expect(
        notices.some((n) => n.level === 'error' && n.message.includes(`pid ${engine}`)),
        JSON.stringify(notices),
      ).toBe(true);
      expect(orphanEvents).toEqual([
        { orphans: [{ pid: engine, command: 'VLLM::EngineCore', gpuMemoryBytes: null, origin: 'crash' }] },
      ]);
      // Nobody has answered yet: it is still running.
      await new Promise((r) => setTimeout(r, 1000));
      expect(alive(engine)).toBe(true);

      // Bad arguments are refused by the contract; an unrelated pid is ignored.
      const bad = await core.invoke('server:end-orphans', [[-1]]);
      expect(bad.ok).toBe(false);
      expect((await core.invoke('server:end-orphans', [[process.pid]])).ok).toBe(true);
      expect(alive(engine)).toBe(true);

      const ended = await core.invoke('server:end-orphans', []);
      expect(ended).toEqual({
        ok: true,
        data: [{ pid: engine, command: 'VLLM::EngineCore', gpuMemoryBytes: null, origin: 'crash' }],
      });
      expect(alive(engine)).toBe(false);
      expect(orphanEvents.at(-1)).toEqual({ orphans: [] });
      expect(notices.at(-1)).toMatchObject({
        level: 'info',
        message: `Ended 1 process(es): pid ${engine} (VLLM::EngineCore).`,
      });
      const again = await core.invoke('server:end-orphans', []);
      expect(again).toEqual({ ok: false, error: 'No processes are left running by a crashed server.' });

      await core.invoke('server:stop', []);
      expect(notices.at(-1)?.message).toMatch(/nothing was left behind/);
      expect([...(await groups())].filter(([, g]) => g === leader)).toEqual([]);
    } finally {
      await core.dispose();
    }
  }, 120_000);

  it('orphans left running ("Leave them"), then a new server started: quitting the app still ends them', async () => {
    process.env.SIM_ENGINE_ORPHAN_SECONDS = '60';
    const core = newCore();
    const orphanEvents: ServerOrphans[] = [];
    core.on('server:orphans', (o) => orphanEvents.push(o));
    let engine = 0;
    let leader = 0;
    try {
      ({ leader, engine } = await startAndKillLeader(core));
      for (let i = 0; i < 300 && orphanEvents.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(orphanEvents[0]?.orphans.map((o) => o.pid)).toEqual([engine]);
      const d = await core.invoke('server:defaults', []);
      if (!d.ok) throw new Error(d.error);
      expect(
        (await core.invoke('server:start', [{ ...d.data, kind: 'simulator', simSpeed: 20, simLoadSeconds: 0.2 }])).ok,
      ).toBe(true);
      expect(alive(engine)).toBe(true);
    } finally {
      await core.dispose();
    }
    expect(alive(engine)).toBe(false);
    expect([...(await groups())].filter(([, g]) => g === leader)).toEqual([]);
  }, 120_000);
});
