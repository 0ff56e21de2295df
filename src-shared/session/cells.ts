/**
 * How a finished cell or prefill point joins a session, and a session's cells without their
 * per-request samples. Main's session owner and the page apply run events with the same
 * functions, so the page's copy cannot drift from main's (docs/ipc.md).
 */
import { cellKey } from '../cell-key';
import type { DecodeCell, PrefillResult } from './schema';

/** A finished cell replaces the cell it reruns, else joins the end. */
export function withCell(cells: DecodeCell[], cell: DecodeCell): DecodeCell[] {
  const key = cellKey(cell);
  const i = cells.findIndex((c) => cellKey(c) === key);
  return i >= 0 ? cells.map((c, j) => (j === i ? cell : c)) : [...cells, cell];
}

/** One prefill point per context, in context order. */
export function withPrefill(prefill: PrefillResult[], point: PrefillResult): PrefillResult[] {
  return [...prefill.filter((p) => p.context !== point.context), point].sort((a, b) => a.context - b.context);
}

/** The cells as the page holds them (`requests` null), and how many samples each held, by cellKey. */
export function withoutSamples(cells: DecodeCell[]): { cells: DecodeCell[]; requestCounts: Record<string, number> } {
  const requestCounts: Record<string, number> = {};
  const stripped = cells.map((c) => {
    if (!c.requests) return c;
    requestCounts[cellKey(c)] = c.requests.sentAt.length;
    return { ...c, requests: null };
  });
  return { cells: stripped, requestCounts };
}
