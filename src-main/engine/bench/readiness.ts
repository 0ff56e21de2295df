/**
 * The readiness gate of a decode cell (docs/method.md, "Readiness"): when the ramp is over and
 * the server runs all C requests steadily, the measurement window opens. Pure: the cell feeds
 * it observations, it answers wait / open / timed out.
 */

const K = 1024;
/** Not before this many seconds after the ramp started. */
export const READINESS_MIN_SECONDS = 2;
/** Then steady for this long. */
export const READINESS_STEADY_SECONDS = 3;
/**
 * A server reading that breaks steadiness only counts once it has lasted this long: a request
 * sent by a worker whose previous one just finished waits one scheduler step (turnover).
 */
export const PERSISTENCE_SECONDS = 1;
/**
 * Or, with nothing waiting, for this long with no more running than before: the server runs all
 * it has been given and only requests in transit are missing (turnover through a slow front end),
 * which no wait changes. The window opens and the status rule judges the shortfall.
 */
export const READINESS_PLATEAU_SECONDS = 10;

/** How long the gate waits before measuring anyway: 60 s below 64K, 120 s from 64K, 180 s from 128K. */
export function readinessTimeoutSeconds(context: number): number {
  if (context < 64 * K) return 60;
  if (context < 128 * K) return 120;
  return 180;
}

export interface ReadinessObservation {
  /** Seconds since the ramp started (server clock). */
  t: number;
  /** Every worker has received at least one token (the ramp is over). */
  everyWorkerHasToken: boolean;
  /** The server's queue, or null without /metrics (then the client's view alone decides). */
  server: { running: number; waiting: number } | null;
}

interface ReadinessState {
  /** Since when everything has been fine (ignoring short turnover blips); null when not. */
  steadySince: number | null;
  /** Since when the server reading has been off (waiting, or fewer than C running); null when fine. */
  offSince: number | null;
  /** Since when requests have been waiting at the server; null when none are. */
  waitingSince: number | null;
  /** Since when the ramp is over with nothing waiting and the running count no longer rising; null when not. */
  plateauSince: number | null;
  /** The most running seen since plateauSince. */
  plateauPeak: number;
}

type ReadinessDecision = 'wait' | 'open' | 'timed-out';

export const READINESS_START: ReadinessState = {
  steadySince: null,
  offSince: null,
  waitingSince: null,
  plateauSince: null,
  plateauPeak: 0,
};

/** The plateau part of the state: the running count has stopped rising with the ramp over and nothing waiting. */
function plateauOf(
  state: ReadinessState,
  obs: ReadinessObservation,
): Pick<ReadinessState, 'waitingSince' | 'plateauSince' | 'plateauPeak'> {
  const waiting = obs.server !== null && obs.server.waiting > 0;
  const waitingSince = waiting ? (state.waitingSince ?? obs.t) : null;
  const persistentlyWaiting = waitingSince !== null && obs.t - waitingSince >= PERSISTENCE_SECONDS;
  if (!obs.everyWorkerHasToken || obs.server === null || persistentlyWaiting)
    return { waitingSince, plateauSince: null, plateauPeak: 0 };
  const rising = state.plateauSince === null || obs.server.running > state.plateauPeak;
  return {
    waitingSince,
    plateauSince: rising ? obs.t : state.plateauSince,
    plateauPeak: Math.max(state.plateauPeak, obs.server.running),
  };
}

export function readinessStep(
  state: ReadinessState,
  obs: ReadinessObservation,
  p: { concurrency: number; timeoutSeconds: number },
): { state: ReadinessState; decision: ReadinessDecision } {
  const serverOk = obs.server === null || (obs.server.waiting === 0 && obs.server.running >= p.concurrency);
  const offSince = serverOk ? null : (state.offSince ?? obs.t);
  const persistentlyOff = offSince !== null && obs.t - offSince >= PERSISTENCE_SECONDS;
  let steadySince = state.steadySince;
  if (!obs.everyWorkerHasToken || persistentlyOff) steadySince = null;
  else if (serverOk) steadySince ??= obs.t;
  const next = { steadySince, offSince, ...plateauOf(state, obs) };
  if (
    serverOk &&
    steadySince !== null &&
    obs.t >= READINESS_MIN_SECONDS &&
    obs.t - steadySince >= READINESS_STEADY_SECONDS
  )
    return { state: next, decision: 'open' };
  if (
    next.plateauSince !== null &&
    next.waitingSince === null &&
    obs.t >= READINESS_MIN_SECONDS &&
    obs.t - next.plateauSince >= READINESS_PLATEAU_SECONDS
  )
    return { state: next, decision: 'open' };
  if (obs.t >= p.timeoutSeconds) return { state: next, decision: 'timed-out' };
  return { state: next, decision: 'wait' };
}

/**
 * Why a ramp that reached its deadline can never end, or null when it may still (requests
 * queued at the server start in their turn, and the window measures what runs). It cannot end
 * when some streams never had a token and the server does not even hold all C requests, running
 * or waiting: the rest never reached it, so no wait would bring them (docs/method.md, "Readiness").
 */
export function rampStuckReason(
  streamsStarted: number,
  concurrency: number,
  server: { running: number; waiting: number } | null,
  timeoutSeconds: number,
): string | null {
  if (streamsStarted >= concurrency || server === null) return null;
  const held = server.running + server.waiting;
  if (held >= concurrency) return null;
  return `only ${streamsStarted} of ${concurrency} streams had a token after the ${timeoutSeconds} s readiness deadline, and the server held ${held} of the ${concurrency} requests (${server.running} running, ${server.waiting} waiting): the others never reached it, so the ramp could not end`;
}
