/**
 * The sweep report (`sweep.md`, `sweep.html`), laid out from the sweep model
 * (src-shared/report/sweep-model.ts), which the app's comparison view shows too: the launch
 * variants side by side, the best variant for every cell, then the ordinary comparison of the
 * variants that ran. A variant that failed to start is listed with its root cause. See docs/sweeps.md.
 */
import {
  BEST_CAPTION,
  START_CAPTION,
  type SweepEntry,
  TOO_FEW_RAN,
  bestTable,
  buildSweepModel,
  sweepComparison,
} from '#shared/report/sweep-model';
import {
  compareHtmlSections,
  compareMarkdownSections,
  compareVerdictHtml,
  compareVerdictMarkdown,
  simulatedBannerHtml,
  simulatedBannerMarkdown,
} from './compare';
import { escapeHtml as esc, escapeMarkdownLine as line } from './escape';
import { htmlDocument, htmlTable } from './html';
import { markdownTable } from './markdown';
import { START_TIME_LABEL } from '#shared/report/start-time';

export type { SweepEntry } from '#shared/report/sweep-model';

/** Which variants' sessions are simulated (a failed variant has none). */
const simulatedOf = (entries: readonly SweepEntry[]): boolean[] => entries.map((e) => Boolean(e.session?.simulated));

export function renderSweepMarkdown(entries: readonly SweepEntry[]): string {
  const m = buildSweepModel(entries);
  const out: string[] = ['Speed test matrix sweep', '', `# Sweep of ${entries.length} launch variants`, ''];
  out.push(...simulatedBannerMarkdown(simulatedOf(entries)));
  const compared = sweepComparison(entries, m);
  if (compared) out.push(...compareVerdictMarkdown(compared));
  out.push('## Variants', '', markdownTable(m.variants), '');
  if (m.starts) out.push(`## ${START_TIME_LABEL}`, '', line(START_CAPTION), '', markdownTable(m.starts), '');
  out.push('## Best variant per cell', '', line(BEST_CAPTION), '', markdownTable(bestTable(m)), '');
  if (compared) out.push(...compareMarkdownSections(compared));
  else out.push(TOO_FEW_RAN, '');
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
    ...simulatedBannerHtml(simulatedOf(entries)),
  ];
  const compared = sweepComparison(entries, m);
  if (compared) out.push(...compareVerdictHtml(compared));
  out.push('<h2>Variants</h2>', htmlTable(m.variants, 'variants'));
  if (m.starts)
    out.push(
      `<h2>${esc(START_TIME_LABEL)}</h2>`,
      `<p class="caption">${esc(START_CAPTION)}</p>`,
      htmlTable(m.starts, 'starts'),
    );
  out.push(
    '<h2>Best variant per cell</h2>',
    `<p class="caption">${esc(BEST_CAPTION)}</p>`,
    htmlTable(bestTable(m), 'best'),
  );
  if (compared) out.push(...compareHtmlSections(compared));
  else out.push(`<p>${esc(TOO_FEW_RAN)}</p>`);
  return htmlDocument('Sweep of launch variants', out.join('\n'));
}
