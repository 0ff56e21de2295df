/**
 * orphanPolicy 'report' (what the app uses): SIGKILL of the real simulator's leader leaves its
 * engine child running; the supervisor reports it in 'crashed' without killing it, ends it on
 * endOrphans() (only the pids it reported), and stop() cleans up whatever is still there.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { findGroupProcesses } from '../../../src-main/engine/server/orphans';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import type { CrashInfo } from '../../../src-main/engine/server/supervisor-types';
import { alive, freePort } from '../../helpers/fake-servers';

const previous = process.env.SIM_ENGINE_ORPHAN_SECONDS;
// The simulated engine otherwise gives up by itself 3 s after being orphaned: only the supervisor may end it here.
process.env.SIM_ENGINE_ORPHAN_SECONDS = '60';
afterAll(() => {
  if (previous === undefined) delete process.env.SIM_ENGINE_ORPHAN_SECONDS;
  else process.env.SIM_ENGINE_ORPHAN_SECONDS = previous;
});

const running: Supervisor[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function crashedSim(): Promise<{ sup: Supervisor; leader: number; c: CrashInfo }> {
  const sup = new Supervisor();
  running.push(sup);
  const port = await freePort();
  const result = await sup.start(
    {
      engineKind: 'simulator',
      model: 'fara-4b',
      host: '127.0.0.1',
      port,
      simSpeed: 20,
      simArgs: ['--sim-load-seconds', '0.3'],
    },
    { readyTimeoutMs: 45_000, nvidiaSmi: '/nonexistent/nvidia-smi', orphanPolicy: 'report' },
  );
  expect(result.ok).toBe(true);
  const leader = sup.pid!;
  const crashed = new Promise<CrashInfo>((resolve) => sup.once('crashed', resolve));
  process.kill(leader, 'SIGKILL');
  return { sup, leader, c: await crashed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Supervisor orphanPolicy 'report' + simulator", () => {
  it('reports the orphaned engine alive, leaves it running, and endOrphans() ends it', async () => {
    const { sup, leader, c } = await crashedSim();
    expect(c.signal).toBe('SIGKILL');
    expect(c.orphansAlive).toBe(true);
    expect(c.orphans.length).toBe(1);
    const [engine] = c.orphans;
    expect(engine.command).toBe('VLLM::EngineCore');
    // Still alive a while later: nothing ended it.
    await sleep(1500);
    expect(alive(engine.pid)).toBe(true);
    expect(sup.orphansLeftRunning.map((o) => o.pid)).toEqual([engine.pid]);

    // A pid it did not report is ignored, never signalled.
    expect(await sup.endOrphans([process.pid])).toEqual([]);
    expect(alive(engine.pid)).toBe(true);

    const ended = await sup.endOrphans();
    expect(ended.map((o) => o.pid)).toEqual([engine.pid]);
    expect(alive(engine.pid)).toBe(false);
    expect(sup.orphansLeftRunning).toEqual([]);
    expect(await findGroupProcesses(leader)).toEqual([]);
    // Ending again is a no-op, and stop() says what was killed and that nothing is left.
    expect(await sup.endOrphans()).toEqual([]);
    const rep = await sup.stop();
    expect(rep.orphansKilled.map((o) => o.pid)).toEqual([engine.pid]);
    expect(rep.leftBehind).toEqual([]);
    expect(rep.summary).toMatch(/nothing was left behind\.$/);
  }, 90_000);

  it('endOrphans([pid]) ends just that one', async () => {
    const { sup, leader, c } = await crashedSim();
    const pid = c.orphans[0].pid;
    expect((await sup.endOrphans([pid])).map((o) => o.pid)).toEqual([pid]);
    expect(alive(pid)).toBe(false);
    expect(await findGroupProcesses(leader)).toEqual([]);
  }, 90_000);

  it('stop() without endOrphans still ends the orphans: nothing is left behind', async () => {
    const { sup, leader, c } = await crashedSim();
    expect(c.orphansAlive).toBe(true);
    await sleep(500);
    expect(alive(c.orphans[0].pid)).toBe(true);
    const rep = await sup.stop();
    expect(rep.orphansKilled.map((o) => o.pid)).toEqual(c.orphans.map((o) => o.pid));
    expect(rep.leftBehind).toEqual([]);
    expect(alive(c.orphans[0].pid)).toBe(false);
    expect(await findGroupProcesses(leader)).toEqual([]);
    expect(sup.orphansLeftRunning).toEqual([]);
  }, 90_000);
});
