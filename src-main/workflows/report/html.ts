/**
 * The self-contained HTML report: the Markdown report's sections plus the prefill chart and
 * the decode heatmap as inline SVG. No scripts, no external resources (a CSP meta tag forbids
 * them too), every string from the session escaped. The CLI prints it to PDF with headless
 * Chromium; the app uses Electron's printToPDF on the same HTML.
 */
import type { DecodeCell, Session } from '#shared/session/schema';
import type { LoadSection } from '#shared/report/load-model';
import { GLANCE_TITLE, type GlanceItem } from '#shared/report/at-a-glance';
import { cellKey } from '#shared/cell-key';
import { type TimelineModel, cellTimeline, timelineLegend } from '#shared/report/timeline';
import { requestsView, type RequestSet } from '#shared/report/requests';
import { STATUSES, STATUS_ORDER } from '#shared/session/status-words';
import { APP_NAME, APP_VERSION } from '../../platform/runtime/app-version';
import { escapeHtml as esc } from './escape';
import { fmtContext, fmtMs, fmtTokPerSec, plural } from '#shared/report/format';
import { buildPrefillSeries, decodeHeatmap } from '#shared/report/matrix-model';
import {
  type ReportModel,
  type ReportOptions,
  SIMULATED_NOTE,
  type TableModel,
  buildReportModel,
} from '#shared/report/report-model';
import { type InfoBlock } from '#shared/report/report-blocks';
import { REPORT_CSS } from './style';
import { curveChartSvg, heatmapSvg, timelineSvg } from './svg';
import { SERIES_COLORS } from '#shared/report/scale';

/** Nothing may load or run: styles inline, images only as data: URIs. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src 'none'; script-src 'none'";
/** A results-site page (docs/site.md) may run the site's own script file, and nothing else. */
const SITE_SCRIPT_CSP = CSP.replace("script-src 'none'", "script-src 'self'");

/** Where a page sits in a results site: a navigation line above the report, the site's script. */
export interface PageFrame {
  /** HTML placed before the report's <main> (already escaped). */
  nav?: string;
  /** Relative URL of the site's script; the page may then run it and only it. */
  script?: string;
  /** data-page on <body>, which the site's script reads to know what page it is on. */
  page?: string;
}

export function htmlDocument(title: string, body: string, frame: PageFrame = {}): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${frame.script ? SITE_SCRIPT_CSP : CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${esc(title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    ...(frame.script ? [`<script src="${esc(frame.script)}" defer></script>`] : []),
    '</head>',
    frame.page ? `<body data-page="${esc(frame.page)}">` : '<body>',
    ...(frame.nav ? [frame.nav] : []),
    '<main class="report">',
    body,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A status word's colour family, for the status column's class (coloured by style.ts). */
const TONE_OF_WORD = new Map(STATUS_ORDER.map((s) => [STATUSES[s].word, STATUSES[s].tone]));

/** A table; `statusColumn` gets a class per status word so it can be coloured. */
export function htmlTable(
  t: TableModel,
  className = '',
  statusColumn = -1,
  diffRows: ReadonlySet<number> = new Set(),
): string {
  const head = `<thead><tr>${t.header.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>`;
  const body = t.rows
    .map((row, i) => {
      const cells = row
        .map((c, j) => {
          const cls =
            j === statusColumn && TONE_OF_WORD.has(c)
              ? ` class="text tone-${TONE_OF_WORD.get(c)}"`
              : j === statusColumn
                ? ' class="text"'
                : '';
          return `<td${cls}>${esc(c)}</td>`;
        })
        .join('');
      return `<tr${diffRows.has(i) ? ' class="diff"' : ''}>${cells}</tr>`;
    })
    .join('\n');
  return `<table${className ? ` class="${className}"` : ''}>${head}<tbody>\n${body}\n</tbody></table>`;
}

function block(b: InfoBlock): string {
  const rows = b.rows.map((r) => `<dt>${esc(r.label)}</dt><dd>${esc(r.value)}</dd>`).join('');
  return `<section class="block"><h3>${esc(b.title)}</h3>${b.missing ? `<p class="caption">${esc(b.missing)}</p>` : ''}<dl>${rows}</dl></section>`;
}

export function prefillChart(session: Session): string {
  const points = buildPrefillSeries(session.prefill);
  if (points.length === 0) return '';
  return curveChartSvg(
    [
      {
        label: 'Prompt tok/s',
        color: SERIES_COLORS[0],
        points: points.map((p) => ({
          x: p.context,
          y: p.tokensPerSecond,
          title: `${fmtContext(p.context)} context: ${fmtTokPerSec(p.tokensPerSecond)} prompt tok/s, ${fmtMs(p.ttftSeconds)} TTFT`,
        })),
      },
    ],
    {
      title: 'Prefill: prompt tok/s by context length',
      xLabel: 'Context length (tokens)',
      yLabel: 'Prompt tok/s',
      valueLabels: true,
    },
  );
}

/**
 * Every decode cell's requests over time, one folded timeline per cell (the screen only: a PDF
 * of every request of every cell would be most of the document).
 */
function timelinesSection(session: Session): string {
  const items = [...session.cells]
    .sort((a, b) => a.context - b.context || a.concurrency - b.concurrency)
    .map(cellTimelines)
    .filter(Boolean);
  if (items.length === 0) return '';
  return `<section class="timelines"><h2>Cell timelines</h2><p class="caption">Open a cell to see every request of its window.</p>${items.join('')}</section>`;
}

/** A cell's timelines, one per repetition kept, each over its own window and labelled; '' when it kept no requests. */
function cellTimelines(c: DecodeCell): string {
  const view = requestsView(c);
  const drawn = view.sets
    .map((set) => ({ set, model: cellTimeline(set.requests, set.windowSeconds, c.timeBetweenTokens?.p50 ?? null) }))
    .filter((x): x is { set: RequestSet; model: TimelineModel } => x.model !== null);
  if (drawn.length === 0) return '';
  const name = `${fmtContext(c.context)} context × ${c.concurrency} at once`;
  const requests = drawn.reduce((n, x) => n + x.model.bars.length, 0);
  const gaps = drawn.reduce((n, x) => n + x.model.markedGaps, 0);
  const figures = drawn.map(({ set, model }) => {
    const title = set.repetition === null ? name : `${name}, repetition ${set.repetition}`;
    const heading = set.repetition === null ? '' : `<figcaption>${esc(set.label ?? '')}</figcaption>`;
    return `<figure>${heading}${timelineSvg(model, `Timeline of ${title}`)}</figure>`;
  });
  const caption = [drawn.length > 1 ? null : view.label, timelineLegend({ ...drawn[0].model, markedGaps: gaps })];
  return `<details class="timeline" data-cell="${esc(cellKey(c))}"><summary>${esc(`${name}: ${plural(requests, 'request')}, ${plural(gaps, 'large gap')}`)}</summary>${figures.join('')}<p class="caption">${esc(caption.filter(Boolean).join(' '))}</p></details>`;
}

function bodyOf(r: ReportModel, session: Session): string {
  const out: string[] = [`<p class="kicker">${esc(r.kicker)}</p>`, `<h1>${esc(r.title)}</h1>`];
  if (r.simulated) out.push(`<p class="banner">${esc(SIMULATED_NOTE)}</p>`);
  if (r.origin) out.push(`<p class="origin">${esc(r.origin)}</p>`);
  if (r.engineLine) out.push(`<p class="lead">${esc(r.engineLine)}</p>`);
  out.push(`<p class="lead">${esc(r.matrixLine)}</p>`);
  if (r.glance.length) out.push(glanceHtml(r.glance));
  if (r.missing.length)
    out.push(
      `<div class="missing"><strong>Missing from this session:</strong><ul>${r.missing.map((m) => `<li>${esc(m)}</li>`).join('')}</ul></div>`,
    );
  out.push(`<div class="blocks">${r.blocks.map(block).join('')}</div>`);

  out.push('<h2>Launch command</h2>');
  out.push(r.launch ? `<pre class="launch"><code>${esc(r.launch)}</code></pre>` : `<p>${esc(r.launchMissing)}</p>`);

  if (r.load) out.push(...loadHtml(r.load));
  else out.push(...matrixHtml(r, session));
  out.push(
    `<footer>${esc(`Report by ${APP_NAME} ${APP_VERSION} from a session created ${session.createdAt} (session format v${session.formatVersion}).`)}</footer>`,
  );
  return out.join('\n');
}

/** "At a glance" as the page opens: each figure large, its label above and where it was measured below. */
function glanceHtml(items: readonly GlanceItem[]): string {
  const figures = items
    .map(
      (g) =>
        `<div class="glance-item"><dt>${esc(g.label)}</dt><dd class="glance-value">${esc(g.value)}</dd>${g.detail ? `<dd class="glance-detail">${esc(g.detail)}</dd>` : ''}</div>`,
    )
    .join('');
  return `<section class="glance" aria-labelledby="glance-title"><h2 id="glance-title">${esc(GLANCE_TITLE)}</h2><dl>${figures}</dl></section>`;
}

function loadHtml(l: LoadSection): string[] {
  return [
    '<h2>Load</h2>',
    `<p class="caption">${esc(l.workload)}</p>`,
    `<p class="lead"><strong>${esc(l.answer)}</strong></p>`,
    htmlTable(l.table, 'load'),
    ...(l.notes.length ? [`<ul class="notes">${l.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`] : []),
  ];
}

/** The matrix's sections: prefill, decode, targets, all measurements, energy, telemetry, notes. */
function matrixHtml(r: ReportModel, session: Session): string[] {
  const out: string[] = [];
  out.push('<h2>Prefill</h2>', `<p class="caption">${esc(r.prefillCaption)}</p>`);
  if (r.prefill) out.push(`<figure>${prefillChart(session)}</figure>`, htmlTable(r.prefill, 'prefill'));
  else out.push('<p>No prefill measurements in this session.</p>');

  out.push('<h2>Sustained decode</h2>', `<p class="caption">${esc(r.decodeCaption)}</p>`);
  if (r.decodeUnavailable) out.push(`<p class="unavailable">${esc(r.decodeUnavailable)}</p>`);
  else if (r.decode.contexts.length && r.decode.concurrency.length)
    out.push(`<figure>${heatmapSvg(decodeHeatmap(r.decode))}</figure>`);
  else out.push('<p>No decode measurements in this session.</p>');
  out.push(
    `<ul class="legend">${r.legend.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`,
    `<p class="caption">${esc(r.ttftNote)}</p>`,
  );

  if (r.capacity) {
    const c = r.capacity;
    out.push(`<h2>${esc(c.title)}</h2>`, `<p class="caption">Targets: ${esc(c.targets.join('; '))}.</p>`);
    out.push(
      htmlTable({ header: c.header, rows: c.rows }, 'capacity'),
      ...c.notes.map((n) => `<p class="caption">${esc(n)}</p>`),
    );
  }

  out.push('<h2>All measurements</h2>', `<p class="caption">${esc(r.measurementsCaption)}</p>`);
  out.push(
    r.measurements.rows.length
      ? htmlTable(r.measurements, 'measurements', 3)
      : '<p>No measurements in this session.</p>',
  );

  if (r.latency)
    out.push(
      '<h2>Latency percentiles</h2>',
      `<p class="caption">${esc(r.latencyCaption)}</p>`,
      htmlTable(r.latency, 'latency'),
    );
  out.push(timelinesSection(session));
  if (r.energy)
    out.push(
      '<h2>Energy per token</h2>',
      '<p class="caption">GPU energy per generated token · rows are context length, columns are simultaneous requests</p>',
      htmlTable(r.energy),
    );
  if (r.telemetry)
    out.push(
      '<h2>GPU telemetry per measurement</h2>',
      '<p class="caption">Averages over each measurement window.</p>',
      htmlTable(r.telemetry),
    );
  if (r.cellNotes.length)
    out.push('<h2>Notes</h2>', `<ul class="notes">${r.cellNotes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  if (r.checksUnavailable.length)
    out.push(
      '<h2>Checks not made</h2>',
      `<ul class="notes">${r.checksUnavailable.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`,
    );
  return out;
}

export function renderHtmlReport(session: Session, options: ReportOptions = {}, frame: PageFrame = {}): string {
  const model = buildReportModel(session, options);
  return htmlDocument(`${model.title} · ${model.kicker}`, bodyOf(model, session), frame);
}
