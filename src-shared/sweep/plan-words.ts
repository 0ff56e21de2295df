/**
 * A sweep's plan in words: the one sentence the CLI prints (after "Sweep plan:") and the app's
 * Run view shows, from the figures of `planSweep` (docs/sweeps.md).
 */
import { fmtDuration, plural } from '../report/format';
import { STATUS_WORDS } from '../session/status-words';

/** What a sweep will do (docs/sweeps.md): the same figures as the CLI's plan line. */
export interface SweepPlanFigures {
  variants: number;
  /** Variants not done yet; each gets its own server start. */
  toRun: number;
  serverStarts: number;
  /** Cells each variant runs at most: Over capacity is known only once its server is up. */
  cellsPerVariant: number;
  cells: number;
  /** Cells planned as Requests queued: above their variant's running-request cap (--max-num-seqs). */
  queuedCells: number;
  secondsPerVariant: number;
  /** Measuring time of the variants to run, server starts left out. */
  measuringSeconds: number;
  /** Time the server starts of the variants to run take, where their commands say (the simulator's); else null. */
  serverStartSeconds: number | null;
}

/** "about 5 min with the server starts", or "about 4 min of measuring plus the server starts" when they are not known. */
export function sweepTimeText(p: SweepPlanFigures): string {
  return p.serverStartSeconds === null
    ? `about ${fmtDuration(p.measuringSeconds)} of measuring plus the server starts`
    : `about ${fmtDuration(p.measuringSeconds + p.serverStartSeconds)} with the server starts`;
}

/** "2 of 3 variants to run (2 server starts), up to 4 cells each (8 in all; ...), about 3 min with the server starts". */
export function sweepPlanWords(p: SweepPlanFigures): string {
  const queued = p.queuedCells
    ? `, ${p.queuedCells} planned as ${STATUS_WORDS.queued} (above a variant's --max-num-seqs)`
    : '';
  return `${p.toRun} of ${plural(p.variants, 'variant')} to run (${plural(p.serverStarts, 'server start')}), up to ${plural(p.cellsPerVariant, 'cell')} each (${p.cells} in all${queued}; ${STATUS_WORDS['over-capacity']} is known once each server is up), ${sweepTimeText(p)}`;
}
