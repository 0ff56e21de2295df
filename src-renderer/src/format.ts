/**
 * Display text for the renderer. Numbers come from report/format.ts (the same formatting as
 * the reports); this adds the labels a screen needs, and every number leaves with its unit.
 */
import { NONE, fmtContext, fmtDuration, fmtTokPerSec, plural } from '#shared/report/format';
import type { LiveStage } from '#shared/ipc/contract';
import type { CellStatus } from '#shared/session/schema';
import { STATUSES } from '#shared/session/status-words';

export { legendText } from '#shared/session/status-words';

export * from '#shared/report/format';

/** "34.6K tok/s", "2,646.7 tok/s", "—". */
export const tokPerSec = (v: number | null | undefined): string => (v == null ? NONE : `${fmtTokPerSec(v)} tok/s`);

export const statusWord = (s: CellStatus): string => STATUSES[s].word;

/** The class that paints a status in its colour family (styles.css): "tone-caution". */
export const toneClass = (s: CellStatus): string => `tone-${STATUSES[s].tone}`;

/** What the live cell is doing, in words ("waiting for every request to run", not "readiness"). */
export const LIVE_STAGE_WORDS: Readonly<Record<LiveStage, string>> = {
  prefill: 'prefill',
  starting: 'starting',
  warmup: 'warming up',
  calibration: 'calibrating',
  'idle-gate': 'waiting for the server to go idle',
  readiness: 'waiting for every request to run',
  window: 'measuring',
  cooldown: 'cooling down',
  'ramping up': 'ramping up',
  measuring: 'measuring',
};

/** "3 active requests", "1 active request". */
export const activeRequests = (n: number): string => plural(n, 'active request');

/** "about 2 min 10 s left", or "finishing" once less than a second is left ("about 0 s left" says nothing). */
export const timeLeft = (seconds: number): string =>
  Math.round(seconds) < 1 ? 'finishing' : `about ${fmtDuration(seconds)} left`;

/** "8K context · 32 requests". */
export const cellName = (c: { context: number; concurrency: number }): string =>
  `${fmtContext(c.context)} context · ${c.concurrency} request${c.concurrency === 1 ? '' : 's'} at once`;
