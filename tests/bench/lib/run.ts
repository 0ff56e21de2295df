/**
 * A whole benchmark run through the public engine API (startRun: worker process, journal,
 * atomic save) against a simulator, with every event time-stamped on arrival and the worker's
 * pid known (for /proc readings). The launcher is forkLauncher's shape plus the pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchEvent, type RunConfigInput, startRun } from '../../../src-main/bench';
import type { WorkerChannel, WorkerLauncher } from '../../../src-main/bench/worker-transport';
import type { WorkerMessage } from '../../../src-main/bench/worker-protocol';
import { nodeProgram } from '../../../src-main/runtime/node-entry';
import type { ServerTarget } from '../../../src-main/server/target';
import type { Session } from '../../../src-main/session/schema';

export interface TimedEvent {
  at: number;
  event: BenchEvent;
}

export interface RunResult {
  session: Session;
  events: TimedEvent[];
  startedAt: number;
  endedAt: number;
}

export function pidLauncher(onPid: (pid: number) => void): WorkerLauncher {
  return {
    launch(): WorkerChannel {
      const cmd = nodeProgram('bench-worker');
      const child: ChildProcess = spawn(cmd.command, cmd.args, {
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
        env: { ...process.env, ...cmd.env },
        serialization: 'advanced',
      });
      if (child.pid) onPid(child.pid);
      return {
        send: (m) => {
          if (child.connected) child.send(m);
        },
        onMessage: (l) => child.on('message', (m) => l(m as WorkerMessage)),
        onExit: (l) => child.once('exit', (code, signal) => l(code, signal)),
        onStderr: (l) => child.stderr?.on('data', (d: Buffer) => l(d.toString('utf8'))),
        kill: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        },
      };
    },
  };
}

export async function runThroughEngine(
  target: ServerTarget,
  config: RunConfigInput,
  hooks: { onPid?: (pid: number) => void; onEvent?: (e: TimedEvent) => void } = {},
): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-bench-'));
  const events: TimedEvent[] = [];
  const startedAt = performance.now();
  try {
    const handle = startRun({
      target,
      config,
      sessionFile: join(dir, 'bench.speedmatrix.json'),
      launcher: pidLauncher(hooks.onPid ?? (() => undefined)),
      onEvent: (event) => {
        const e = { at: performance.now(), event };
        events.push(e);
        hooks.onEvent?.(e);
      },
    });
    const session = await handle.done;
    const failed = events.find((e) => e.event.type === 'error');
    if (handle.outcome() !== 'completed') throw new Error(`the run ended ${handle.outcome()}${failed && failed.event.type === 'error' ? `: ${failed.event.message}` : ''}`);
    return { session, events, startedAt, endedAt: performance.now() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
