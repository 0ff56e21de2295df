/**
 * The decode heatmap as data: rows are contexts, columns concurrency levels, colour is the
 * chosen metric (total tok/s unless told) on the reports' zero-anchored scale (metricColor).
 * This adds what only the live app has: planned cells and their reasons, and cells greyed for
 * missing the service-level targets. Pure, so it is unit-tested without a browser.
 */
import { cellKey } from '@shared/cell-key';
import type { PlanCell } from '@shared/ipc/contract';
import type { CellStatus, DecodeCell } from '@shared/session/schema';
import { CELL_METRIC_DEFS, type CellMetric } from '@shared/report/cell-metrics';
import {
  HAS_FIGURES,
  MISSED_TARGET_FILL,
  type MatrixView,
  TOTAL_VIEW,
  metricCellText,
  metricColor,
  textColorOn,
} from '@shared/report/matrix-model';
import { meetsTargets } from '@shared/report/slo';
import { NONE, fmtMs, fmtTokPerSec, statusWord, withFailed } from '../format';
import { fmtCellThroughput } from '@shared/report/confidence';

/** What the heatmap shows: the reports' matrix view (a metric, and targets whose misses are greyed). */
export type HeatmapView = MatrixView;

export interface HeatCell {
  key: string;
  context: number;
  concurrency: number;
  kind: 'value' | 'status' | 'planned' | 'empty';
  status: CellStatus | null;
  line1: string;
  line2: string;
  /** A word beside the figures, e.g. "Requests queued". */
  flag: string | null;
  background: string | null;
  foreground: string | null;
  cell: DecodeCell | null;
  reason: string | null;
  /** True when targets are set and this measured cell misses one of them. */
  missesTargets: boolean;
}

export interface HeatmapModel {
  contexts: number[];
  concurrency: number[];
  rows: HeatCell[][];
  min: number | null;
  max: number | null;
  metric: CellMetric;
  statusesShown: CellStatus[];
}

export function buildHeatmap(
  contexts: readonly number[],
  concurrency: readonly number[],
  cells: readonly DecodeCell[],
  plan: readonly PlanCell[] = [],
  view: HeatmapView = TOTAL_VIEW,
): HeatmapModel {
  const def = CELL_METRIC_DEFS[view.metric];
  const valueOf = (c: DecodeCell): number | null =>
    HAS_FIGURES.has(c.status) && c.totalTokensPerSecond != null ? def.value(c, view.ctx) : null;
  const byKey = new Map(cells.map((c) => [cellKey(c), c]));
  const planByKey = new Map(plan.map((p) => [cellKey(p), p]));
  const values = cells.map(valueOf).filter((v): v is number => v !== null && v > 0);
  const min = values.length ? Math.min(...values) : null;
  const max = values.length ? Math.max(...values) : null;
  const shown = new Set<CellStatus>();
  const rows = [...contexts]
    .sort((a, b) => a - b)
    .map((context) =>
      [...concurrency]
        .sort((a, b) => a - b)
        .map((conc): HeatCell => {
          const key = cellKey({ context, concurrency: conc });
          const cell = byKey.get(key) ?? null;
          const missesTargets = !!(cell && view.targets && !meetsTargets(cell, view.targets.set, view.targets.medians));
          const base = { key, context, concurrency: conc, cell, reason: cell?.reason ?? null, missesTargets };
          if (cell && HAS_FIGURES.has(cell.status) && cell.totalTokensPerSecond != null) {
            const value = valueOf(cell);
            const background = missesTargets
              ? MISSED_TARGET_FILL
              : value === null
                ? null
                : metricColor(value, max ?? 0, def.better);
            if (cell.status !== 'valid') shown.add(cell.status);
            return {
              ...base,
              kind: 'value',
              status: cell.status,
              flag: cell.status === 'valid' ? null : statusWord(cell.status),
              line1: withFailed(
                view.metric === 'total' ? `${fmtCellThroughput(cell)} tok/s` : metricCellText(view.metric, value),
                cell.failedRequests,
              ),
              line2: secondLine(view.metric, cell),
              background,
              foreground: background ? textColorOn(background) : null,
            };
          }
          if (cell) {
            shown.add(cell.status);
            return {
              ...base,
              kind: 'status',
              status: cell.status,
              line1: statusWord(cell.status),
              line2: '',
              flag: null,
              background: null,
              foreground: null,
            };
          }
          const planned = planByKey.get(key);
          if (planned && planned.status !== 'run') {
            shown.add(planned.status);
            return {
              ...base,
              kind: 'status',
              status: planned.status,
              line1: statusWord(planned.status),
              line2: '',
              flag: null,
              background: null,
              foreground: null,
              reason: planned.reason,
            };
          }
          return {
            ...base,
            kind: planned ? 'planned' : 'empty',
            status: null,
            line1: '',
            line2: '',
            flag: null,
            background: null,
            foreground: null,
          };
        }),
    );
  const order: CellStatus[] = [
    'looped',
    'over-capacity',
    'too-long',
    'queued',
    'stalled',
    'error',
    'cancelled',
    'skipped',
  ];
  return {
    contexts: [...contexts].sort((a, b) => a - b),
    concurrency: [...concurrency].sort((a, b) => a - b),
    rows,
    min,
    max,
    metric: view.metric,
    statusesShown: order.filter((s) => shown.has(s)),
  };
}

/** The cell's second line: its TTFT, or its total tok/s when TTFT is the first line. */
function secondLine(metric: CellMetric, cell: DecodeCell): string {
  if (metric === 'ttft') return `${fmtTokPerSec(cell.totalTokensPerSecond)} tok/s total`;
  return cell.ttft ? `${fmtMs(cell.ttft.p50)} TTFT` : NONE;
}
