/**
 * Display text for the renderer. Numbers come from report/format.ts (the same formatting as
 * the reports); this adds the labels a screen needs, and every number leaves with its unit.
 */
import {
  NONE,
  fmtContext,
  fmtDuration,
  fmtMsPrecise,
  fmtOneDecimal,
  fmtSeconds,
  fmtTokPerSec,
} from '@shared/report/format';
import { LEGEND } from '@shared/report/report-model';
import type { CellStatus } from '@shared/session/schema';
import { STATUS_WORDS } from '@shared/session/status-words';

export * from '@shared/report/format';

/** "34.6K tok/s", "2,646.7 tok/s", "—". */
export const tokPerSec = (v: number | null | undefined): string => (v == null ? NONE : `${fmtTokPerSec(v)} tok/s`);

export const statusWord = (s: CellStatus): string => STATUS_WORDS[s];

/** What a status means, in the reports' own legend words (without the leading "Word: "). */
export const legendText = (s: CellStatus): string => LEGEND[s].replace(/^[^:]+:\s*/, '');

/** "8K context · 32 requests". */
export const cellName = (c: { context: number; concurrency: number }): string =>
  `${fmtContext(c.context)} context · ${c.concurrency} request${c.concurrency === 1 ? '' : 's'} at once`;

export { fmtDuration, fmtMsPrecise, fmtOneDecimal, fmtSeconds };
