/**
 * The load generator runs in its own process, never in the process that owns the UI or the
 * CLI. This is the one interface between the two: plain Node forks a child process; the app
 * plugs Electron's utilityProcess in behind the same shape.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { nodeProgram } from '../../platform/runtime/node-entry';
import type { ParentMessage, WorkerMessage } from './worker-protocol';
import { signalChild } from '../../platform/processes/signal-child';

/** A live channel to one worker process. */
export interface WorkerChannel {
  send(message: ParentMessage): void;
  /** Called for every message from the worker. */
  onMessage(listener: (message: WorkerMessage) => void): void;
  /** Called once when the worker process ends (code null when killed by a signal). */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** Lines the worker wrote to stderr (crash traces), for the log. */
  onStderr?(listener: (text: string) => void): void;
  kill(): void;
  /** The worker's process id, where the platform gives one (soak and leak checks read /proc with it). */
  readonly pid?: number;
}

/** Starts a worker process. The app's version wraps `utilityProcess.fork`. */
export interface WorkerLauncher {
  launch(): WorkerChannel;
}

/** The plain-Node launcher: spawns `nodeProgram('bench-worker')` with an IPC channel. */
export const forkLauncher: WorkerLauncher = {
  launch(): WorkerChannel {
    const cmd = nodeProgram('bench-worker');
    const child: ChildProcess = spawn(cmd.command, cmd.args, {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      env: process.env,
      serialization: 'advanced',
      windowsHide: true,
    });
    return {
      pid: child.pid,
      send: (m) => {
        if (child.connected) child.send(m);
      },
      onMessage: (l) => child.on('message', (m) => l(m as WorkerMessage)),
      onExit: (l) => child.once('exit', (code, signal) => l(code, signal)),
      onStderr: (l) => child.stderr?.on('data', (d: Buffer) => l(d.toString('utf8'))),
      kill: () => void signalChild(child, 'SIGKILL'),
    };
  },
};
