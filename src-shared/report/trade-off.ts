/**
 * The throughput trade-off: for each context, what one request gets (per-request tok/s) against
 * what the server delivers in all (total tok/s) as requests at once grow. A line per context, its
 * points in order of concurrency, so the bend where adding requests stops paying shows. Pure: the
 * app's Results view draws it.
 */
import type { CellStatus, DecodeCell } from '../session/schema';
import { cellIndex } from '../cell-key';
import { hasFigure } from '../session/status-words';
import { fmtContexts } from './format';

export interface TradeOffPoint {
  concurrency: number;
  /** Tokens per second, all requests together and one request's own. */
  total: number;
  perRequest: number;
  /** Valid, or a status that keeps its figure with a caveat (Requests queued). */
  status: CellStatus;
}

export interface TradeOffLine {
  context: number;
  /** The context as the chart's legend names it ("8K", "8.5K" beside 8K). */
  label: string;
  points: TradeOffPoint[];
}

/** One line per context with at least one cell that kept both figures; a rerun cell counts once, as measured last. */
export function tradeOffLines(decodeCells: readonly DecodeCell[]): TradeOffLine[] {
  const cells = [...cellIndex(decodeCells).values()].filter(
    (c) => hasFigure(c.status) && c.totalTokensPerSecond !== null && c.perRequestTokensPerSecond !== null,
  );
  const contexts = [...new Set(cells.map((c) => c.context))].sort((a, b) => a - b);
  const labels = fmtContexts(contexts);
  return contexts.map((context, i) => ({
    context,
    label: labels[i],
    points: cells
      .filter((c) => c.context === context)
      .sort((a, b) => a.concurrency - b.concurrency)
      .map((c) => ({
        concurrency: c.concurrency,
        total: c.totalTokensPerSecond!,
        perRequest: c.perRequestTokensPerSecond!,
        status: c.status,
      })),
  }));
}
