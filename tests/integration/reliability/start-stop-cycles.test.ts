/**
 * Process hygiene with the real simulator: 50 supervised start/stop cycles leave no
 * process behind and no open file in this process; a start that misses its deadline fails
 * clearly and takes the whole process group (leader and engine child) with it.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LaunchOptions } from '../../../src-main/engine/server/launch';
import { findGroupProcesses, listProcesses } from '../../../src-main/engine/server/orphans';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import { alive, freePort } from '../../helpers/fake-servers';

const CYCLES = 50;
const MARK = `cycles-${process.pid}-${Date.now()}`;

const openFds = () => readdirSync('/proc/self/fd').length;

/**
 * Every live process whose process group is one of `groups`, or whose command line names the
 * mark, read through the same process table the supervisor uses (it throws where the table
 * cannot be read, so this check cannot pass by seeing nothing).
 */
async function survivors(groups: Set<number>): Promise<string[]> {
  return (await listProcesses())
    .filter((p) => p.state !== 'Z' && ((p.pgid !== null && groups.has(p.pgid)) || p.command.includes(MARK)))
    .map((p) => `${p.pid} ${p.command.slice(0, 120)}`);
}

async function simLaunch(simArgs: string[]): Promise<LaunchOptions> {
  return {
    engineKind: 'simulator',
    model: 'microsoft/Fara1.5-4B',
    servedModelName: MARK,
    host: '127.0.0.1',
    port: await freePort(),
    simSpeed: 20,
    simArgs,
  };
}

describe('the simulator started and stopped again and again', () => {
  it(`${CYCLES} start/stop cycles: every stop graceful, zero processes left, no growth in open files`, async () => {
    const sup = new Supervisor();
    const groups = new Set<number>();
    let fdsAfterFirst = 0;
    for (let i = 0; i < CYCLES; i++) {
      const r = await sup.start(await simLaunch(['--sim-load-seconds', '0']), {
        readyTimeoutMs: 60_000,
        stopTimeoutMs: 10_000,
      });
      if (!r.ok) throw new Error(`cycle ${i}: ${r.error.message}`);
      const leader = sup.pid!;
      groups.add(leader);
      const members = await findGroupProcesses(leader);
      expect(members.length, `cycle ${i}: leader and engine child`).toBeGreaterThanOrEqual(2);
      const rep = await sup.stop();
      expect(rep.leftBehind, `cycle ${i}`).toEqual([]);
      expect(rep.graceful, `cycle ${i}: ${rep.summary}`).toBe(true);
      for (const m of members) expect(alive(m.pid), `cycle ${i}: pid ${m.pid} ${m.command}`).toBe(false);
      if (i === 0) fdsAfterFirst = openFds();
    }
    expect(await survivors(groups)).toEqual([]);
    // A handful of descriptors may come and go (vitest's own pipes); a leak would add one or more per cycle.
    expect(openFds() - fdsAfterFirst).toBeLessThan(10);
  }, 300_000);

  it('a start slower than its deadline fails at the deadline, saying so, and the process group is gone', async () => {
    const sup = new Supervisor();
    const t0 = Date.now();
    const r = await sup.start(await simLaunch(['--sim-slow-start', '120']), {
      readyTimeoutMs: 4_000,
      stopTimeoutMs: 5_000,
    });
    const took = Date.now() - t0;
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.kind).toBe('ready-timeout');
    expect(!r.ok && r.error.message).toMatch(/not ready after 4 s/);
    expect(took).toBeLessThan(30_000);
    const leader = sup.pid!;
    for (let i = 0; i < 100 && (await findGroupProcesses(leader)).length > 0; i++)
      await new Promise((res) => setTimeout(res, 100));
    expect(await findGroupProcesses(leader)).toEqual([]);
    expect(await survivors(new Set([leader]))).toEqual([]);
    await sup.stop();
  }, 60_000);
});
