/**
 * The report stylesheet, inlined into every HTML report (and so into the PDF). Kept as a
 * module rather than a file under resources/ so the CLI, the tests, the bundled app and the
 * renderer all get it without locating files at run time. System fonts only: a report makes
 * no network requests. Light and dark follow prefers-color-scheme; print is always light and
 * fits A4 and Letter (12 mm margins leave 186 mm / 192 mm of width; tables shrink to fit).
 */
import { NORMALISATIONS } from '#shared/report/overlay';

export const REPORT_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1d21; --muted: #5d6470; --rule: #d9dde3; --panel: #f5f7fa;
  --accent: #2f6fb3; --warn-bg: #fff3cd; --warn-fg: #6b4e00; --warn-rule: #e0b84a; --diff: #fff1b8;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #16181c; --fg: #e6e8eb; --muted: #a0a7b2; --rule: #343a43; --panel: #1f2329;
    --accent: #7fb0e6; --warn-bg: #3d3212; --warn-fg: #f3d98a; --warn-rule: #8a6d1f; --diff: #4a3f12;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body {
  margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", sans-serif;
  -webkit-print-color-adjust: exact; print-color-adjust: exact;
}
main.report { max-width: 1100px; margin: 0 auto; padding: 28px 32px 48px; }
.kicker { margin: 0; color: var(--muted); text-transform: uppercase; letter-spacing: .08em; font-size: 12px; }
h1 { margin: 4px 0 8px; font-size: 26px; line-height: 1.2; overflow-wrap: anywhere; }
h2 { margin: 28px 0 8px; font-size: 18px; border-bottom: 1px solid var(--rule); padding-bottom: 4px; }
h3 { margin: 0 0 6px; font-size: 15px; }
p { margin: 6px 0; }
.lead { margin: 2px 0; color: var(--muted); overflow-wrap: anywhere; }
.caption { color: var(--muted); font-size: 13px; }
.banner { margin: 10px 0; padding: 8px 12px; border: 1px solid var(--warn-rule); border-radius: 6px; background: var(--warn-bg); color: var(--warn-fg); font-weight: 600; }
.origin { font-style: italic; color: var(--muted); }
.missing { margin: 10px 0; padding: 8px 12px; border-left: 3px solid var(--warn-rule); background: var(--panel); }
.missing ul { margin: 4px 0 0 18px; padding: 0; }
.glance dl { display: grid; grid-template-columns: repeat(auto-fill, minmax(11em, 1fr)); gap: 8px; margin: 8px 0 0; }
.glance-item { background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; padding: 8px 12px; }
.glance-item dt { color: var(--muted); font-size: 12px; }
.glance-item dd { margin: 0; }
.glance-value { font-size: 18px; font-weight: 600; }
.glance-detail { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.blocks { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) minmax(0, 1.2fr); gap: 12px; margin-top: 16px; }
.block { background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; padding: 10px 12px; }
.block dl { display: grid; grid-template-columns: fit-content(8.5em) minmax(0, 1fr); gap: 2px 10px; margin: 0; font-size: 13px; }
.block dt { color: var(--muted); }
.block dd { margin: 0; overflow-wrap: anywhere; }
pre.launch { background: var(--panel); border: 1px solid var(--rule); border-radius: 6px; padding: 10px 12px; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace; }
.chart { display: block; max-width: 760px; height: auto; margin: 8px 0; color: var(--fg); }
.heatmap { max-width: 900px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12.5px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--rule); padding: 3px 7px; text-align: right; vertical-align: top; }
th { background: var(--panel); font-weight: 600; text-align: center; }
td:first-child, th:first-child, td.text { text-align: left; }
tr.diff td { background: var(--diff); font-weight: 600; }
table.differences td { text-align: left; overflow-wrap: anywhere; }
/* A section name is one short word: never broken inside ("Hardwar e"). */
table.differences td:first-child { overflow-wrap: normal; white-space: nowrap; }
table.differences td:last-child { text-align: center; }
table.measurements, table.latency { width: 100%; font-size: 11.5px; }
details.timeline summary { cursor: pointer; margin: 4px 0; }
table.measurements td, table.latency td { white-space: nowrap; }
.tone-discarded, .tone-failed { color: #b3402a; }
.tone-caution { color: #8a5a00; }
.legend { margin: 8px 0; padding: 0; list-style: none; font-size: 13px; }
.legend li { margin: 2px 0; }
ul.notes { font-size: 13px; padding-left: 18px; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
.site-nav { max-width: 1100px; margin: 0 auto; padding: 16px 32px 0; font-size: 13px; }
.site-nav a { color: var(--accent); }
/* The sessions overlaid (overlay.ts): one normalisation at a time on screen, by radio buttons and no script. */
.overlay > input { margin: 0 4px 0 0; vertical-align: middle; }
.overlay > label { margin-right: 16px; cursor: pointer; }
.overlay-panel { display: none; }
.overlay-panel > h3 { display: none; }
${NORMALISATIONS.map((n) => `#overlay-${n}:checked ~ .overlay-${n}`).join(', ')} { display: block; }
.overlay-legend li { display: flex; align-items: center; gap: 6px; }
@media screen and (max-width: 800px) { .blocks { grid-template-columns: 1fr; } }
@media (prefers-color-scheme: dark) {
  .tone-discarded, .tone-failed { color: #f08a73; }
  .tone-caution { color: #e8b64f; }
}
@page { margin: 12mm; }
@media print {
  :root {
    color-scheme: light;
    --bg: #ffffff; --fg: #000000; --muted: #4a4f57; --rule: #b9bec6; --panel: #f3f5f8;
    --warn-bg: #fff3cd; --warn-fg: #5a4100; --warn-rule: #c9a13a; --diff: #fff1b8;
  }
  .tone-discarded, .tone-failed { color: #9a2f1c; }
  .tone-caution { color: #6e4700; }
  body { font-size: 10pt; }
  main.report { max-width: none; padding: 0; }
  h1 { font-size: 18pt; }
  h2 { font-size: 13pt; margin-top: 14pt; break-after: avoid; page-break-after: avoid; }
  /* A heading, its caption and the chart below go to a page together: never a page ending on
     "Prefill" and its caption with the chart on the next. */
  h2 + .caption { break-after: avoid; page-break-after: avoid; }
  h2 + .caption + figure, h2 + figure { break-before: avoid; page-break-before: avoid; }
  .blocks { gap: 6pt; }
  .glance dl { gap: 4pt; }
  .glance-value { font-size: 12pt; }
  .glance { break-inside: avoid; page-break-inside: avoid; }
  .block dl { font-size: 8.5pt; }
  pre.launch { font-size: 7.5pt; }
  .chart { max-width: 100%; break-inside: avoid; page-break-inside: avoid; }
  .heatmap { max-width: 100%; }
  table { font-size: 8pt; }
  table.measurements, table.latency { font-size: 6.8pt; }
  th, td { padding: 1.5pt 3pt; }
  thead { display: table-header-group; }
  tr, .block, figure { break-inside: avoid; page-break-inside: avoid; }
  /* A short table (prefill, capacity) stays whole rather than leaving a row alone on the next page. */
  table.prefill, table.capacity, ul.legend { break-inside: avoid; page-break-inside: avoid; }
  /* The footer goes with what precedes it: never a last page holding only the footer. */
  footer { font-size: 8pt; margin-top: 12pt; break-before: avoid; page-break-before: avoid; }
  .site-nav { display: none; }
  .timelines { display: none; }
  /* Print has no switch: every normalisation, one after another, each under its name. */
  .overlay > input, .overlay > label { display: none; }
  .overlay-panel, .overlay-panel > h3 { display: block; }
}
`;
