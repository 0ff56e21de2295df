/**
 * The client's own health during a decode cell's window (docs/method.md, "The client's health"): how late its event
 * loop ran (it reads every stream's tokens on that one thread), how long the OS kept that thread waiting for a CPU,
 * and the CPU it spent per token it read. A cell whose client, not the server, set the pace says so in its reason
 * (`clientBusyNote`), with these figures; the figures themselves are stored with the cell in base units.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ClientHealth } from '#shared/session/schema';
import { threadRunDelayMs } from './client-delay';
import { nowMs } from './stream';

/** The event-loop delay histogram's sampling interval (ms); the histogram counts it in every sample. */
const LOOP_RESOLUTION_MS = 10;

/**
 * A client whose event loop ran this late at its 99th percentile (seconds) read some tokens late by as much: its own
 * backlog, not the server, was holding the streams back. A healthy client measured 7 ms at C=1024 and 17 ms at
 * C=4096 on a shared 2-core machine (tests/integration/bench/many-streams.test.ts), its figures at the truth.
 */
export const BUSY_LOOP_DELAY_P99_SECONDS = 0.04;
/**
 * A client thread kept waiting for a CPU this share of the window's wall time was starved by its machine: it read in
 * bursts, behind the server. The same healthy client waited 5% at C=1024 and 9% at C=4096 beside its simulator.
 */
export const BUSY_RUN_DELAY_SHARE = 0.25;

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

/** Whether the client, not the server, set the pace of a window (the thresholds above; either one is enough). */
export function clientWasBusy(h: ClientHealth): boolean {
  return (
    h.loopDelayP99Seconds >= BUSY_LOOP_DELAY_P99_SECONDS ||
    (h.runDelayShare !== null && h.runDelayShare >= BUSY_RUN_DELAY_SHARE)
  );
}

/**
 * The note a cell's reason carries when its client was busy, with the figures that say so; null when it was not:
 * "the client was busy: event loop delayed p99 48 ms (max 120 ms), waited 30% of the window for a CPU, 12.0 µs of
 * CPU per token; figures may be low".
 */
export function clientBusyNote(h: ClientHealth | null | undefined): string | null {
  if (!h || !clientWasBusy(h)) return null;
  const ms = (s: number) => `${Math.round(s * 1000)} ms`;
  const parts = [`event loop delayed p99 ${ms(h.loopDelayP99Seconds)} (max ${ms(h.loopDelayMaxSeconds)})`];
  if (h.runDelayShare !== null) parts.push(`waited ${Math.round(h.runDelayShare * 100)}% of the window for a CPU`);
  if (h.cpuSecondsPerToken !== null) parts.push(`${(h.cpuSecondsPerToken * 1e6).toFixed(1)} µs of CPU per token`);
  return `the client was busy: ${parts.join(', ')}; figures may be low`;
}
