/** Building result records (DecodeCell, PrefillResult) that carry no measurement. */
import type { CellStatus, DecodeCell, PrefillResult } from '#shared/session/schema';
import { STATUSES } from '#shared/session/status-words';

/** A decode cell with a status and no figures (planned-out, errors, cancelled). */
export function unmeasuredCell(
  context: number,
  concurrency: number,
  status: CellStatus,
  reason: string | null,
): DecodeCell {
  const measuredNothing = STATUSES[status].ran && !STATUSES[status].hasFigure;
  return {
    context,
    concurrency,
    status,
    reason,
    promptTokens: null,
    totalTokensPerSecond: null,
    perRequestTokensPerSecond: null,
    ttft: null,
    timeBetweenTokens: null,
    avgActiveRequests: null,
    // The reference report shows 0 completed / 0 tokens for cells that ran but were discarded.
    completedRequests: measuredNothing ? 0 : null,
    outputTokens: measuredNothing ? 0 : null,
    windowSeconds: null,
    readinessTimedOut: false,
    maxWaitingSeen: null,
    evidence: null,
    requests: null,
    telemetry: null,
    startedAt: null,
    finishedAt: null,
  };
}

export function unmeasuredPrefill(context: number, status: CellStatus, reason: string | null): PrefillResult {
  return { context, status, reason, promptTokens: null, ttftSeconds: null, tokensPerSecond: null, measuredAt: null };
}
