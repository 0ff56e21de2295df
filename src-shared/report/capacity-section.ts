/**
 * The reports' "Capacity within targets" section: for each context, the most requests at once
 * that meet every service-level target, and the throughput there. Built once for Markdown,
 * HTML, PDF and the app.
 */
import type { Session } from '../session/schema';
import { STATUSES } from '../session/status-words';
import { NONE, fmtContext, fmtMs, fmtMsPrecise, fmtSeconds, fmtTokPerSec } from './format';
import { MISSES_TARGETS } from './matrix-model';
import {
  type CapacityBreak,
  type CapacityRow,
  type Target,
  type TargetSet,
  capacityWithinTargets,
  medianOnly,
  targetLabel,
  targetName,
} from './slo';

export interface CapacitySection {
  title: string;
  /** One line per target, e.g. "TTFT p90 ≤ 2,000 ms". */
  targets: string[];
  header: string[];
  rows: string[][];
  notes: string[];
}

const CAPACITY_TITLE = 'Capacity within targets';

/** A figure checked against a target, as people read it: times in ms (or s from 10 s), rates in tok/s. */
function fmtTargetFigure(t: Target, v: number): string {
  if (t.metric.kind === 'ttft' || t.metric.kind === 'e2e') return v >= 10 ? fmtSeconds(v) : fmtMs(v);
  if (t.metric.kind === 'tbt') return fmtMsPrecise(v);
  return `${fmtTokPerSec(v)} tok/s`;
}

/** A target's limit as the user wrote it: "10 s" rather than "10.0 s". */
const fmtTargetLimit = (t: Target): string =>
  (t.metric.kind === 'ttft' || t.metric.kind === 'e2e') && t.limit >= 10 ? `${t.limit} s` : fmtTargetFigure(t, t.limit);

/** "4 at once: TTFT median 1,956 ms > 1,000 ms", "32 at once: Looped", or — when nothing broke the run. */
function fmtBreak(b: CapacityBreak | null): string {
  if (!b) return NONE;
  if (b.status !== 'valid') return `${b.concurrency} at once: ${STATUSES[b.status].word}`;
  const misses = b.missed.map(({ target, value }) => {
    const label = targetName(target);
    if (value === null) return `${label} not measured`;
    return `${label} ${fmtTargetFigure(target, value)} ${target.op === '<=' ? '>' : '<'} ${fmtTargetLimit(target)}`;
  });
  return `${b.concurrency} at once: ${misses.join('; ')}`;
}

/** "128", "128; 16 not measured: Looped", "none; 16 not measured: Looped". */
function fmtCapacity(r: CapacityRow): string {
  const most = r.concurrency === null ? 'none' : String(r.concurrency);
  const over = r.passedOver.map((p) => `${p.concurrency} not measured: ${STATUSES[p.status].word}`);
  return [most, ...over].join('; ');
}

/** The targets as the section lists them: "TTFT p90 ≤ 2,000 ms" (also the glance's, at-a-glance.ts). */
export const capacityTargetLabels = (set: TargetSet): string[] =>
  set.targets.map((t) => targetLabel(t, fmtTargetLimit));

export function buildCapacitySection(session: Session, set: TargetSet): CapacitySection {
  const rows = capacityWithinTargets(session, set).map((r) => [
    fmtContext(r.context),
    fmtCapacity(r),
    fmtTokPerSec(r.totalTokensPerSecond),
    fmtTokPerSec(r.perRequestTokensPerSecond),
    fmtBreak(r.brokenBy),
  ]);
  const notes = [
    'Capacity is the largest concurrency up to which every measured cell meets the targets; "Limited by" names the first cell that misses one (a cell that is not Valid misses them all, except a discarded one: a Looped cell has no figure, so the count passes over it and names it as not measured).',
    `A cell that misses any target is marked "${MISSES_TARGETS}" in the matrix and greyed in the heatmap.`,
  ];
  if (medianOnly(session)) {
    notes.push('This session holds medians only (imported), so percentile targets are checked against the median.');
  }
  return {
    title: CAPACITY_TITLE,
    targets: capacityTargetLabels(set),
    header: ['Context', 'Most requests at once', 'Total tok/s', 'Per request tok/s', 'Limited by'],
    rows: rows.length ? rows : [[NONE, 'none', NONE, NONE, NONE]],
    notes,
  };
}
