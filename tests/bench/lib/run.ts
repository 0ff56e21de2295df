/**
 * A whole benchmark run through the public engine API (startRun: worker process, journal,
 * atomic save) against a simulator, with every event time-stamped on arrival and the worker's
 * pid known (for /proc readings). The launcher is forkLauncher, reporting the worker's pid.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchEvent, type RunConfigInput, startRun } from '../../../src-main/engine/bench';
import { forkLauncher, type WorkerChannel, type WorkerLauncher } from '../../../src-main/engine/bench/worker-transport';
import type { ServerTarget } from '../../../src-main/engine/server/target';
import type { Session } from '#shared/session/schema';

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
      const channel = forkLauncher.launch();
      if (channel.pid) onPid(channel.pid);
      return channel;
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
    if (handle.outcome() !== 'completed')
      throw new Error(
        `the run ended ${handle.outcome()}${failed && failed.event.type === 'error' ? `: ${failed.event.message}` : ''}`,
      );
    return { session, events, startedAt, endedAt: performance.now() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
