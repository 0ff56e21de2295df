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
  /**
   * Wall ms this machine held the measurement back in that time: the client kept waiting for a CPU, plus the
   * schedule a simulated server on it gave up (the same busy CPUs delay it); null when unknown.
   */
  clientDelayMs: number | null;
}

/**
 * A kept prefill measurement this machine delayed by more than this share of its time to first token, after the
 * retakes, is marked unreliable: the figure may read that much low, too much to be worth a figure's place.
 */
export const UNRELIABLE_DELAY_SHARE = 0.1;

/** Whether the client's own waiting is too large a share of this measurement to keep it without another try. */
export function clientDelayed(m: DelayedMeasurement): boolean {
  return m.clientDelayMs !== null && m.clientDelayMs > CLIENT_DELAY_SHARE * m.ttftMs;
}

/** Of two measurements of the same prefill, the one the client delayed less (the first on a tie or when unknown). */
export function lessDelayed<T extends DelayedMeasurement>(a: T, b: T): T {
  return b.clientDelayMs !== null && a.clientDelayMs !== null && b.clientDelayMs < a.clientDelayMs ? b : a;
}

/** With --precision, a prefill whose 95% interval is wider than this share of its mean is no measurement. */
export const NO_MEASUREMENT_HALF_WIDTH = 0.5;

/** The share of its time to first token this machine held a measurement back; null when unknown. */
export function delayShare(m: DelayedMeasurement): number | null {
  return m.clientDelayMs === null ? null : m.clientDelayMs / Math.max(1e-9, m.ttftMs);
}

/**
 * Why a prefill figure is no measurement, or null: the kept measurement most held back by this machine was held
 * back by more than UNRELIABLE_DELAY_SHARE of its time (its bound would be that wide), or past CLIENT_DELAY_SHARE
 * while a real server runs on this machine (its own delay by the same CPUs is not measured, so no bound holds), or, measured to a precision
 * it did not reach, its interval is wider than NO_MEASUREMENT_HALF_WIDTH. When this machine delayed the
 * measurements past CLIENT_DELAY_SHARE, the text says that it, not the server, kept the figure from its precision.
 */
export function unreliablePrefill(
  worstDelayShare: number | null,
  precision: { measurements: number; halfWidthRelative: number | null; stopReason: string; target: number } | null,
  serverHereUnmeasured = false,
): string | null {
  const pct = (f: number) => `${(f * 100).toFixed(1)}%`;
  const machine = worstDelayShare !== null && worstDelayShare > CLIENT_DELAY_SHARE;
  const why: string[] = [];
  if (worstDelayShare !== null && worstDelayShare > UNRELIABLE_DELAY_SHARE)
    why.push(`this machine held a kept measurement back for ${pct(worstDelayShare)} of its time to first token`);
  else if (machine && serverHereUnmeasured)
    why.push(
      `this machine held the client back for ${pct(worstDelayShare)} of a kept measurement's time to first token, and the server runs on the same busy machine, whose delay of it is not measured`,
    );
  const short = precision !== null && precision.stopReason !== 'precision';
  const hw = precision?.halfWidthRelative ?? null;
  if (short && hw !== null && hw > NO_MEASUREMENT_HALF_WIDTH)
    why.push(`its 95% interval, ±${pct(hw)} over ${precision.measurements} prompts, is no measurement`);
  if (why.length === 0) return null;
  const cause =
    short && machine
      ? `; this machine's own delay (its busy CPUs), not the server, kept it from ±${pct(precision.target)}`
      : '';
  return `unreliable: ${why.join(', and ')}${cause}`;
}

/**
 * Whether the client's own delay, not the server, kept an adaptive window from its precision (docs/adaptive-precision.md):
 * it closed at its maximum, and the client read its tokens late by enough to move a batch's count by at least half
 * the wanted half-width (a read late by d ms moves up to d ms of tokens between batches of b ms: d / b). Returns
 * that share, or null when the window reached its precision or the server's own variation kept it short.
 */
export function clientHeldPrecision(
  precision: { stopReason: string; targetRelative: number },
  loopDelayMs: number,
  batchWallMs: number,
): number | null {
  if (precision.stopReason !== 'max-duration' || !(batchWallMs > 0)) return null;
  const share = loopDelayMs / batchWallMs;
  return share >= precision.targetRelative / 2 ? share : null;
}
