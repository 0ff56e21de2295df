/**
 * The client machine's own share of a prefill's time to first token (docs/method.md, "Prefill"): how long the
 * measuring thread was ready to run but kept waiting for a CPU. On a busy machine the first token is read late by
 * that much, and at 8K one late wake-up is several percent of the figure. Linux reports the wait per thread
 * (schedstat's run delay); elsewhere it is unknown and nothing is taken again.
 */
import { readFileSync } from 'node:fs';

/** A prefill measurement the client delayed by more than this share of its time to first token is taken again. */
export const CLIENT_DELAY_SHARE = 0.01;
/** At most this many cold measurements of one prefill figure: the first and two more. */
export const CLIENT_DELAY_MEASUREMENTS = 3;

/** Wall ms this thread has spent runnable but not running since it started; null where the OS does not say. */
export function threadRunDelayMs(): number | null {
  try {
    const waitedNs = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]);
    return Number.isFinite(waitedNs) ? waitedNs / 1e6 : null;
  } catch {
    return null;
  }
}

interface DelayedMeasurement {
  /** Wall ms from sending to reading the first token. */
  ttftMs: number;
  /** Wall ms the client was kept waiting in that time; null when unknown. */
  clientDelayMs: number | null;
}

/** Whether the client's own waiting is too large a share of this measurement to keep it without another try. */
export function clientDelayed(m: DelayedMeasurement): boolean {
  return m.clientDelayMs !== null && m.clientDelayMs > CLIENT_DELAY_SHARE * m.ttftMs;
}

/** Of two measurements of the same prefill, the one the client delayed less (the first on a tie or when unknown). */
export function lessDelayed<T extends DelayedMeasurement>(a: T, b: T): T {
  return b.clientDelayMs !== null && a.clientDelayMs !== null && b.clientDelayMs < a.clientDelayMs ? b : a;
}
