/**
 * Status words, apart from the zod schema so the renderer can show them without bundling zod
 * (the page only needs the schema's types). schema.ts re-exports them for main.
 */
import type { CellStatus, Session } from './schema';

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

/** How many of a session's cells have each status. */
export function countByStatus(session: Session): Partial<Record<CellStatus, number>> {
  const counts: Partial<Record<CellStatus, number>> = {};
  for (const c of session.cells) counts[c.status] = (counts[c.status] ?? 0) + 1;
  return counts;
}
