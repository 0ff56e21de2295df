/**
 * The client's own health during a decode cell's window (docs/method.md, "Evidence kept in the cell"): how late its event
 * loop ran (it reads every stream's tokens on that one thread), how long the OS kept that thread waiting for a CPU,
 * and the CPU it spent per token it read. A cell whose client, not the server, set the pace says so in its reason
 * (`clientBusyNote` in client-busy.ts, the rule), with these figures; the figures are stored with the cell in base
 * units.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ClientHealth } from '#shared/session/schema';
import { threadRunDelayMs } from './client-delay';
import { nowMs } from './stream';

/** The event-loop delay histogram's sampling interval (ms); the histogram counts it in every sample. */
const LOOP_RESOLUTION_MS = 10;

/** A running probe over one window; `stop` ends it and returns what it saw. */
export interface ClientHealthProbe {
  /** The figures, given the tokens the window counted. */
  stop(tokens: number): ClientHealthReading;
}

export interface ClientHealthReading {
  health: ClientHealth;
  /** The mean lateness of the event loop (wall ms): how late the client read, on average, what had come in. */
  meanLoopDelayMs: number;
}

/** Starts watching the client now: its event loop, its thread's waits for a CPU, its CPU time. */
export function startClientHealth(): ClientHealthProbe {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const wall0 = nowMs();
  const cpu0 = process.cpuUsage();
  const wait0 = threadRunDelayMs();
  return {
    stop(tokens) {
      loop.disable();
      const wallMs = Math.max(1e-6, nowMs() - wall0);
      const cpu = process.cpuUsage(cpu0);
      const wait1 = threadRunDelayMs();
      // Only the delay beyond the sampling interval is lateness.
      const late = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS) : 0);
      const hasSamples = loop.count > 0;
      const health: ClientHealth = {
        loopDelayP99Seconds: hasSamples ? late(loop.percentile(99)) / 1000 : 0,
        loopDelayMaxSeconds: hasSamples ? late(loop.max) / 1000 : 0,
        runDelayShare: wait0 === null || wait1 === null ? null : Math.max(0, wait1 - wait0) / wallMs,
        cpuSecondsPerToken: tokens > 0 ? (cpu.user + cpu.system) / 1e6 / tokens : null,
      };
      return { health, meanLoopDelayMs: hasSamples ? late(loop.mean) : 0 };
    },
  };
}
