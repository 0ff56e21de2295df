/**
 * Display text for the renderer. Numbers come from report/format.ts (the same formatting as
 * the reports); this adds the labels a screen needs, and every number leaves with its unit.
 */
import {
  NONE,
  fmtContext,
  fmtDuration,
  fmtMs,
  fmtMsPrecise,
  fmtOneDecimal,
  fmtSeconds,
  fmtTokPerSec,
} from '../../src-main/report/format';
import { type CellStatus, type DecodeCell, STATUS_WORDS } from '../../src-main/session/schema';

export * from '../../src-main/report/format';

/** "34.6K tok/s", "2,646.7 tok/s", "—". */
export const tokPerSec = (v: number | null | undefined): string => (v == null ? NONE : `${fmtTokPerSec(v)} tok/s`);

/** "236 ms TTFT" or "—". */
export const ttftLabel = (seconds: number | null | undefined): string =>
  seconds == null ? NONE : `${fmtMs(seconds)} TTFT`;

export const statusWord = (s: CellStatus): string => STATUS_WORDS[s];

/** What a status means, as the reference report's legend says it. */
export const STATUS_LEGEND: Record<CellStatus, string> = {
  valid: 'measured and passed every check.',
  looped: 'the model kept repeating the same text, so the benchmark discarded this measurement.',
  'over-capacity': "not run because this many requests at this context would exceed the server's KV cache.",
  'too-long': 'not run because the context plus the output would exceed the maximum model length.',
  queued: 'requests waited in the server queue during the window, so the figure is not sustained decode at this concurrency.',
  error: 'the server returned an error or stopped answering; the reason is in the cell detail.',
  cancelled: 'stopped before the measurement finished.',
  skipped: 'not run.',
};

/** Heatmap cell text: tok/s on the first line, TTFT on the second, or the status word. */
export function cellLines(cell: DecodeCell): [string, string] {
  if (cell.status !== 'valid') return [statusWord(cell.status), ''];
  return [tokPerSec(cell.totalTokensPerSecond), ttftLabel(cell.ttft?.p50)];
}

/** "8K context · 32 requests". */
export const cellName = (c: { context: number; concurrency: number }): string =>
  `${fmtContext(c.context)} context · ${c.concurrency} request${c.concurrency === 1 ? '' : 's'} at once`;

export { fmtDuration, fmtMsPrecise, fmtOneDecimal, fmtSeconds };
