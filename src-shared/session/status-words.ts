/**
 * Status words, apart from the zod schema so the renderer can show them without bundling zod
 * (the page only needs the schema's types). schema.ts re-exports them for main.
 */
import type { CellStatus } from './schema';

/** Words used on screen and in reports for each status, as in the reference report. */
export const STATUS_WORDS: Record<CellStatus, string> = {
  valid: 'Valid',
  'over-capacity': 'Over capacity',
  'too-long': 'Too long',
  queued: 'Requests queued',
  stalled: 'Stream stalled',
  looped: 'Looped',
  error: 'Error',
  cancelled: 'Cancelled',
  skipped: 'Skipped',
};
