/**
 * The rules of a client spread over threads (stream-shards.ts; docs/method.md, "The client"): how many
 * threads hold a cell, how its workers are shared out, how a thread dates the window it hears of a
 * moment late, and how the threads' health reads as one client's.
 */
import type { ClientHealthReading } from './client-health';

/** One thread holds up to this many streams before the cell spreads them over more. */
export const STREAMS_PER_THREAD = 256;
/** At most this many threads hold one cell. */
export const MAX_THREADS = 16;

/** How many threads hold a cell of C streams on a machine with `cores` CPUs: 1 means the cell's own thread. */
export function threadsFor(concurrency: number, cores: number): number {
  return Math.max(1, Math.min(Math.ceil(concurrency / STREAMS_PER_THREAD), cores, MAX_THREADS));
}

/** C workers in `threads` shares differing by at most one, the larger first. */
export function shareSizes(concurrency: number, threads: number): number[] {
  return Array.from({ length: threads }, (_, i) => Math.floor((concurrency + threads - 1 - i) / threads));
}

/** What a stream had read, and when its last arrival came. */
interface ReadSoFar {
  tokens: number;
  lastTokenAt: number;
  /** The count before that last arrival. */
  tokensBeforeLast: number;
}

/**
 * A stream's token count at wall time t, read a moment after t: its last arrival, when it came after t, is not
 * counted. (A thread hears that the window opened or closed after the cell decided it; one arrival per stream
 * fits in that moment at the rates a server streams.)
 */
export function tokensAt(s: ReadSoFar, t: number): number {
  return s.lastTokenAt > t ? s.tokensBeforeLast : s.tokens;
}

/**
 * One reading for a client spread over threads: the worst thread's lateness and waits (the one that set the pace,
 * if one did) and the process's CPU per token, which `own` (the probe on the cell's thread) holds for all threads.
 */
export function mergeHealth(own: ClientHealthReading, threads: readonly ClientHealthReading[]): ClientHealthReading {
  const all = [own, ...threads];
  const worst = (pick: (r: ClientHealthReading) => number | null): number | null => {
    const known = all.map(pick).filter((v): v is number => v !== null);
    return known.length ? Math.max(...known) : null;
  };
  return {
    health: {
      loopDelayP99Seconds: worst((r) => r.health.loopDelayP99Seconds) ?? 0,
      loopDelayMaxSeconds: worst((r) => r.health.loopDelayMaxSeconds) ?? 0,
      runDelayShare: worst((r) => r.health.runDelayShare),
      cpuSecondsPerToken: own.health.cpuSecondsPerToken,
      threads: Math.max(1, threads.length),
    },
    meanLoopDelayMs: worst((r) => r.meanLoopDelayMs) ?? 0,
  };
}
