/**
 * Display text for the renderer. Numbers come from report/format.ts (the same formatting as
 * the reports); this adds the labels a screen needs, and every number leaves with its unit.
 */
import { NONE, fmtContext, fmtTokPerSec } from '#shared/report/format';
import type { CellStatus } from '#shared/session/schema';
import { STATUSES } from '#shared/session/status-words';

export { legendText } from '#shared/session/status-words';

export * from '#shared/report/format';

/** "34.6K tok/s", "2,646.7 tok/s", "—". */
export const tokPerSec = (v: number | null | undefined): string => (v == null ? NONE : `${fmtTokPerSec(v)} tok/s`);

export const statusWord = (s: CellStatus): string => STATUSES[s].word;

/** The class that paints a status in its colour family (styles.css): "tone-caution". */
export const toneClass = (s: CellStatus): string => `tone-${STATUSES[s].tone}`;

/** "8K context · 32 requests". */
export const cellName = (c: { context: number; concurrency: number }): string =>
  `${fmtContext(c.context)} context · ${c.concurrency} request${c.concurrency === 1 ? '' : 's'} at once`;
