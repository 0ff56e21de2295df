/**
 * The supervisor with the host's NodeSpawner (the app's is utilityProcess, which cannot run
 * here): the simulated server starts through it, not as a command, leads no process group of
 * its own, and is stopped as its host stops it. The spawner here starts the real simulator as a
 * plain child of this process, in this process's group, as a utility process is in the app's.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import { nodeProgram } from '../../../src-main/platform/runtime/node-entry';
import type { NodeSpawner } from '../../../src-main/platform/runtime/node-spawner';
import { alive, freePort } from '../../helpers/fake-servers';

const started: { program: string; args: string[]; serviceName: string }[] = [];
const pids: number[] = [];

/** Starts SpeedMatrix's program as a child in this process's group, stopped with SIGTERM as utilityProcess's kill() does. */
const childSpawner: NodeSpawner = (program, args, options) => {
  started.push({ program, args, serviceName: options.serviceName });
  const node = nodeProgram(program);
  const child = spawn(node.command, [...node.args, ...args], {
    stdio: ['ignore', options.stdio, options.stdio],
    env: options.env,
  });
  if (child.pid) pids.push(child.pid);
  return child;
};

const sup = new Supervisor({ spawnNode: childSpawner });
afterEach(async () => {
  await sup.stop();
  for (const pid of pids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe('a simulated server started through the host’s NodeSpawner', () => {
  it('starts through it, has no process group for the launched-servers registry, and stops on its kill()', async () => {
    const port = await freePort();
    const r = await sup.start({
      engineKind: 'simulator',
      model: '',
      host: '127.0.0.1',
      port,
      simSpeed: 20,
      simArgs: ['--sim-load-seconds', '0'],
    });
    expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
    expect(started).toEqual([
      {
        program: 'sim',
        args: ['serve', '--host', '127.0.0.1', '--port', String(port), '--sim-speed', '20', '--sim-load-seconds', '0'],
        serviceName: 'SpeedMatrix simulated vLLM server',
      },
    ]);
    // Not a group leader: nothing for the registry to signal as a group.
    expect(sup.pid).toBeNull();
    const server = pids[0];
    expect(alive(server)).toBe(true);
    const rep = await sup.stop();
    expect(rep.graceful).toBe(true);
    expect(rep.summary).toMatch(/^Stopped cleanly/);
    expect(alive(server)).toBe(false);
  }, 60_000);
});
