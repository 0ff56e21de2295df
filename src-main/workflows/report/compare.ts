/**
 * The Markdown and HTML forms of a comparison of sessions, laid out from the comparison model
 * (src-shared/report/compare-model.ts), which the app's comparison view shows too.
 */
import type { Session } from '#shared/session/schema';
import { escapeHtml as esc, escapeMarkdownLine as line, escapeMarkdown as md } from './escape';
import { fmtContext, fmtContexts, fmtTokPerSec } from '#shared/report/format';
import { type PageFrame, htmlDocument, htmlTable } from './html';
import { markdownTable } from './markdown';
import type { HeatmapModel } from '#shared/report/matrix-model';
import { simulatedBanner } from '#shared/report/report-model';
import {
  type ComparisonModel,
  deltasCaption,
  prefillCaption,
  prefillSeriesName,
  VERDICT_CAPTION,
  ratioCaption,
  type RatioMatrix,
  compareSessions,
  comparisonKicker,
  deltasTable,
  differencesTable,
  prefillTable,
  ratioTable,
} from '#shared/report/compare-model';
import { LOAD_COMPARE_CAPTION } from '#shared/report/load-compare';
import { curveChartSvg, heatmapSvg } from './svg';
import { SERIES_COLORS } from '#shared/report/scale';
import type { GpuPrice } from '#shared/report/price';
import { overlayHtml, overlayMarkdown } from './overlay';

/** What a comparison is drawn with beyond its sessions: the GPU price its per-price overlay needs. */
export interface CompareOptions {
  gpuPrice?: GpuPrice | null;
}

/** The banner over a comparison or a sweep report when any of its sessions is simulated (words: simulatedBanner). */
export function simulatedBannerMarkdown(simulated: readonly boolean[]): string[] {
  const banner = simulatedBanner(simulated);
  return banner ? [`> **${md(banner)}**`, ''] : [];
}

export function simulatedBannerHtml(simulated: readonly boolean[]): string[] {
  const banner = simulatedBanner(simulated);
  return banner ? [`<p class="banner">${esc(banner)}</p>`] : [];
}

export function renderCompareMarkdown(sessions: readonly Session[], opts: CompareOptions = {}): string {
  const m = compareSessions(sessions);
  const out: string[] = [
    comparisonKicker(m),
    '',
    `# ${md(m.titles.map((_, i) => m.labels[i]).join(' vs '))}`,
    '',
    ...simulatedBannerMarkdown(m.simulated),
  ];
  m.titles.forEach((t, i) => out.push(`- **${m.labels[i]}**: ${md(t)}${m.simulated[i] ? ' **(SIMULATED)**' : ''}`));
  out.push('', ...compareVerdictMarkdown(m), ...compareMarkdownSections(m, opts));
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** The verdict in one line per comparison and per context, for the top of a comparison or sweep report. */
export function compareVerdictMarkdown(m: ComparisonModel): string[] {
  if (m.load) return ['## Verdict', '', ...m.load.verdicts.map((v) => `- **${md(v)}**`), ''];
  const out = ['## Verdict', '', line(VERDICT_CAPTION), ''];
  for (const r of m.decode) {
    out.push(`- **${md(r.verdict)}**`, ...r.contextVerdicts.map((v) => `  - ${md(v)}`));
  }
  return [...out, ''];
}

/** The verdict lines, as HTML. */
export function compareVerdictHtml(m: ComparisonModel): string[] {
  if (m.load)
    return [
      '<h2>Verdict</h2>',
      '<ul class="verdict">',
      ...m.load.verdicts.map((v) => `<li><strong>${esc(v)}</strong></li>`),
      '</ul>',
    ];
  const out = ['<h2>Verdict</h2>', `<p class="caption">${esc(VERDICT_CAPTION)}</p>`, '<ul class="verdict">'];
  for (const r of m.decode) {
    const contexts = r.contextVerdicts.map((v) => `<li>${esc(v)}</li>`).join('');
    out.push(`<li><strong>${esc(r.verdict)}</strong>${contexts ? `<ul>${contexts}</ul>` : ''}</li>`);
  }
  return [...out, '</ul>'];
}

/** The comparison's sections (differences, prefill, ratio matrices, deltas), as Markdown lines. */
export function compareMarkdownSections(m: ComparisonModel, opts: CompareOptions = {}): string[] {
  const out: string[] = [
    '## Differences',
    '',
    'Settings that differ between the sessions are marked ≠ and shown in bold.',
    '',
  ];
  const differing = new Set(m.differences.flatMap((d, i) => (d.differs ? [i] : [])));
  out.push(markdownTable(differencesTable(m), differing), '');
  if (m.load) {
    out.push('## Load', '', markdownTable(m.load.workloads), '', line(LOAD_COMPARE_CAPTION), '');
    return [...out, markdownTable(m.load.passes), ''];
  }
  out.push('## Prefill', '', prefillCaption(m), '');
  out.push(m.prefill.length ? markdownTable(prefillTable(m)) : 'No prefill measurements in these sessions.', '');
  for (const r of m.decode) {
    out.push(`## Sustained decode: ${r.label}`, '', line(ratioCaption(m)), '', markdownTable(ratioTable(r)), '');
  }
  out.push(...overlayMarkdown(m, opts.gpuPrice ?? null));
  out.push('## Deltas', '', deltasCaption(m), '');
  out.push(m.deltas.length ? markdownTable(deltasTable(m)) : 'No decode measurements in these sessions.', '');
  return out;
}

function ratioHeatmap(r: RatioMatrix): HeatmapModel {
  return {
    title: `Sustained decode: ${r.label} total tok/s`,
    key: null,
    rowLabels: fmtContexts(r.contexts),
    colLabels: r.concurrency.map(String),
    rowAxis: 'Context',
    colAxis: 'Simultaneous requests',
    cells: r.rows.map((row) => row.map((c) => ({ fill: c.fill, lines: [c.text], title: c.title }))),
  };
}

function prefillOverlay(m: ComparisonModel): string {
  const series = m.labels.map((label, i) => ({
    label: prefillSeriesName(label),
    color: SERIES_COLORS[i % SERIES_COLORS.length],
    points: m.prefill
      .filter((r) => r.tokensPerSecond[i] !== null)
      .map((r) => ({
        x: r.context,
        y: r.tokensPerSecond[i] as number,
        title: `${label} at ${fmtContext(r.context)}: ${fmtTokPerSec(r.tokensPerSecond[i])} prompt tok/s`,
      })),
  }));
  return curveChartSvg(series, {
    title: 'Prefill: prompt tok/s by context length',
    xLabel: 'Context length (tokens)',
    yLabel: 'Prompt tok/s',
    height: 320,
  });
}

export function renderCompareHtml(
  sessions: readonly Session[],
  frame: PageFrame = {},
  opts: CompareOptions = {},
): string {
  const m = compareSessions(sessions);
  const out: string[] = [
    `<p class="kicker">${esc(comparisonKicker(m))}</p>`,
    `<h1>${esc(m.labels.join(' vs '))}</h1>`,
    ...simulatedBannerHtml(m.simulated),
    '<ul class="notes">',
  ];
  m.titles.forEach((t, i) =>
    out.push(
      `<li><strong>${m.labels[i]}</strong>: ${esc(t)}${m.simulated[i] ? ' <strong>(SIMULATED)</strong>' : ''}</li>`,
    ),
  );
  out.push('</ul>', ...compareVerdictHtml(m), ...compareHtmlSections(m, opts));
  return htmlDocument(`Comparison: ${m.titles.join(' vs ')}`, out.join('\n'), frame);
}

/** The comparison's sections (differences, prefill, ratio heatmaps, deltas), as HTML. */
export function compareHtmlSections(m: ComparisonModel, opts: CompareOptions = {}): string[] {
  const out: string[] = [];
  out.push('<h2>Differences</h2>', '<p class="caption">Settings that differ between the sessions are highlighted.</p>');
  const differing = new Set(m.differences.flatMap((d, i) => (d.differs ? [i] : [])));
  out.push(htmlTable(differencesTable(m), 'differences', -1, differing));
  if (m.load) {
    out.push('<h2>Load</h2>', htmlTable(m.load.workloads), `<p class="caption">${esc(LOAD_COMPARE_CAPTION)}</p>`);
    return [...out, htmlTable(m.load.passes, 'measurements')];
  }
  out.push('<h2>Prefill</h2>', `<p class="caption">${esc(prefillCaption(m))}</p>`);
  if (m.prefill.length) out.push(`<figure>${prefillOverlay(m)}</figure>`, htmlTable(prefillTable(m)));
  else out.push('<p>No prefill measurements in these sessions.</p>');
  for (const r of m.decode) {
    out.push(
      `<h2>Sustained decode: ${esc(r.label)}</h2>`,
      `<p class="caption">${esc(ratioCaption(m))}</p>`,
      `<figure>${heatmapSvg(ratioHeatmap(r))}</figure>`,
    );
  }
  out.push(...overlayHtml(m, opts.gpuPrice ?? null));
  out.push('<h2>Deltas</h2>', `<p class="caption">${esc(deltasCaption(m))}</p>`);
  out.push(
    m.deltas.length ? htmlTable(deltasTable(m), 'measurements') : '<p>No decode measurements in these sessions.</p>',
  );
  return out;
}
