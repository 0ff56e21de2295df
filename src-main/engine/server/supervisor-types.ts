/**
 * What the supervisor (supervisor.ts) is told and tells: its states and their transitions, its
 * settings, its events, and the reports of a stop and a crash.
 */
import type { ServerState } from '#shared/server-state';
import type { ProcessControl } from '../../platform/processes/process-control';
import type { StartupFailure } from './failures';
import type { StatsLine } from './log-parse';
import type { LeftoverProcess } from './orphans';
import type { ServerTarget } from './target';

/** The contract's ServerState: one definition for the supervisor, the app's core and the page. */
export type SupervisorState = ServerState;

/**
 * Every state change the supervisor may make. A start can fail before it is ready, stopping
 * a start that never became ready, or a ready server can crash; a stop from 'failed' ends a
 * crash's leftovers and keeps the state, so 'failed' has no way to 'stopping'.
 */
export const TRANSITIONS: Readonly<Record<SupervisorState, readonly SupervisorState[]>> = {
  idle: ['starting'],
  starting: ['ready', 'stopping', 'failed'],
  ready: ['stopping', 'failed'],
  // A start stopped at its deadline or after failed probes ends 'failed'; a stop ends 'exited'.
  stopping: ['exited', 'failed'],
  exited: ['starting'],
  failed: ['starting'],
};

export interface SupervisorConfig {
  /** Startup deadline (default 20 min: model downloads are slow). */
  readyTimeoutMs?: number;
  /** How long to wait after SIGTERM before SIGKILL of the whole group (default 30 s). */
  stopTimeoutMs?: number;
  /** Append the server's log here, ANSI stripped. */
  logFile?: string;
  /** Lines kept in memory (default 5000). */
  ringSize?: number;
  /** KV budget the user gave, used when neither metrics nor the log state one. */
  userKvTokens?: number;
  /** "cuda"/"rocm" from hardware detection, for the Engine block. */
  backendHint?: string | null;
  /** nvidia-smi to ask for leftover GPU processes (default on PATH). */
  nvidiaSmi?: string;
  /**
   * What to do with processes that outlive a crashed leader: 'end' them at once (default, the
   * CLI), or only 'report' them so a person can decide (the app); endOrphans() or stop() ends them.
   */
  orphanPolicy?: 'end' | 'report';
  /** How processes are listed and ended (default: this machine's). */
  control?: ProcessControl;
}

export interface StopReport {
  /** The leader exited on SIGTERM within the stop timeout. */
  graceful: boolean;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  /** Processes of the server's group that outlived its leader; they were killed. */
  orphansKilled: LeftoverProcess[];
  /** Processes still alive after everything: they need a person's attention. */
  leftBehind: LeftoverProcess[];
  /** Why leftovers could not be looked for (no process table here); null when they were. */
  unchecked: string | null;
  /** One sentence for people: how it stopped and whether anything was left behind. */
  summary: string;
}

export interface CrashInfo {
  exitCode: number | null;
  signal: string | null;
  lastLines: string[];
  /** Engine processes that outlived the crashed leader. */
  orphans: LeftoverProcess[];
  /** True when they were left running (orphanPolicy 'report'); false when the supervisor ended them. */
  orphansAlive: boolean;
}

export interface SupervisorEvents {
  state: [SupervisorState];
  log: [string];
  progress: [{ elapsedMs: number; phase: string }];
  /** A periodic "Engine 000: Avg prompt throughput ..." line, parsed. */
  stats: [StatsLine];
  ready: [ServerTarget];
  failed: [StartupFailure];
  crashed: [CrashInfo];
  exited: [{ exitCode: number | null; signal: string | null }];
}
