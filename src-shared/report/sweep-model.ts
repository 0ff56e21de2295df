/**
 * A sweep of launch variants as data: the variants side by side, the best variant for every
 * cell (highest total tok/s among Valid cells; variants within its noise tie with it, by the
 * one rule of cell-difference.ts) and how many cells each wins outright. Pure: the sweep
 * reports (src-main/workflows/report/sweep.ts) and the app's comparison view are laid out from it.
 * See docs/sweeps.md.
 */
import type { CellStatus, Session } from '../session/schema';
import { STATUS_WORDS, countByStatus } from '../session/status-words';
import { NONE, fmtContext, fmtSeconds, fmtTokPerSec } from './format';
import { cellKey } from '../cell-key';
import { matrixAxes } from './matrix-model';
import { cellIndex } from '../cell-key';
import type { TableModel } from './report-model';
import { type ComparisonModel, compareSessions, labelOf, sessionTitle } from './compare-model';
import { cellDifference } from './cell-difference';
import { loadSessionsTable } from './load-compare';
import { START_TIME_LABEL, fmtStartTime } from './start-time';
import { START_PHASES, START_PHASE_LABELS } from '../session/start-phases';

/** A variant's launch settings: a sweep's `--vary` values, or none for sessions compared as files. */
interface SweepVariant {
  settings: { flag: string; value: string }[];
  /** "--max-num-seqs=64 --kv-cache-dtype=fp8", for people. */
  label: string;
  /** A file-safe name (a sweep's variants have one). */
  slug?: string;
}

export interface SweepEntry {
  variant: SweepVariant;
  /** The variant's session file name, relative to the sweep folder. */
  file: string;
  /** Null when the variant did not run (failed to start, or not reached yet), or its file could not be read. */
  session: Session | null;
  /** Why it did not run: the server's root cause. */
  failure: string | null;
  /** Why its session file could not be used (missing, or not a valid session), when the sweep says it ran. */
  unreadable?: string | null;
}

interface BestCell {
  context: number;
  concurrency: number;
  /** Index into the sweep's entries, or null when no variant has a Valid cell here. */
  entry: number | null;
  totalTokensPerSecond: number | null;
  /** Other entries whose Valid figure is the same as the best's within the noise: then nobody wins the cell. */
  tied: number[];
}

export interface SweepModel {
  labels: string[];
  variants: TableModel;
  best: { contexts: number[]; concurrency: number[]; rows: BestCell[][] };
  /** How many cells each entry wins outright (ties win nothing). */
  wins: number[];
  /** Each variant's server start, phase by phase; null when none recorded it. */
  starts: TableModel | null;
}

const ran = (e: SweepEntry): e is SweepEntry & { session: Session } => e.session !== null;

function bestCells(entries: readonly SweepEntry[]): SweepModel['best'] {
  const axes = entries.filter(ran).map((e) => matrixAxes(e.session));
  const contexts = [...new Set(axes.flatMap((a) => a.contexts))].sort((a, b) => a - b);
  const concurrency = [...new Set(axes.flatMap((a) => a.concurrency))].sort((a, b) => a - b);
  const indexes = entries.map((e) => (e.session ? cellIndex(e.session.cells) : null));
  const rows = contexts.map((context) =>
    concurrency.map((c): BestCell => {
      const valid = indexes.flatMap((index, i) => {
        const cell = index?.get(cellKey({ context, concurrency: c }));
        return cell?.status === 'valid' && cell.totalTokensPerSecond !== null ? [{ i, cell }] : [];
      });
      if (!valid.length) return { context, concurrency: c, entry: null, totalTokensPerSecond: null, tied: [] };
      const best = valid.reduce((a, b) => (b.cell.totalTokensPerSecond! > a.cell.totalTokensPerSecond! ? b : a));
      const tied = valid.filter((v) => v !== best && cellDifference(best.cell, v.cell)?.verdict === 'same');
      return {
        context,
        concurrency: c,
        entry: best.i,
        totalTokensPerSecond: best.cell.totalTokensPerSecond,
        tied: tied.map((t) => t.i),
      };
    }),
  );
  return { contexts, concurrency, rows };
}

/** An entry's outcome in words: its cells by status, or why it has none. */
function resultText(e: SweepEntry): string {
  if (e.failure) return `Did not start: ${e.failure}`;
  if (e.unreadable) return `Session file unusable: ${e.unreadable}`;
  if (!e.session) return 'not run yet';
  const counts = Object.entries(countByStatus(e.session)) as [CellStatus, number][];
  return counts.map(([status, n]) => `${STATUS_WORDS[status]} ${n}`).join(', ') || 'no cells';
}

/**
 * `kind`: a sweep's variants are told apart by their settings; sessions compared have none, so
 * each is told by what ran (its model, hardware and engine) beside its file, not its file twice.
 */
export function buildSweepModel(entries: readonly SweepEntry[], kind: 'sweep' | 'sessions' = 'sweep'): SweepModel {
  const labels = entries.map((_, i) => labelOf(i));
  const best = bestCells(entries);
  const wins = entries.map((_, i) => best.rows.flat().filter((b) => b.entry === i && !b.tied.length).length);
  const variants: TableModel = entries.some((e) => e.session?.load)
    ? loadSessionsTable(
        entries.map((e, i) => ({
          label: labels[i],
          file: e.file,
          load: e.session?.load ?? null,
          problem: e.failure ?? e.unreadable ?? null,
        })),
      )
    : {
        header:
          kind === 'sweep'
            ? ['Variant', 'Settings', 'Session file', 'Result', 'Best in cells', START_TIME_LABEL]
            : ['Session', 'What ran', 'Session file', 'Result', 'Best in cells', START_TIME_LABEL],
        rows: entries.map((e, i) => [
          labels[i],
          kind === 'sweep' ? e.variant.label || '(as given)' : e.session ? sessionTitle(e.session) : NONE,
          e.session ? e.file : NONE,
          resultText(e),
          String(wins[i]),
          fmtStartTime(e.session?.server.startPhases),
        ]),
      };
  return { labels, variants, best, wins, starts: startTable(entries, labels) };
}

/** "B", or "A = B" when variants tie within the noise (the best first). */
export function bestLabel(m: Pick<SweepModel, 'labels'>, b: BestCell): string {
  return b.entry === null ? NONE : [b.entry, ...b.tied].map((i) => m.labels[i]).join(' = ');
}

export function bestTable(m: SweepModel): TableModel {
  return {
    header: ['Context', ...m.best.concurrency.map(String)],
    rows: m.best.rows.map((row, i) => [
      fmtContext(m.best.contexts[i], m.best.contexts),
      ...row.map((b) => (b.entry === null ? NONE : `${bestLabel(m, b)} · ${fmtTokPerSec(b.totalTokensPerSecond)}`)),
    ]),
  };
}

/**
 * The server's start per variant, phase by phase (a flag such as --enforce-eager changes it more
 * than throughput): a row per phase any variant's log showed, then the whole start; "—" where a
 * variant's log did not show the phase. Null when no variant recorded its start.
 */
function startTable(entries: readonly SweepEntry[], labels: readonly string[]): TableModel | null {
  const recorded = entries.map((e) => e.session?.server.startPhases ?? []);
  const shown = START_PHASES.filter((phase) => recorded.some((r) => r.some((p) => p.phase === phase)));
  if (!shown.length) return null;
  return {
    header: ['Phase', ...labels],
    rows: [
      ...shown.map((phase) => [
        START_PHASE_LABELS[phase],
        ...recorded.map((r) => fmtSeconds(r.find((p) => p.phase === phase)?.seconds)),
      ]),
      ['Launch to ready', ...recorded.map((r) => fmtStartTime(r))],
    ],
  };
}

export const START_CAPTION =
  'Seconds from the launch to the line that ends each phase of the server log, measured by SpeedMatrix; a phase the engine did not print counts in the next one shown.';

export const BEST_CAPTION =
  'For each cell, the variant with the highest total tok/s among Valid cells, and that figure. Variants within its noise are the same ("A = B") and win nothing.';
export const TOO_FEW_RAN = 'Fewer than two variants ran, so there is nothing to compare.';

/**
 * The comparison of the entries that ran, each keeping its letter in the sweep (B stays B when
 * A did not start); null when fewer than two ran.
 */
export function sweepComparison(entries: readonly SweepEntry[], m: SweepModel): ComparisonModel | null {
  const ranAt = entries.flatMap((e, i) => (ran(e) ? [i] : []));
  if (ranAt.length < 2) return null;
  return compareSessions(
    ranAt.map((i) => entries[i].session as Session),
    ranAt.map((i) => m.labels[i]),
  );
}
