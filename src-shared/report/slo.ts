/**
 * Service-level targets: limits on latency and per-request speed that a cell must meet, and
 * the "Capacity within targets" table (for each context, the most requests at once that meet
 * every target). Pure functions; see docs/repeats-and-targets.md.
 */
import type { CellStatus, DecodeCell, Session } from '../session/schema';
import { STATUSES } from '../session/status-words';
import { LATENCY_DEFS, type LatencyKind, type LatencyStat, STAT_WORDS, latencyValue } from './latency';
import { cellIndex } from '../cell-key';

type TargetMetric = { kind: LatencyKind; stat: LatencyStat } | { kind: 'per-request' } | { kind: 'total' };

export interface Target {
  metric: TargetMetric;
  op: '<=' | '>=';
  /** Seconds for latencies, tokens per second for rates. */
  limit: number;
}

export interface TargetSet {
  targets: Target[];
  /** The spec as the user wrote it, kept for titles. */
  spec: string;
}

export class TargetSpecError extends Error {}

const PERCENTILES: readonly LatencyStat[] = ['p50', 'p90', 'p95', 'p99', 'mean'];
const EXAMPLE = 'e.g. "ttft-p90<=2s,tbt-p95<=50ms,e2e-p99<=30s,per-request>=20"';

function parseMetric(name: string): TargetMetric | null {
  if (name === 'per-request') return { kind: 'per-request' };
  if (name === 'total') return { kind: 'total' };
  const m = /^(ttft|tbt|e2e)(?:-(p50|p90|p95|p99|mean))?$/.exec(name);
  if (!m) return null;
  return { kind: m[1] as LatencyKind, stat: (m[2] ?? 'p50') as LatencyStat };
}

const isLatencyMetric = (m: TargetMetric): m is { kind: LatencyKind; stat: LatencyStat } =>
  m.kind !== 'per-request' && m.kind !== 'total';

function parseLimit(metric: TargetMetric, text: string, part: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|tok\/s)?$/.exec(text.trim());
  if (!m) throw new TargetSpecError(`"${part}": "${text}" is not a number with a unit (${EXAMPLE})`);
  const value = Number(m[1]);
  const unit = m[2] ?? '';
  const isLatency = isLatencyMetric(metric);
  if (isLatency) {
    if (unit === 'ms') return value / 1000;
    if (unit === 's') return value;
    throw new TargetSpecError(`"${part}": give the time with its unit, ms or s (${EXAMPLE})`);
  }
  if (unit === '' || unit === 'tok/s') return value;
  throw new TargetSpecError(`"${part}": a rate is in tok/s, not ${unit}`);
}

/** Parse "ttft-p90<=2s,tbt-p90<=50ms,per-request>=20" into targets; throws TargetSpecError. */
export function parseTargets(spec: string): TargetSet {
  const parts = spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new TargetSpecError(`no targets given (${EXAMPLE})`);
  const targets = parts.map((part): Target => {
    const m = /^([a-z0-9-]+)\s*(<=|>=)\s*(.+)$/i.exec(part);
    if (!m) throw new TargetSpecError(`"${part}" is not METRIC<=LIMIT or METRIC>=LIMIT (${EXAMPLE})`);
    const metric = parseMetric(m[1].toLowerCase());
    if (!metric) {
      throw new TargetSpecError(
        `"${m[1]}" is not a metric: use ttft-, tbt- or e2e-${PERCENTILES.join('|')}, per-request or total`,
      );
    }
    const op = m[2] as '<=' | '>=';
    const isLatency = isLatencyMetric(metric);
    if (isLatency !== (op === '<=')) {
      throw new TargetSpecError(`"${part}": ${isLatency ? 'a time is a ceiling (<=)' : 'a rate is a floor (>=)'}`);
    }
    return { metric, op, limit: parseLimit(metric, m[3], part) };
  });
  return { targets, spec: parts.join(',') };
}

/** True when the session holds only medians (imported reports): percentile targets use them. */
export function medianOnly(session: Session): boolean {
  return session.origin.kind !== 'measured';
}

/** The value a target is checked against, or null when the cell has none. */
function targetValue(cell: DecodeCell, metric: TargetMetric, medians: boolean): number | null {
  if (metric.kind === 'per-request') return cell.perRequestTokensPerSecond;
  if (metric.kind === 'total') return cell.totalTokensPerSecond;
  return latencyValue(cell, metric.kind, medians ? 'p50' : metric.stat);
}

/** A cell meets the targets when it is Valid and every target holds. */
export function meetsTargets(cell: DecodeCell, set: TargetSet, medians: boolean): boolean {
  if (cell.status !== 'valid') return false;
  return set.targets.every((t) => {
    const v = targetValue(cell, t.metric, medians);
    if (v === null) return false;
    return t.op === '<=' ? v <= t.limit : v >= t.limit;
  });
}

/** The first cell of a context that misses the targets, and why. */
export interface CapacityBreak {
  concurrency: number;
  /** The cell's status when it is not Valid (no figure counts then). */
  status: CellStatus;
  /** The targets it misses, with its value for each (null: the cell has no such figure). */
  missed: { target: Target; value: number | null }[];
}

export interface CapacityRow {
  context: number;
  /** The most requests at once up to which every measured cell meets every target; null when none does. */
  concurrency: number | null;
  totalTokensPerSecond: number | null;
  perRequestTokensPerSecond: number | null;
  /** The cell that ended the run of cells within targets; null when every measured cell meets them. */
  brokenBy: CapacityBreak | null;
  /** Cells below the break whose measurement was discarded (Looped): no figure, so no evidence of a miss. */
  passedOver: { concurrency: number; status: CellStatus }[];
}

/** A cell whose measurement was thrown away (Looped): it says nothing about the targets either way. */
const discarded = (c: DecodeCell): boolean => STATUSES[c.status].tone === 'discarded';

/** A cell that sent its requests and was judged (not one the plan left out or a run stopped). */
const wasMeasured = (c: DecodeCell): boolean => STATUSES[c.status].ran && STATUSES[c.status].doneForResume;

function breakOf(cell: DecodeCell, set: TargetSet, medians: boolean): CapacityBreak {
  const missed =
    cell.status !== 'valid'
      ? []
      : set.targets.flatMap((target) => {
          const value = targetValue(cell, target.metric, medians);
          const ok = value !== null && (target.op === '<=' ? value <= target.limit : value >= target.limit);
          return ok ? [] : [{ target, value }];
        });
  return { concurrency: cell.concurrency, status: cell.status, missed };
}

/**
 * For each measured context, the capacity within targets: the largest concurrency up to which
 * every measured cell meets every target (docs/repeats-and-targets.md). A cell that misses them
 * ends the count even when a larger concurrency happens to meet them again (a noisy TTFT). A
 * discarded cell (Looped) has no figure, so it neither meets nor misses them: the count passes
 * over it and names it.
 */
export function capacityWithinTargets(session: Session, set: TargetSet): CapacityRow[] {
  const medians = medianOnly(session);
  const measured = [...cellIndex(session.cells).values()].filter(wasMeasured);
  const contexts = [...new Set(measured.map((c) => c.context))].sort((a, b) => a - b);
  return contexts.map((context) => {
    const row = measured.filter((c) => c.context === context).sort((a, b) => a.concurrency - b.concurrency);
    const firstMiss = row.findIndex((c) => !discarded(c) && !meetsTargets(c, set, medians));
    const upTo = firstMiss < 0 ? row : row.slice(0, firstMiss);
    const within = upTo.filter((c) => !discarded(c));
    const best = within[within.length - 1];
    return {
      context,
      concurrency: best?.concurrency ?? null,
      totalTokensPerSecond: best?.totalTokensPerSecond ?? null,
      perRequestTokensPerSecond: best?.perRequestTokensPerSecond ?? null,
      brokenBy: firstMiss < 0 ? null : breakOf(row[firstMiss], set, medians),
      passedOver: upTo.filter(discarded).map((c) => ({ concurrency: c.concurrency, status: c.status })),
    };
  });
}

/** "TTFT p90", "Per request tok/s": what a target limits. */
export function targetName(t: Target): string {
  if (isLatencyMetric(t.metric)) return `${LATENCY_DEFS[t.metric.kind].label} ${STAT_WORDS[t.metric.stat]}`;
  return t.metric.kind === 'per-request' ? 'Per request tok/s' : 'Total tok/s';
}

/** "TTFT p90 ≤ 2,000 ms" etc., for captions; formatting of the limit is the caller's. */
export function targetLabel(t: Target, fmtLimit: (t: Target) => string): string {
  return `${targetName(t)} ${t.op === '<=' ? '≤' : '≥'} ${fmtLimit(t)}`;
}
