/**
 * Starting one of SpeedMatrix's own Node programs (node-entry.ts) as a process of its own, as a
 * capability the host hands down. Plain Node (CLI, tests) spawns a child process from
 * `nodeProgram()`. The packaged app cannot: its binary does not run as Node once the RunAsNode
 * fuse is off (README, "Packaging"), so it passes a spawner built on Electron's utilityProcess
 * (hosts/electron/node-spawner.ts). Nothing below the hosts imports electron.
 */
import type { NodeProgram } from './node-entry';

/** A started Node program, as much of it as a utility process and a child process both give. */
export interface NodeChild {
  /** Known once it has started; kept after it ended (Electron's own goes back to undefined). */
  readonly pid?: number;
  /** Its output with stdio 'pipe'; null otherwise. */
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  /** Ask it to stop (SIGTERM on POSIX, as utilityProcess's kill() does). */
  kill(): void;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
}

export interface NodeSpawnOptions {
  /** The whole environment of the program (not added to the parent's). */
  env: Record<string, string | undefined>;
  /** 'pipe': stdout and stderr come back; stdin is never given (utilityProcess allows none). */
  stdio: 'pipe' | 'ignore';
  /** The name the OS's task list shows (utilityProcess's serviceName). */
  serviceName: string;
}

/** Starts `program` with `args`, its own arguments. */
export type NodeSpawner = (program: NodeProgram, args: string[], options: NodeSpawnOptions) => NodeChild;

/**
 * The one request a utility process of the app sends its parent: start the simulated server's
 * engine core (sim/engine-child.ts) beside me, watching my pid. The answer is ENGINE_CORE_STARTED
 * with its pid, or with an error. Nothing the child sends chooses what runs.
 */
export const ENGINE_CORE_REQUEST = 'speedmatrix:start-engine-core';
export const ENGINE_CORE_STARTED = 'speedmatrix:engine-core-started';
export type EngineCoreStarted =
  { type: typeof ENGINE_CORE_STARTED; pid: number } | { type: typeof ENGINE_CORE_STARTED; error: string };

/** Electron's `process.parentPort` in a utility process: messages arrive as `{ data }`. */
export interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

/** This process's parentPort when it is an Electron utility process; null otherwise. */
export function utilityParentPort(): ParentPort | null {
  return (process as unknown as { parentPort?: ParentPort }).parentPort ?? null;
}
