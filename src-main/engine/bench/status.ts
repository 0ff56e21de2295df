/**
 * The status of a measured decode cell, from what the cell saw (docs/method.md, "Statuses").
 * Pure: the decode cell gathers the evidence, these functions judge it.
 */
import type { CellStatus, QueueEvidence, StallEvidence } from '#shared/session/schema';
import type { QueueSample } from './metrics';
import { fmtMs, fmtMsPrecise, fmtRate, plural } from '#shared/report/format';

/** "Could not run all C at once": average running below this share of C. */
export const QUEUED_ACTIVE_FRACTION = 0.95;
/** Waiting counts as queueing only when seen in this many consecutive once-a-second scrapes. */
export const QUEUED_WAITING_RUN = 2;
/** More than this share of the window's requests failed: the figure is not kept. */
export const FAILED_SHARE_LIMIT = 0.1;

/** What the client kept at the server in the window (decode.ts): see QueueEvidence's clientInFlight. */
export interface ClientSide {
  inFlight: number;
  turnaroundSeconds: number;
}

/**
 * What the server's own queue-time record says between the window's first and last scrape: how
 * many requests it scheduled, after how long on average, and how many it preempted. Empty where
 * the server does not export it, scheduled none in the window, or its counters went back (a restart).
 */
function serverQueueTime(samples: readonly QueueSample[]): Partial<QueueEvidence> {
  const first = samples[0].queueTime;
  const last = samples[samples.length - 1].queueTime;
  if (!first || !last) return {};
  const scheduled = last.count - first.count;
  const waited = last.sum - first.sum;
  const preemptions = last.preemptions - first.preemptions;
  if (scheduled <= 0 || waited < 0 || preemptions < 0) return {};
  return { scheduledRequests: scheduled, meanQueueSeconds: waited / scheduled, preemptions };
}

/**
 * The standard error of the scrapes' mean running count: their sample standard deviation over the
 * square root of their number. The scrapes are a second apart and a request turns over in a few
 * steps, so they are taken as independent samples. Absent with fewer than two scrapes.
 */
function runningStdError(samples: readonly QueueSample[], mean: number): Partial<QueueEvidence> {
  const n = samples.length;
  if (n < 2) return {};
  const squares = samples.reduce((sum, q) => sum + (q.running - mean) ** 2, 0);
  return { avgRunningStdError: Math.sqrt(squares / (n - 1) / n) };
}

/** Server seconds from the window's first scrape to its last, where the scrapes were timed: the span the queue time covers. */
function scrapeSpan(samples: readonly QueueSample[]): Partial<QueueEvidence> {
  const span = (samples[samples.length - 1].atSeconds ?? NaN) - (samples[0].atSeconds ?? NaN);
  return span > 0 ? { scrapeSpanSeconds: span } : {};
}

/**
 * What the window's once-a-second scrapes say about queueing: the share of scrapes with a
 * request waiting, the longest run of consecutive such scrapes, and the mean running count with
 * its standard error, beside what the client itself kept in flight and, where vLLM reports it,
 * how long requests waited to be scheduled. null without scrapes (no /metrics).
 */
export function queueEvidence(samples: readonly QueueSample[], client: ClientSide | null = null): QueueEvidence | null {
  if (samples.length === 0) return null;
  let withWaiting = 0;
  let run = 0;
  let longest = 0;
  let running = 0;
  let maxRunning = 0;
  for (const q of samples) {
    running += q.running;
    maxRunning = Math.max(maxRunning, q.running);
    if (q.waiting > 0) {
      withWaiting++;
      run++;
      longest = Math.max(longest, run);
    } else run = 0;
  }
  const avgRunning = running / samples.length;
  return {
    scrapes: samples.length,
    waitingShare: withWaiting / samples.length,
    longestWaitingRun: longest,
    avgRunning,
    ...runningStdError(samples, avgRunning),
    maxRunning,
    ...(client ? { clientInFlight: client.inFlight, clientTurnaroundSeconds: client.turnaroundSeconds } : {}),
    ...scrapeSpan(samples),
    ...serverQueueTime(samples),
  };
}

export interface FailureCount {
  /** Requests in flight at some time during the window, the failed ones included. */
  windowRequests: number;
  /** Of those, the ones that failed (HTTP error, error event, broken or stalled stream). */
  failed: number;
  /** The first failure's message (the server's words). */
  firstError: string | null;
}

interface CellVerdictInput {
  cancelled: boolean;
  /** A failure that ends the cell whatever the count: the server went down, or no token came at all. */
  fatalError: string | null;
  failures: FailureCount;
  looped: boolean;
  concurrency: number;
  /** Mean active requests in the window (from /metrics, else counted by the client). */
  avgActiveRequests: number | null;
  /** From the window's scrapes; null without /metrics. */
  queue: QueueEvidence | null;
  readinessTimedOut: boolean;
  /** A gap in a stream inside the window long enough to make the figure suspect. */
  stall: StallEvidence | null;
  /** One scheduler step: the cell's median time between tokens; null when not measured. */
  stepSeconds: number | null;
}

interface CellVerdict {
  status: CellStatus;
  reason: string | null;
}

/** Too many failed requests for the figure to stand: more than 10% of the window's requests. */
export function tooManyFailed(f: FailureCount): boolean {
  return f.failed > FAILED_SHARE_LIMIT * Math.max(1, f.windowRequests);
}

/**
 * The requests the server was given to run at once: C, or, where the client counted it, what the
 * client really kept in flight (a client that fell short is not the server queueing).
 */
const givenToServer = (v: Pick<CellVerdictInput, 'concurrency' | 'queue'>): number => {
  const client = v.queue?.clientInFlight ?? v.concurrency;
  return client < QUEUED_ACTIVE_FRACTION * v.concurrency ? client : v.concurrency;
};

/** The mean active count is below 95% of what the server was given. */
const runningShortOf = (
  v: Pick<CellVerdictInput, 'avgActiveRequests'>,
  given: number,
): v is { avgActiveRequests: number } =>
  v.avgActiveRequests !== null && v.avgActiveRequests < QUEUED_ACTIVE_FRACTION * given;

/**
 * Whether the server's own queue time says its waiting requests were turnover: scheduled within
 * one step on average, none preempted. A request sent after another finished waits for the step
 * under way; that is not queueing (docs/method.md, Requests queued).
 */
function waitedOneStep(q: QueueEvidence, stepSeconds: number | null): boolean {
  return stepSeconds !== null && (q.meanQueueSeconds ?? Infinity) <= stepSeconds && q.preemptions === 0;
}

/** How far the server ran short of what it was given, and the share of it that request turnover explains. */
interface Shortfall {
  queue: QueueEvidence;
  stepSeconds: number;
  /** Requests: what the server was given less its mean running count. */
  requests: number;
  /** Requests a second the server scheduled in the window (its queue time's count over the scrapes' span). */
  rate: number;
  /** Requests: the standard error of the scrapes' mean running count. */
  stdError: number;
  /** Requests: the rate times one step (Little's law), plus twice the standard error. */
  allowed: number;
}

type RunningShort = Pick<CellVerdictInput, 'queue' | 'stepSeconds'> & { avgActiveRequests: number };

/**
 * Little's law: the server's mean running count falls short of what it was given by its request
 * rate times the time each request spent at the server before it ran. A request that waits for the
 * step under way costs at most one step of that (turnover); the scrapes' mean is a sample, off by up
 * to twice its standard error. null without the queue time, a measured step or two timed scrapes.
 */
function shortfallOf(v: RunningShort, given: number): Shortfall | null {
  const { queue, stepSeconds } = v;
  if (
    !queue ||
    stepSeconds === null ||
    queue.scheduledRequests === undefined ||
    queue.scrapeSpanSeconds === undefined ||
    queue.avgRunningStdError === undefined
  )
    return null;
  const rate = queue.scheduledRequests / queue.scrapeSpanSeconds;
  const stdError = queue.avgRunningStdError;
  const allowed = rate * stepSeconds + 2 * stdError;
  return { queue, stepSeconds, requests: given - v.avgActiveRequests, rate, stdError, allowed };
}

/**
 * Whether a mean running count below what the server was given is request turnover: its own
 * queue time says each request was scheduled within a step, and the shortfall is no more than a
 * step's wait per request and the sampling explain (docs/method.md, Requests queued). Anything
 * longer before the engine runs a request (its frontend, a proxy's cap, a queue) is not turnover.
 */
const turnoverOnly = (s: Shortfall | null): s is Shortfall =>
  s !== null && s.requests <= s.allowed && waitedOneStep(s.queue, s.stepSeconds);

/** How long each request spent at the server before it ran, by Little's law, where that is more than turnover. */
function littlesLaw(s: Shortfall | null): string {
  if (!s || s.requests <= s.allowed) return '';
  return `: each request spent about ${fmtMs(s.requests / s.rate)} at the server before it ran (Little's law: ${s.requests.toFixed(1)} requests short at ${fmtRate(s.rate)} requests/s), more than one ${fmtMsPrecise(s.stepSeconds)} step`;
}

/** Why the server could not run all C at once, in words; [] when it could. */
function queueReasons(
  v: Pick<CellVerdictInput, 'concurrency' | 'avgActiveRequests' | 'queue' | 'readinessTimedOut' | 'stepSeconds'>,
): string[] {
  const reasons: string[] = [];
  const given = givenToServer(v);
  if (runningShortOf(v, given)) {
    const short = shortfallOf(v, given);
    if (!turnoverOnly(short))
      reasons.push(
        (given < v.concurrency
          ? `the server ran ${v.avgActiveRequests.toFixed(1)} requests on average of the ${given.toFixed(1)} the client had in flight (below 95%)`
          : `average active requests ${v.avgActiveRequests.toFixed(1)} is below 95% of ${v.concurrency}`) +
          littlesLaw(short),
      );
  }
  const q = v.queue;
  if (q && q.longestWaitingRun >= QUEUED_WAITING_RUN && !waitedOneStep(q, v.stepSeconds))
    reasons.push(
      `requests were waiting in ${Math.round(q.waitingShare * 100)}% of the once-a-second checks, up to ${plural(q.longestWaitingRun, 'check')} in a row`,
    );
  if (v.readinessTimedOut) reasons.push('the readiness gate timed out');
  return reasons;
}

export function decideStatus(v: CellVerdictInput): CellVerdict {
  if (v.cancelled) return { status: 'cancelled', reason: 'the run was stopped during this cell' };
  if (v.fatalError) return { status: 'error', reason: v.fatalError };
  const f = v.failures;
  if (tooManyFailed(f))
    return {
      status: 'error',
      reason: `${f.failed} of ${plural(f.windowRequests, 'request')} in the window failed (more than ${FAILED_SHARE_LIMIT * 100}%); the first: ${f.firstError ?? 'no message'}`,
    };
  if (v.looped) return { status: 'looped', reason: 'the model kept repeating the same text' };
  const queued = queueReasons(v);
  if (queued.length) return { status: 'queued', reason: queued.join('; ') };
  if (v.stall)
    return {
      status: 'stalled',
      reason: `a stream produced nothing for ${v.stall.gapSeconds.toFixed(1)} s inside the window (over ${v.stall.thresholdSeconds.toFixed(1)} s, 20× the median time between tokens), so the figure may be low`,
    };
  return { status: 'valid', reason: clientShortfall(v) ?? turnover(v) };
}

/** A mean running count below C that was request turnover, said as such: null when there was none. */
function turnover(
  v: Pick<CellVerdictInput, 'concurrency' | 'avgActiveRequests' | 'queue' | 'stepSeconds'>,
): string | null {
  const given = givenToServer(v);
  if (!runningShortOf(v, given)) return null;
  const s = shortfallOf(v, given);
  if (!turnoverOnly(s)) return null;
  const q = s.queue;
  return `request turnover: the server ran ${v.avgActiveRequests.toFixed(1)} of ${v.concurrency} on average, within what a step's wait per request and the once-a-second sampling explain (up to ${s.allowed.toFixed(2)} requests short: ${fmtRate(s.rate)} requests/s × one ${fmtMsPrecise(s.stepSeconds)} step, plus twice the scrapes' ${s.stdError.toFixed(2)} standard error); it scheduled its ${plural(q.scheduledRequests ?? 0, 'request')} after ${fmtMs(q.meanQueueSeconds)} on average, so nothing queued`;
}

/** The client's own shortfall, said as such (the server ran what it was given): null when the client kept C in flight. */
export function clientShortfall(v: Pick<CellVerdictInput, 'concurrency' | 'queue'>): string | null {
  const q = v.queue;
  if (q?.clientInFlight === undefined || q.clientInFlight >= QUEUED_ACTIVE_FRACTION * v.concurrency) return null;
  const turnaround = q.clientTurnaroundSeconds
    ? `, ${Math.round(q.clientTurnaroundSeconds * 1000)} ms from a finished request to the next on average`
    : '';
  return `client shortfall: the client kept ${q.clientInFlight.toFixed(1)} of ${v.concurrency} requests in flight on average${turnaround}; the server ran what it was given, with nothing waiting, so the figure is the server's at about ${Math.round(q.clientInFlight)} at once`;
}

type ReferenceInput = Pick<
  CellVerdictInput,
  'concurrency' | 'avgActiveRequests' | 'queue' | 'readinessTimedOut' | 'stepSeconds'
>;

/**
 * What the reference tool's rule sees as Requests queued (docs/method.md, "The reference's verdicts"): a mean
 * running count below 95% of C, waiting in two scrapes in a row, or a readiness gate that timed out; null when
 * it sees none of them.
 */
function referenceQueued(v: ReferenceInput): string | null {
  if (v.avgActiveRequests !== null && v.avgActiveRequests < QUEUED_ACTIVE_FRACTION * v.concurrency)
    return `average active requests ${v.avgActiveRequests.toFixed(1)} is below 95% of ${v.concurrency}`;
  const run = v.queue?.longestWaitingRun ?? 0;
  if (run >= QUEUED_WAITING_RUN) return `requests were waiting in ${plural(run, 'scrape')} in a row`;
  if (v.readinessTimedOut) return 'the readiness gate timed out';
  return null;
}

/**
 * Where a Valid verdict differs from the reference tool's 95% rule, both: what that rule says and why this one
 * judges otherwise; null where they agree. (Requests queued here is always Requests queued there: every reason
 * of this rule is one of the reference's.)
 */
export function referenceDifference(
  v: ReferenceInput,
  verdict: CellVerdict,
): { status: CellStatus; says: string; differs: string } | null {
  if (verdict.status !== 'valid') return null;
  const says = referenceQueued(v);
  if (says === null) return null;
  const given = givenToServer(v);
  const differs =
    given < v.concurrency
      ? 'the client, not the server, kept fewer requests in flight, and a status describes the server'
      : v.avgActiveRequests !== null && v.avgActiveRequests < QUEUED_ACTIVE_FRACTION * v.concurrency
        ? "by Little's law the shortfall is request turnover: each request waited no longer than the step under way, within the scrapes' sampling"
        : "the server's own queue time says each request seen waiting was scheduled within one step, none preempted: turnover, not queueing";
  return { status: 'queued', says, differs };
}
