/** The All measurements table as rows, in the reference report's columns and units, sortable. */
import { cellKey } from '@shared/cell-key';
import type { Session } from '@shared/session/schema';
import { fmtCellThroughput } from '@shared/report/confidence';
import { NONE, fmtContext, fmtCount, fmtMs, fmtMsPrecise, fmtOneDecimal, fmtSeconds, fmtTokPerSec, statusWord, withFailed } from '../../format';
import type { SortColumn } from '../../store/session-slice';

export interface MeasurementRow {
  key: string;
  phase: 'Prefill' | 'Sustained decode';
  cellKey: string | null;
  sort: Record<SortColumn, number | string | null>;
  text: string[];
}

export const COLUMNS: { id: SortColumn | 'phase'; label: string }[] = [
  { id: 'phase', label: 'Phase' },
  { id: 'context', label: 'Context' },
  { id: 'concurrency', label: 'Requests at once' },
  { id: 'status', label: 'Status' },
  { id: 'total', label: 'Total tok/s' },
  { id: 'perRequest', label: 'Per request tok/s' },
  { id: 'ttft', label: 'TTFT' },
  { id: 'tbt', label: 'Time between tokens' },
  { id: 'active', label: 'Average active requests' },
  { id: 'completed', label: 'Completed requests' },
  { id: 'output', label: 'Output tokens' },
  { id: 'window', label: 'Measured for' },
];

export function measurementRows(session: Session): MeasurementRow[] {
  const rows: MeasurementRow[] = [];
  for (const p of [...session.prefill].sort((a, b) => a.context - b.context)) {
    rows.push({
      key: `p${p.context}`,
      phase: 'Prefill',
      cellKey: null,
      sort: { context: p.context, concurrency: 1, status: p.status, total: p.tokensPerSecond, perRequest: null, ttft: p.ttftSeconds, tbt: null, active: null, completed: 1, output: null, window: null },
      text: ['Prefill', fmtContext(p.context), '1', statusWord(p.status), fmtTokPerSec(p.tokensPerSecond), NONE, fmtMs(p.ttftSeconds), NONE, NONE, p.status === 'valid' ? '1' : '0', NONE, NONE],
    });
  }
  const cells = [...session.cells].sort((a, b) => a.context - b.context || a.concurrency - b.concurrency);
  for (const c of cells) {
    const notRun = c.status === 'over-capacity' || c.status === 'too-long' || c.status === 'skipped';
    rows.push({
      key: `d${cellKey(c)}`,
      phase: 'Sustained decode',
      cellKey: cellKey(c),
      sort: {
        context: c.context,
        concurrency: c.concurrency,
        status: c.status,
        total: c.totalTokensPerSecond,
        perRequest: c.perRequestTokensPerSecond,
        ttft: c.ttft?.p50 ?? null,
        tbt: c.timeBetweenTokens?.p50 ?? null,
        active: c.avgActiveRequests,
        completed: c.completedRequests,
        output: c.outputTokens,
        window: c.windowSeconds,
      },
      text: [
        'Sustained decode',
        fmtContext(c.context),
        String(c.concurrency),
        statusWord(c.status),
        withFailed(fmtCellThroughput(c), c.failedRequests),
        fmtTokPerSec(c.perRequestTokensPerSecond),
        fmtMs(c.ttft?.p50),
        fmtMsPrecise(c.timeBetweenTokens?.p50),
        fmtOneDecimal(c.avgActiveRequests),
        notRun ? NONE : fmtCount(c.completedRequests ?? 0),
        notRun ? NONE : fmtCount(c.outputTokens ?? 0),
        fmtSeconds(c.windowSeconds),
      ],
    });
  }
  return rows;
}

/** Sorted copy; missing values always go last, whatever the direction. */
export function sortRows(rows: MeasurementRow[], sort: { column: SortColumn; descending: boolean } | null): MeasurementRow[] {
  if (!sort) return rows;
  const dir = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = a.sort[sort.column];
    const y = b.sort[sort.column];
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * dir;
  });
}
