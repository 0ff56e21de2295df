/**
 * When the client, not the server, set a decode window's pace, judged from its health (client-health.ts measures it;
 * docs/method.md, "Evidence kept in the cell"), and the note its cell's reason then carries. Pure.
 */
import type { ClientHealth } from '#shared/session/schema';

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
 * CPU per token; figures may be low". A client reading over threads states how many (its figures are the worst thread's).
 */
export function clientBusyNote(h: ClientHealth | null | undefined): string | null {
  if (!h || !clientWasBusy(h)) return null;
  const ms = (s: number) => `${Math.round(s * 1000)} ms`;
  const parts = [`event loop delayed p99 ${ms(h.loopDelayP99Seconds)} (max ${ms(h.loopDelayMaxSeconds)})`];
  if (h.runDelayShare !== null) parts.push(`waited ${Math.round(h.runDelayShare * 100)}% of the window for a CPU`);
  if (h.cpuSecondsPerToken !== null) parts.push(`${(h.cpuSecondsPerToken * 1e6).toFixed(1)} µs of CPU per token`);
  const who = h.threads !== undefined && h.threads > 1 ? `the client (${h.threads} threads reading)` : 'the client';
  return `${who} was busy: ${parts.join(', ')}; figures may be low`;
}
