/**
 * The decode heatmap as the app draws it: the reports' matrix model (src-shared/report/matrix-model.ts
 * lays out the axes, each cell's text, its colour and the cells that miss the targets), with tok/s
 * written in each cell, plus what only the live app has: planned cells with the plan's reasons,
 * and the statuses its legend explains. Pure, so it is unit-tested without a browser.
 */
import { cellKey } from '#shared/cell-key';
import type { PlanCell } from '#shared/ipc/contract';
import type { CellStatus, DecodeCell } from '#shared/session/schema';
import { legendStatuses } from '#shared/session/status-words';
import { CELL_METRIC_DEFS, type CellMetric } from '#shared/report/cell-metrics';
import {
  type MatrixCellView,
  type MatrixView,
  TOTAL_VIEW,
  decodeCellFill,
  decodeMatrix,
  textColorOn,
} from '#shared/report/matrix-model';
import { cellIndex } from '#shared/cell-key';
import { statusWord } from '../format';

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
  /** The largest figure, where the colour key ends; null when no cell has one. */
  max: number | null;
  metric: CellMetric;
  /** The statuses the legend explains, in the legend's order. */
  statusesShown: CellStatus[];
}

export function buildHeatmap(
  contexts: readonly number[],
  concurrency: readonly number[],
  cells: readonly DecodeCell[],
  plan: readonly PlanCell[] = [],
  view: MatrixView = TOTAL_VIEW,
): HeatmapModel {
  const m = decodeMatrix({ contexts, concurrency }, cells, { ...view, unitInCells: true });
  const better = CELL_METRIC_DEFS[m.metric].better;
  const byKey = cellIndex(cells);
  const planByKey = new Map(plan.map((p) => [cellKey(p), p]));
  const rows = m.rows.map((row) =>
    row.map((c) => {
      const key = cellKey(c);
      return heatCell(c, byKey.get(key) ?? null, planByKey.get(key), m.maxValue, better);
    }),
  );
  const shown = new Set(rows.flat().flatMap((c) => (c.status ? [c.status] : [])));
  return {
    contexts: m.contexts,
    concurrency: m.concurrency,
    rows,
    max: m.maxValue > 0 ? m.maxValue : null,
    metric: m.metric,
    statusesShown: legendStatuses(shown),
  };
}

function heatCell(
  c: MatrixCellView,
  cell: DecodeCell | null,
  planned: PlanCell | undefined,
  maxValue: number,
  better: 'higher' | 'lower',
): HeatCell {
  const base = {
    key: cellKey(c),
    context: c.context,
    concurrency: c.concurrency,
    cell,
    reason: cell?.reason ?? null,
    missesTargets: c.missesTargets,
    line2: '',
    flag: null,
    background: null,
    foreground: null,
  };
  if (c.kind === 'value') {
    // A figure the metric cannot give (cost without a price) keeps the theme's cell colour.
    const background = c.value === null && !c.missesTargets ? null : decodeCellFill(c, maxValue, better);
    const foreground = background ? textColorOn(background) : null;
    return {
      ...base,
      kind: 'value',
      status: c.status,
      line1: c.text,
      line2: c.detail,
      flag: c.flag,
      background,
      foreground,
    };
  }
  if (c.kind === 'status') return { ...base, kind: 'status', status: c.status, line1: c.text };
  if (planned && planned.status !== 'run')
    return {
      ...base,
      kind: 'status',
      status: planned.status,
      line1: statusWord(planned.status),
      reason: planned.reason,
    };
  return { ...base, kind: planned ? 'planned' : 'empty', status: null, line1: '' };
}
