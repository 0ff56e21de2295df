/** The status rules of a measured decode cell (METHOD.md "Statuses"). */
import type { CellStatus } from '../../src-shared/session/schema';

export interface CellVerdictInput {
  cancelled: boolean;
  /** First error seen (HTTP status, stream error event, stall), with the server's message. */
  error: string | null;
  looped: boolean;
  concurrency: number;
  /** Mean running requests in the window (null when nothing could be measured). */
  avgActiveRequests: number | null;
  /** Largest waiting count in any sample of the window (null without /metrics). */
  maxWaitingSeen: number | null;
  readinessTimedOut: boolean;
}

/** Threshold of "could not run all C at once": average active below 95% of C. */
export const QUEUED_ACTIVE_FRACTION = 0.95;

export function decideStatus(v: CellVerdictInput): { status: CellStatus; reason: string | null } {
  if (v.cancelled) return { status: 'cancelled', reason: 'the run was stopped during this cell' };
  if (v.error) return { status: 'error', reason: v.error };
  if (v.looped) return { status: 'looped', reason: 'the model kept repeating the same text' };
  const reasons: string[] = [];
  if (v.avgActiveRequests !== null && v.avgActiveRequests < QUEUED_ACTIVE_FRACTION * v.concurrency)
    reasons.push(`average active requests ${v.avgActiveRequests.toFixed(1)} is below 95% of ${v.concurrency}`);
  if (v.maxWaitingSeen !== null && v.maxWaitingSeen > 0) reasons.push(`up to ${v.maxWaitingSeen} requests were waiting`);
  if (v.readinessTimedOut) reasons.push('the readiness gate timed out');
  if (reasons.length) return { status: 'queued', reason: reasons.join('; ') };
  return { status: 'valid', reason: null };
}
