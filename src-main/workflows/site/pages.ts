/**
 * The results site's own pages: the index (one row per run, sortable and filterable by the
 * site's script) and the comparison shell the script fills in the browser. Run pages are the
 * HTML report itself (html.ts) with a navigation line. See docs/site.md.
 */
import { escapeHtml as esc } from '../report/escape';
import { type PageFrame, htmlDocument } from '../report/html';
import { SITE_COLUMNS, type SiteColumn, type SiteRun, siteRunMarks } from '#shared/report/site-index';

export const SITE_SCRIPT = 'site.js';
export const INDEX_PAGE = 'index.html';
export const COMPARE_PAGE = 'compare.html';
export const RUNS_FOLDER = 'runs';
/** Each run's data for the in-browser comparison: a script that hands the session to the page. */
export const RUN_DATA = 'data.js';
export const RUN_PAGE = 'index.html';

/** The performance mark the index's script sets once sorting and filtering work. */
export const INDEX_READY = 'speedmatrix-index-ready';

export const runPageHref = (id: string): string => `${RUNS_FOLDER}/${id}/${RUN_PAGE}`;

/** What the index adds to the report's stylesheet: the filter bar, sort buttons, print. */
const SITE_CSS = `
body[data-page="index"] main.report { max-width: none; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin: 12px 0; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
.filters select, .filters input, .filters button { font: inherit; font-size: 13px; color: var(--fg); background: var(--bg); border: 1px solid var(--rule); border-radius: 4px; padding: 3px 6px; }
.filters button:disabled { opacity: .5; }
table.site-index { width: 100%; }
table.site-index td { white-space: nowrap; }
table.site-index td.run { white-space: normal; text-align: left; min-width: 14em; }
/* Words (GPU, model, engine) wrap and figures do not: a long model name or version would otherwise widen the
   table past the window. */
table.site-index td.text { white-space: normal; overflow-wrap: anywhere; min-width: 7.5em; }
table.site-index th { overflow-wrap: normal; }
table.site-index th button { all: unset; cursor: pointer; display: block; width: 100%; }
table.site-index th button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
table.site-index th[aria-sort="ascending"] button::after { content: " ▲"; }
table.site-index th[aria-sort="descending"] button::after { content: " ▼"; }
table.site-index a { color: var(--accent); }
.mark { display: inline-block; margin-left: 4px; padding: 0 4px; border: 1px solid var(--warn-rule); border-radius: 3px; background: var(--warn-bg); color: var(--warn-fg); font-size: 11px; }
.source, .run-error { display: block; color: var(--muted); font-size: 11px; overflow-wrap: anywhere; }
.run-error { color: #b3402a; }
@media (prefers-color-scheme: dark) { .run-error { color: #f08a73; } }
@media print {
  .filters, .pick { display: none; }
  table.site-index td { white-space: normal; }
}
`;

function headerCell(c: SiteColumn): string {
  return `<th scope="col" data-key="${c.key}" data-kind="${c.kind}" aria-sort="none"><button type="button">${esc(c.header)}</button></th>`;
}

function runCell(r: SiteRun): string {
  const name = r.variant ?? r.source.split(/[\\/]/).pop() ?? r.source;
  const marks = siteRunMarks(r)
    .map((m) => `<span class="mark">${esc(m)}</span>`)
    .join('');
  const link = r.error ? esc(name) : `<a href="${esc(runPageHref(r.id))}">${esc(name)}</a>`;
  const error = r.error ? `<span class="run-error">${esc(r.error)}</span>` : '';
  return `<td class="run">${link}${marks}<span class="source">${esc(r.source)}</span>${error}</td>`;
}

/** A cell; the value it sorts by is written beside it only when it is not the text shown. */
function cell(c: SiteColumn, r: SiteRun): string {
  const v = c.value(r);
  const text = c.text(r);
  const sortBy = v === null ? '' : String(v);
  return `<td${c.kind === 'text' ? ' class="text"' : ''}${sortBy === text ? '' : ` data-v="${esc(sortBy)}"`}>${esc(text)}</td>`;
}

function row(r: SiteRun): string {
  const pick = `<td class="pick"><input type="checkbox" value="${esc(r.id)}" aria-label="Select ${esc(r.source)} to compare"${r.error ? ' disabled' : ''}></td>`;
  return `<tr>${pick}${runCell(r)}${SITE_COLUMNS.map((c) => cell(c, r)).join('')}</tr>`;
}

function filterSelect(c: SiteColumn, runs: readonly SiteRun[]): string {
  const values = [...new Set(runs.filter((r) => !r.error).map((r) => c.text(r)))].sort();
  const options = values.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join('');
  return `<label>${esc(c.header)}<select data-filter="${c.key}"><option value="">All</option>${options}</select></label>`;
}

export function renderSiteIndex(runs: readonly SiteRun[]): string {
  const readable = runs.filter((r) => !r.error).length;
  const unreadable = runs.length - readable;
  const body = [
    '<p class="kicker">Speed test matrix results</p>',
    `<h1>${runs.length} run${runs.length === 1 ? '' : 's'}</h1>`,
    unreadable
      ? `<p class="banner">${unreadable} file${unreadable === 1 ? '' : 's'} could not be read; ${unreadable === 1 ? 'it is' : 'they are'} listed with the reason.</p>`
      : '',
    '<form class="filters" role="search">',
    ...SITE_COLUMNS.filter((c) => c.filter).map((c) => filterSelect(c, runs)),
    '<label>Search<input type="search" data-filter="q" placeholder="any text"></label>',
    '<button type="button" id="compare-selected" disabled>Compare selected</button>',
    `<output id="shown" aria-live="polite">${runs.length} of ${runs.length} shown</output>`,
    '</form>',
    '<p class="caption">Prefill at 8K context; decode is total tok/s of one request alone (shortest context measured) and the best cell (context × requests at once); the largest context is the longest with a Valid measurement. Select two or more runs to compare them; the first selected is the baseline.</p>',
    '<table class="site-index" id="runs"><thead><tr><th scope="col" class="pick">Compare</th><th scope="col">Run</th>',
    ...SITE_COLUMNS.map(headerCell),
    '</tr></thead><tbody>',
    ...runs.map(row),
    '</tbody></table>',
  ].join('\n');
  return htmlDocument(`SpeedMatrix results · ${runs.length} runs`, `<style>${SITE_CSS}</style>\n${body}`, {
    script: SITE_SCRIPT,
    page: 'index',
  });
}

/** The navigation line above a run's report or a comparison, `up` levels below the index. */
export function siteNav(up: number, download?: { href: string; name: string }): string {
  const root = '../'.repeat(up);
  const file = download ? ` · <a href="${esc(download.href)}" download>Download ${esc(download.name)}</a>` : '';
  return `<nav class="site-nav"><a href="${root}${INDEX_PAGE}">← All runs</a>${file}</nav>`;
}

/** The comparison page before the script fills it: what it is waiting for, or why it cannot. */
export function renderCompareShell(): string {
  const frame: PageFrame = { script: SITE_SCRIPT, page: 'compare', nav: siteNav(0) };
  const body = [
    '<p class="kicker">Speed test matrix comparison</p>',
    '<h1>Comparison</h1>',
    '<p id="compare-status">Loading the selected runs… (this page needs JavaScript; every run also has its own report page in the index.)</p>',
  ].join('\n');
  return htmlDocument('SpeedMatrix comparison', body, frame);
}
