/**
 * Repeated cells (docs/repeats-and-targets.md): each pass's measurement of a cell is kept as a
 * repetition, and the cell's figures become the means over the repetitions that have figures.
 * Pure; used by the session owner (start-run.ts) as cells arrive and on resume.
 */
import { cellKey, type CellCoords } from '#shared/cell-key';
import type { CellStatus, DecodeCell, LatencyStats, Repetition, RepetitionRequests } from '#shared/session/schema';
import { requestsRepetition } from '#shared/report/requests';
import { isDoneForResume } from '#shared/session/status-words';
import { mean } from '#shared/mean';
import { clientBusyNote } from './client-busy';

/** The key of one measurement of a cell: the cell key for the first pass (as without repeats), "8192x4#2" for later ones. */
export function repetitionKey(cell: CellCoords, repetition: number): string {
  return repetition === 1 ? cellKey(cell) : `${cellKey(cell)}#${repetition}`;
}

/** The measurements a session already holds, by repetitionKey: what a resumed run must not measure again. */
export function doneMeasurements(cells: readonly DecodeCell[]): string[] {
  const keys: string[] = [];
  for (const c of cells) {
    if (c.repetitions?.length) {
      for (const r of c.repetitions) if (isDoneForResume(r.status)) keys.push(repetitionKey(c, r.repetition));
    } else if (isDoneForResume(c.status)) keys.push(cellKey(c));
  }
  return keys;
}

/** One repetition's own figures, from the cell as that pass measured it. */
function toRepetition(cell: DecodeCell, repetition: number): Repetition {
  return {
    repetition,
    status: cell.status,
    reason: cell.reason,
    totalTokensPerSecond: cell.totalTokensPerSecond,
    perRequestTokensPerSecond: cell.perRequestTokensPerSecond,
    ttft: cell.ttft,
    timeBetweenTokens: cell.timeBetweenTokens,
    ...(cell.e2eLatency !== undefined ? { e2eLatency: cell.e2eLatency } : {}),
    outputTokens: cell.outputTokens,
    windowSeconds: cell.windowSeconds,
    ...(cell.precision ? { precision: cell.precision } : {}),
    startedAt: cell.startedAt,
    ...(cell.simulatorLagSeconds ? { simulatorLagSeconds: cell.simulatorLagSeconds } : {}),
    ...(cell.clientHealth ? { clientHealth: cell.clientHealth } : {}),
  };
}

const hasFigures = (r: Repetition): boolean => r.totalTokensPerSecond !== null;

/** A simulated server's lag over all repetitions: any of them makes the mean less certain. */
function simulatorLagOf(reps: readonly Repetition[]): { simulatorLagSeconds?: number } {
  const lag = reps.reduce((sum, r) => sum + (r.simulatorLagSeconds ?? 0), 0);
  return lag > 0 ? { simulatorLagSeconds: lag } : {};
}

function meanStats(stats: ReadonlyArray<LatencyStats | null>): LatencyStats | null {
  const xs = stats.filter((s): s is LatencyStats => s !== null);
  if (!xs.length) return null;
  const field = (k: 'p50' | 'p90' | 'p99' | 'mean') => mean(xs.map((s) => s[k])) as number;
  const p95s = xs.map((s) => s.p95);
  const counts = xs.map((s) => s.count);
  return {
    p50: field('p50'),
    p90: field('p90'),
    ...(p95s.every((v) => v !== undefined) ? { p95: mean(p95s as number[]) as number } : {}),
    p99: field('p99'),
    mean: field('mean'),
    // The means stand on every repetition's values together.
    ...(counts.every((v) => v !== undefined) ? { count: (counts as number[]).reduce((a, b) => a + b, 0) } : {}),
  };
}

/**
 * Valid only when every repetition is, its reason then naming the repetitions whose client was busy (their figures
 * may read low, and so may the mean); otherwise the first other status, its reason naming the repetition.
 */
function combinedStatus(reps: readonly Repetition[], repeat: number): { status: CellStatus; reason: string | null } {
  const bad = reps.find((r) => r.status !== 'valid');
  if (!bad) {
    const busy = reps.flatMap((r) => {
      const note = clientBusyNote(r.clientHealth);
      return note ? [`repetition ${r.repetition} of ${repeat}: ${note}`] : [];
    });
    return { status: 'valid', reason: busy.length ? busy.join('; ') : null };
  }
  return {
    status: bad.status,
    reason: `repetition ${bad.repetition} of ${repeat}: ${bad.reason ?? 'no reason given'}`,
  };
}

/**
 * Every repetition's requests, each once: the latest with figures in `requests` (as without the others), the rest
 * in `repetitionRequests`, each with its own window (docs/session-format.md).
 */
function requestsOf(
  existing: DecodeCell | undefined,
  measured: DecodeCell,
  repetition: number,
  reps: readonly Repetition[],
): Partial<Pick<DecodeCell, 'requests' | 'repetitionRequests'>> {
  const sets = new Map<number, RepetitionRequests>();
  for (const r of existing?.repetitionRequests ?? []) sets.set(r.repetition, r);
  if (existing?.requests && existing.repetitions?.length) {
    const held = requestsRepetition(existing);
    const windowSeconds = existing.repetitions.find((r) => r.repetition === held)?.windowSeconds ?? null;
    sets.set(held, { repetition: held, windowSeconds, requests: existing.requests });
  }
  if (measured.requests)
    sets.set(repetition, { repetition, windowSeconds: measured.windowSeconds, requests: measured.requests });
  else sets.delete(repetition);
  const held = requestsRepetition({ repetitions: [...reps] });
  const kept = sets.get(held);
  const others = [...sets.values()].filter((r) => r !== kept).sort((a, b) => a.repetition - b.repetition);
  return {
    ...(kept ? { requests: kept.requests } : {}),
    ...(others.length ? { repetitionRequests: others } : {}),
  };
}

/**
 * The cell after `measured` (repetition `repetition` of `repeat`) arrives, given what the session
 * held for it. Without repeats the measured cell stands as it is. A repetition measured again
 * (resume after a cancelled one) replaces the earlier one. Per-request samples, telemetry and
 * evidence are those of the latest repetition with figures; every repetition's requests are kept.
 */
export function foldRepetition(
  existing: DecodeCell | undefined,
  measured: DecodeCell,
  repetition: number,
  repeat: number,
): DecodeCell {
  if (repeat <= 1) return measured;
  const reps = [
    ...(existing?.repetitions ?? []).filter((r) => r.repetition !== repetition),
    toRepetition(measured, repetition),
  ].sort((a, b) => a.repetition - b.repetition);
  const withFigures = reps.filter(hasFigures);
  const base = measured.totalTokensPerSecond !== null || !existing ? measured : existing;
  const total = mean(withFigures.map((r) => r.totalTokensPerSecond));
  const outputTokens = mean(withFigures.map((r) => r.outputTokens));
  return {
    ...base,
    ...combinedStatus(reps, repeat),
    evidence: measured.evidence ?? base.evidence,
    totalTokensPerSecond: total,
    perRequestTokensPerSecond: mean(withFigures.map((r) => r.perRequestTokensPerSecond)),
    ...(base.fairShareTokensPerSecond !== undefined
      ? { fairShareTokensPerSecond: total === null ? null : total / measured.concurrency }
      : {}),
    ttft: meanStats(withFigures.map((r) => r.ttft)),
    timeBetweenTokens: meanStats(withFigures.map((r) => r.timeBetweenTokens)),
    ...(base.e2eLatency !== undefined ? { e2eLatency: meanStats(withFigures.map((r) => r.e2eLatency ?? null)) } : {}),
    outputTokens: outputTokens === null ? base.outputTokens : Math.round(outputTokens),
    windowSeconds: mean(withFigures.map((r) => r.windowSeconds)) ?? base.windowSeconds,
    startedAt: reps[0].startedAt ?? base.startedAt,
    ...simulatorLagOf(reps),
    repetitions: reps,
    ...requestsOf(existing, measured, repetition, reps),
  };
}
