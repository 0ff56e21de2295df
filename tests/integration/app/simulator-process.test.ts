/**
 * The app's simulated server without RunAsNode: the built main process (out/main) against the
 * electron stand-in, whose main and utility processes cannot run Electron's binary as Node
 * (electron-standin/run-as-node-fuse.cjs, as the packaged app's fuse). The server and its engine
 * core both start as utility processes of main, the engine core watching the server; Stop ends
 * both, and a server that dies leaves its engine core to end on its own. Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { standinTest } from '../../helpers/fixtures';
import { ROOT } from '../../helpers/paths';
import { type MainProcess, startSimulatorServer } from './electron-standin/boot';

const it = standinTest;
const SIM = join(ROOT, 'out/main/sim.js');

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

function processes(): Proc[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
}

const alive = (pid: number) => processes().some((p) => p.pid === pid);

async function until(pred: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the simulator from the Server view and waits until it is ready; returns its and its engine core's process. */
async function startSimulator(m: MainProcess): Promise<{ server: Proc; engine: Proc }> {
  const { state, log } = await startSimulatorServer(m);
  expect(state, log.join('\n')).toBe('ready');
  const started = (await m.state()).utilityProcesses.filter((u) => u.modulePath === SIM);
  expect(started.map((u) => u.args[0])).toEqual(['serve', 'engine-core']);
  const ps = processes();
  // Other test files may run a simulator from the same file meanwhile: this one is the server its engine core names.
  expect(started[1].args.slice(0, 2)).toEqual(['engine-core', '--parent-pid']);
  const server = ps.find((p) => String(p.pid) === started[1].args[2] && p.args.includes(`${SIM} serve `));
  expect(server, 'the simulated server, named by its engine core').toBeDefined();
  const engine = ps.find((p) => p.args === 'VLLM::EngineCore' && p.ppid === server!.ppid);
  expect(engine, 'the engine core, beside the server under main').toBeDefined();
  return { server: server!, engine: engine! };
}

describe('the simulated server in the app, with Electron unable to run as Node', () => {
  it('starts as a utility process with its engine core beside it, and Stop ends both', async ({ bootMain }) => {
    const m = bootMain();
    const { server, engine } = await startSimulator(m);
    expect(
      (await m.state()).utilityProcesses.find((u) => u.modulePath === SIM && u.args[0] === 'serve')?.serviceName,
    ).toBe('SpeedMatrix simulated vLLM server');
    const stop = await m.call<{ ok: boolean; data: { summary: string } }>('invoke', { channel: 'server:stop' });
    expect(stop.ok).toBe(true);
    expect(alive(server.pid)).toBe(false);
    // The server stops its engine core before it exits, as vLLM's API server does.
    await until(() => !alive(engine.pid), 'the engine core to end', 2000);
  }, 120_000);

  it('a server that dies leaves its engine core to end on its own, as vLLM’s orphaned EngineCore does', async ({
    bootMain,
  }) => {
    const m = bootMain();
    const { server, engine } = await startSimulator(m);
    process.kill(server.pid, 'SIGKILL');
    const snapshot = async () =>
      (await m.call<{ data: { state: string } }>('invoke', { channel: 'server:snapshot' })).data.state;
    for (let i = 0; i < 100 && (await snapshot()) === 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await snapshot()).toBe('failed');
    // Still there a moment after its leader (SIM_ENGINE_ORPHAN_SECONDS, 3 s by default), then gone.
    expect(alive(engine.pid)).toBe(true);
    await until(() => !alive(engine.pid), 'the orphaned engine core to end', 10_000);
  }, 120_000);
});
