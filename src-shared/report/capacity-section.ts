/**
 * The reports' "Capacity within targets" section: for each context, the most requests at once
 * that meet every service-level target, and the throughput there. Built once for Markdown,
 * HTML, PDF and the app.
 */
import type { Session } from '../session/schema';
import { NONE, fmtContext, fmtMs, fmtMsPrecise, fmtTokPerSec } from './format';
import { type Target, type TargetSet, capacityWithinTargets, medianOnly, targetLabel } from './slo';

export interface CapacitySection {
  title: string;
  /** One line per target, e.g. "TTFT p90 ≤ 2,000 ms". */
  targets: string[];
  header: string[];
  rows: string[][];
  notes: string[];
}

const CAPACITY_TITLE = 'Capacity within targets';

/** A target's limit as people read it: times in ms (or s from 10 s), rates in tok/s. */
function fmtTargetLimit(t: Target): string {
  if (t.metric.kind === 'ttft' || t.metric.kind === 'e2e') return t.limit >= 10 ? `${t.limit} s` : fmtMs(t.limit);
  if (t.metric.kind === 'tbt') return fmtMsPrecise(t.limit);
  return `${fmtTokPerSec(t.limit)} tok/s`;
}

export function buildCapacitySection(session: Session, set: TargetSet): CapacitySection {
  const rows = capacityWithinTargets(session, set).map((r) => [
    fmtContext(r.context),
    r.concurrency === null ? 'none' : String(r.concurrency),
    fmtTokPerSec(r.totalTokensPerSecond),
    fmtTokPerSec(r.perRequestTokensPerSecond),
  ]);
  const notes = ['Only Valid cells count; a cell that misses any target is greyed in the heatmap.'];
  if (medianOnly(session)) {
    notes.push('This session holds medians only (imported), so percentile targets are checked against the median.');
  }
  return {
    title: CAPACITY_TITLE,
    targets: set.targets.map((t) => targetLabel(t, fmtTargetLimit)),
    header: ['Context', 'Most requests at once', 'Total tok/s', 'Per request tok/s'],
    rows: rows.length ? rows : [[NONE, 'none', NONE, NONE]],
    notes,
  };
}
