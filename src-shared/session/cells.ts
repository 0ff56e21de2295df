/** How a finished cell or prefill point joins a session, the same in main and the page (docs/ipc.md). */
import { cellKey } from '../cell-key';
import type { DecodeCell, PrefillResult } from './schema';

export function withCell(cells: DecodeCell[], cell: DecodeCell): DecodeCell[] {
  const key = cellKey(cell);
  const i = cells.findIndex((c) => cellKey(c) === key);
  return i >= 0 ? cells.map((c, j) => (j === i ? cell : c)) : [...cells, cell];
}

export function withPrefill(prefill: PrefillResult[], point: PrefillResult): PrefillResult[] {
  return [...prefill.filter((p) => p.context !== point.context), point].sort((a, b) => a.context - b.context);
}

/** The cells as the page holds them (`requests` null, no `repetitionRequests`), and how many samples each held, by cellKey. */
export function withoutSamples(cells: DecodeCell[]): { cells: DecodeCell[]; requestCounts: Record<string, number> } {
  const requestCounts: Record<string, number> = {};
  const stripped = cells.map((c) => {
    if (!c.requests && !c.repetitionRequests) return c;
    const others = (c.repetitionRequests ?? []).reduce((n, r) => n + r.requests.sentAt.length, 0);
    requestCounts[cellKey(c)] = (c.requests?.sentAt.length ?? 0) + others;
    const { repetitionRequests: _left, ...kept } = c;
    return { ...kept, requests: null };
  });
  return { cells: stripped, requestCounts };
}
