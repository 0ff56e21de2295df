/**
 * The sweep report (`sweep.md`, `sweep.html`): the launch variants side by side, the best
 * variant for every cell (highest total tok/s among Valid cells), then the ordinary comparison
 * of the variants that ran (settings that differ, ratio heatmaps against the first). A variant
 * that failed to start is listed with its root cause. See docs/sweeps.md.
 */
import { type CellStatus, type Session, STATUS_WORDS } from '../../src-shared/session/schema';
import { NONE, fmtContext, fmtTokPerSec } from '../../src-shared/report/format';
import { cellKey } from '../../src-shared/cell-key';
import { cellIndex, matrixAxes } from '../../src-shared/report/matrix-model';
import type { TableModel } from '../../src-shared/report/report-model';
import { countByStatus } from '../session/summary';
import type { Variant } from '../../src-shared/sweep/variants';
import { compareHtmlSections, compareMarkdownSections, compareSessions, labelOf } from './compare';
import { escapeHtml as esc, escapeMarkdownLine as line } from './escape';
import { htmlDocument, htmlTable } from './html';
import { markdownTable } from './markdown';

export interface SweepEntry {
  variant: Variant;
  /** The variant's session file name, relative to the sweep folder. */
  file: string;
  /** Null when the variant did not run (failed to start, or not reached yet). */
  session: Session | null;
  /** Why it did not run: the server's root cause. */
  failure: string | null;
}

export interface BestCell {
  context: number;
  concurrency: number;
  /** Index into the sweep's entries, or null when no variant has a Valid cell here. */
  entry: number | null;
  totalTokensPerSecond: number | null;
}

export interface SweepModel {
  labels: string[];
  variants: TableModel;
  best: { contexts: number[]; concurrency: number[]; rows: BestCell[][] };
  /** How many cells each entry wins. */
  wins: number[];
}

const ran = (e: SweepEntry): e is SweepEntry & { session: Session } => e.session !== null;

function bestCells(entries: readonly SweepEntry[]): SweepModel['best'] {
  const sessions = entries.filter(ran).map((e) => e.session);
  const axes = sessions.map(matrixAxes);
  const contexts = [...new Set(axes.flatMap((a) => a.contexts))].sort((a, b) => a - b);
  const concurrency = [...new Set(axes.flatMap((a) => a.concurrency))].sort((a, b) => a - b);
  const indexes = entries.map((e) => (e.session ? cellIndex(e.session.cells) : null));
  const rows = contexts.map((context) =>
    concurrency.map((c): BestCell => {
      let best: BestCell = { context, concurrency: c, entry: null, totalTokensPerSecond: null };
      indexes.forEach((index, i) => {
        const cell = index?.get(cellKey({ context, concurrency: c }));
        const v = cell?.status === 'valid' ? cell.totalTokensPerSecond : null;
        if (v !== null && v !== undefined && (best.totalTokensPerSecond === null || v > best.totalTokensPerSecond)) {
          best = { context, concurrency: c, entry: i, totalTokensPerSecond: v };
        }
      });
      return best;
    }),
  );
  return { contexts, concurrency, rows };
}

export function buildSweepModel(entries: readonly SweepEntry[]): SweepModel {
  const labels = entries.map((_, i) => labelOf(i));
  const best = bestCells(entries);
  const wins = entries.map((_, i) => best.rows.flat().filter((b) => b.entry === i).length);
  const variants: TableModel = {
    header: ['Variant', 'Settings', 'Session file', 'Result', 'Best in cells'],
    rows: entries.map((e, i) => {
      const counts = e.session ? countByStatus(e.session) : null;
      const result = e.failure
        ? `Did not start: ${e.failure}`
        : counts
          ? (Object.entries(counts) as [CellStatus, number][])
              .map(([status, n]) => `${STATUS_WORDS[status]} ${n}`)
              .join(', ') || 'no cells'
          : 'not run yet';
      return [labels[i], e.variant.label || '(as given)', e.session ? e.file : NONE, result, String(wins[i])];
    }),
  };
  return { labels, variants, best, wins };
}

function bestTable(m: SweepModel): TableModel {
  return {
    header: ['Context', ...m.best.concurrency.map(String)],
    rows: m.best.rows.map((row, i) => [
      fmtContext(m.best.contexts[i]),
      ...row.map((b) => (b.entry === null ? NONE : `${m.labels[b.entry]} · ${fmtTokPerSec(b.totalTokensPerSecond)}`)),
    ]),
  };
}

const BEST_CAPTION = 'For each cell, the variant with the highest total tok/s among Valid cells, and that figure.';

function comparable(entries: readonly SweepEntry[]): Session[] {
  return entries.filter(ran).map((e) => e.session);
}

export function renderSweepMarkdown(entries: readonly SweepEntry[]): string {
  const m = buildSweepModel(entries);
  const out: string[] = ['Speed test matrix sweep', '', `# Sweep of ${entries.length} launch variants`, ''];
  out.push('## Variants', '', markdownTable(m.variants), '');
  out.push('## Best variant per cell', '', line(BEST_CAPTION), '', markdownTable(bestTable(m)), '');
  const sessions = comparable(entries);
  if (sessions.length >= 2) out.push(...compareMarkdownSections(compareSessions(sessions)));
  else out.push('Fewer than two variants ran, so there is nothing to compare.', '');
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

export function renderSweepHtml(entries: readonly SweepEntry[]): string {
  const m = buildSweepModel(entries);
  const out: string[] = [
    '<p class="kicker">Speed test matrix sweep</p>',
    `<h1>${esc(`Sweep of ${entries.length} launch variants`)}</h1>`,
  ];
  out.push('<h2>Variants</h2>', htmlTable(m.variants, 'variants'));
  out.push(
    '<h2>Best variant per cell</h2>',
    `<p class="caption">${esc(BEST_CAPTION)}</p>`,
    htmlTable(bestTable(m), 'best'),
  );
  const sessions = comparable(entries);
  if (sessions.length >= 2) out.push(...compareHtmlSections(compareSessions(sessions)));
  else out.push('<p>Fewer than two variants ran, so there is nothing to compare.</p>');
  return htmlDocument('Sweep of launch variants', out.join('\n'));
}
