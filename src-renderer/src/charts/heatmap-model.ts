/**
 * The decode heatmap as data: rows are contexts, columns concurrency levels, colour is total
 * tok/s on the reports' zero-anchored scale (throughputColor). This adds what only the live app
 * has: planned cells and their reasons. Pure, so it is unit-tested without a browser.
 */
import { cellKey } from '@shared/cell-key';
import type { PlanCell } from '@shared/ipc/contract';
import type { CellStatus, DecodeCell } from '@shared/session/schema';
import { HAS_FIGURES, textColorOn, throughputColor } from '@shared/report/matrix-model';
import { NONE, fmtMs, statusWord, withFailed } from '../format';
import { fmtCellThroughput } from '@shared/report/confidence';

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
}

export interface HeatmapModel {
  contexts: number[];
  concurrency: number[];
  rows: HeatCell[][];
  min: number | null;
  max: number | null;
  statusesShown: CellStatus[];
}

export function buildHeatmap(
  contexts: readonly number[],
  concurrency: readonly number[],
  cells: readonly DecodeCell[],
  plan: readonly PlanCell[] = [],
): HeatmapModel {
  const byKey = new Map(cells.map((c) => [cellKey(c), c]));
  const planByKey = new Map(plan.map((p) => [cellKey(p), p]));
  const values = cells
    .filter((c) => HAS_FIGURES.has(c.status) && c.totalTokensPerSecond != null && c.totalTokensPerSecond > 0)
    .map((c) => c.totalTokensPerSecond as number);
  const min = values.length ? Math.min(...values) : null;
  const max = values.length ? Math.max(...values) : null;
  const shown = new Set<CellStatus>();
  const rows = [...contexts].sort((a, b) => a - b).map((context) =>
    [...concurrency].sort((a, b) => a - b).map((conc): HeatCell => {
      const key = cellKey({ context, concurrency: conc });
      const cell = byKey.get(key) ?? null;
      const base = { key, context, concurrency: conc, cell, reason: cell?.reason ?? null };
      if (cell && HAS_FIGURES.has(cell.status) && cell.totalTokensPerSecond != null) {
        const background = throughputColor(cell.totalTokensPerSecond, max ?? 0);
        if (cell.status !== 'valid') shown.add(cell.status);
        return {
          ...base,
          kind: 'value',
          status: cell.status,
          flag: cell.status === 'valid' ? null : statusWord(cell.status),
          line1: withFailed(`${fmtCellThroughput(cell)} tok/s`, cell.failedRequests),
          line2: cell.ttft ? `${fmtMs(cell.ttft.p50)} TTFT` : NONE,
          background,
          foreground: textColorOn(background),
        };
      }
      if (cell) {
        shown.add(cell.status);
        return { ...base, kind: 'status', status: cell.status, line1: statusWord(cell.status), line2: '', flag: null, background: null, foreground: null };
      }
      const planned = planByKey.get(key);
      if (planned && planned.status !== 'run') {
        shown.add(planned.status);
        return { ...base, kind: 'status', status: planned.status, line1: statusWord(planned.status), line2: '', flag: null, background: null, foreground: null, reason: planned.reason };
      }
      return { ...base, kind: planned ? 'planned' : 'empty', status: null, line1: '', line2: '', flag: null, background: null, foreground: null };
    }),
  );
  const order: CellStatus[] = ['looped', 'over-capacity', 'too-long', 'queued', 'stalled', 'error', 'cancelled', 'skipped'];
  return { contexts: [...contexts].sort((a, b) => a - b), concurrency: [...concurrency].sort((a, b) => a - b), rows, min, max, statusesShown: order.filter((s) => shown.has(s)) };
}
