/**
 * Comparing sessions side by side: overlaid prefill curves, a B / A ratio matrix of total
 * tok/s (only where both cells are Valid), a table of deltas, and the hardware, engine and
 * launch settings with differences marked. `compareSessions` is the data, pure and free of
 * Node imports, for the app's renderer; the Markdown and HTML forms are laid out from it.
 */
import type { Session } from '../../src-shared/session/schema';
import { STATUS_WORDS } from '../../src-shared/session/schema';
import { escapeHtml as esc, escapeMarkdownLine as line, escapeMarkdown as md } from './escape';
import { NONE, fmtContext, fmtCount, fmtGigabytes, fmtMs, fmtTokPerSec } from '../../src-shared/report/format';
import { htmlDocument, htmlTable } from './html';
import { flagsOf, parseLaunchLine } from './launch-flags';
import { markdownTable } from './markdown';
import { cellKey } from '../../src-shared/cell-key';
import {
  type HeatmapModel,
  buildPrefillSeries,
  cellIndex,
  divergingColor,
  matrixAxes,
  statusColor,
} from '../../src-shared/report/matrix-model';
import { gpuLabelOf, reportTitle } from '../../src-shared/report/report-model';
import { differenceOf, fmtCellThroughput, fmtDifference, repetitionTotals } from '../../src-shared/report/confidence';
import { SERIES_COLORS, curveChartSvg, heatmapSvg } from './svg';
import type { TableModel } from '../../src-shared/report/report-model';

export interface DifferenceRow {
  section: 'Hardware' | 'Engine' | 'Run' | 'Launch';
  field: string;
  /** One per session, "—" when not recorded. */
  values: string[];
  differs: boolean;
}

export interface PrefillComparisonRow {
  context: number;
  tokensPerSecond: (number | null)[];
  ttftSeconds: (number | null)[];
  /** Each session's tok/s over the first session's; null for the first and where either is missing. */
  ratios: (number | null)[];
}

export interface RatioCell {
  context: number;
  concurrency: number;
  /** B / A of total tok/s, only when both cells are Valid. */
  ratio: number | null;
  /** "1.23×", or why there is no ratio ("A: Looped", "not in B"). */
  text: string;
  fill: string;
  title: string;
}

export interface RatioMatrix {
  /** "B / A". */
  label: string;
  /** Index of the session compared with the first. */
  against: number;
  contexts: number[];
  concurrency: number[];
  rows: RatioCell[][];
}

export interface DeltaRow {
  context: number;
  concurrency: number;
  statuses: string[];
  totals: (number | null)[];
  ttfts: (number | null)[];
  /** Change of each session's total over the first, as a fraction (0.1 = +10 %), Valid pairs only. */
  changes: (number | null)[];
  /**
   * With repetitions on both sides (two or more each), whether the change is more than noise:
   * "B is 3.1% faster, 95% CI 1.2–5.0%" or "no significant difference"; null otherwise.
   */
  significance: (string | null)[];
  /** Each session's total as shown: "4,786.2 ± 21.3" with repetitions. */
  totalTexts: string[];
}

export interface ComparisonModel {
  labels: string[];
  titles: string[];
  simulated: boolean[];
  differences: DifferenceRow[];
  prefill: PrefillComparisonRow[];
  decode: RatioMatrix[];
  deltas: DeltaRow[];
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const labelOf = (i: number): string => LETTERS[i] ?? `#${i + 1}`;

/** "1.23×" */
export const fmtRatio = (r: number | null): string => (r === null ? NONE : `${r.toFixed(2)}×`);
/** "+5.2%", "−3.0%" */
export const fmtChange = (c: number | null): string =>
  c === null ? NONE : `${c >= 0 ? '+' : '−'}${Math.abs(c * 100).toFixed(1)}%`;

function launchFlags(s: Session): Map<string, string> {
  if (s.server.argv.length) return flagsOf(s.server.argv);
  return s.server.display.trim() ? parseLaunchLine(s.server.display).flags : new Map();
}

function launchEnv(s: Session): Record<string, string> {
  if (s.server.argv.length) return s.server.env;
  return s.server.display.trim() ? parseLaunchLine(s.server.display).env : {};
}

const SECRET_FLAGS = new Set(['--api-key', '--hf-token', '--token', '--password']);

function differences(sessions: readonly Session[]): DifferenceRow[] {
  const rows: DifferenceRow[] = [];
  const add = (section: DifferenceRow['section'], field: string, get: (s: Session) => string | null | undefined) => {
    const values = sessions.map((s) => {
      const v = get(s);
      return v === null || v === undefined || v === '' ? NONE : v;
    });
    // A setting no session records says nothing; leave it out.
    if (values.some((v) => v !== NONE)) rows.push({ section, field, values, differs: new Set(values).size > 1 });
  };
  add('Hardware', 'GPU', (s) => (s.hardware.gpus.length ? gpuLabelOf(s) : null));
  add('Hardware', 'GPU type', (s) => s.hardware.gpuType);
  add('Hardware', 'Driver', (s) => s.hardware.gpus[0]?.driver);
  add('Hardware', 'CUDA', (s) => s.hardware.gpus[0]?.cuda);
  add('Hardware', 'Power limit', (s) =>
    s.hardware.gpus[0]?.powerLimitWatts ? `${fmtCount(s.hardware.gpus[0].powerLimitWatts)} W` : null,
  );
  add('Hardware', 'CPU', (s) => s.hardware.cpu?.model);
  add('Hardware', 'RAM', (s) => (s.hardware.ramBytes ? fmtGigabytes(s.hardware.ramBytes) : null));
  add('Hardware', 'OS', (s) => s.hardware.os?.platform);
  add('Engine', 'Engine', (s) => s.engine.name);
  add('Engine', 'Version', (s) => s.engine.version);
  add('Engine', 'Quantization', (s) => s.engine.quantization);
  add('Engine', 'Backend', (s) => s.engine.backend);
  add('Engine', 'Build', (s) => s.engine.build);
  add('Engine', 'Commit', (s) => s.engine.commit);
  add('Run', 'Model', (s) => s.server.model);
  add('Run', 'Served model', (s) => s.server.servedModel);
  add('Run', 'Benchmark tool', (s) => s.runConfig.benchmarkTool);
  add('Run', 'Time per measurement', (s) => `${s.runConfig.secondsPerMeasurement} s`);
  add('Run', 'Max output', (s) => `${fmtCount(s.runConfig.maxOutputTokens)} tokens`);
  add('Run', 'KV cache', (s) => (s.kvBudget.tokens !== null ? `${fmtCount(s.kvBudget.tokens)} tokens` : null));
  add('Run', 'Simulated', (s) => (s.simulated ? 'yes' : 'no'));
  const flags = sessions.map(launchFlags);
  const envs = sessions.map(launchEnv);
  const flagNames = [...new Set(flags.flatMap((f) => [...f.keys()]))].filter((f) => !SECRET_FLAGS.has(f)).sort();
  for (const f of flagNames) add('Launch', f, (s) => flags[sessions.indexOf(s)].get(f));
  const envNames = [...new Set(envs.flatMap((e) => Object.keys(e)))].sort();
  for (const name of envNames) add('Launch', `env ${name}`, (s) => envs[sessions.indexOf(s)][name]);
  return rows;
}

function prefillRows(sessions: readonly Session[]): PrefillComparisonRow[] {
  const series = sessions.map((s) => new Map(buildPrefillSeries(s.prefill).map((p) => [p.context, p])));
  const contexts = [...new Set(series.flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  return contexts.map((context) => {
    const tps = series.map((m) => m.get(context)?.tokensPerSecond ?? null);
    return {
      context,
      tokensPerSecond: tps,
      ttftSeconds: series.map((m) => m.get(context)?.ttftSeconds ?? null),
      ratios: tps.map((v, i) => (i === 0 || v === null || !tps[0] ? null : v / tps[0])),
    };
  });
}

function ratioMatrix(a: Session, b: Session, against: number): RatioMatrix {
  const axA = matrixAxes(a);
  const axB = matrixAxes(b);
  const contexts = [...new Set([...axA.contexts, ...axB.contexts])].sort((x, y) => x - y);
  const concurrency = [...new Set([...axA.concurrency, ...axB.concurrency])].sort((x, y) => x - y);
  const ia = cellIndex(a.cells);
  const ib = cellIndex(b.cells);
  const la = 'A';
  const lb = labelOf(against);
  const rows = contexts.map((ctx) =>
    concurrency.map((c): RatioCell => {
      const ca = ia.get(cellKey({ context: ctx, concurrency: c }));
      const cb = ib.get(cellKey({ context: ctx, concurrency: c }));
      const where = `${fmtContext(ctx)} context × ${c} at once`;
      if (
        ca?.status === 'valid' &&
        cb?.status === 'valid' &&
        ca.totalTokensPerSecond &&
        cb.totalTokensPerSecond !== null
      ) {
        const ratio = cb.totalTokensPerSecond / ca.totalTokensPerSecond;
        return {
          context: ctx,
          concurrency: c,
          ratio,
          text: fmtRatio(ratio),
          fill: divergingColor(ratio),
          title: `${where}: ${lb} ${fmtTokPerSec(cb.totalTokensPerSecond)} / ${la} ${fmtTokPerSec(ca.totalTokensPerSecond)} tok/s = ${fmtRatio(ratio)}`,
        };
      }
      const why = !ca
        ? `not in ${la}`
        : !cb
          ? `not in ${lb}`
          : ca.status !== 'valid'
            ? `${la}: ${STATUS_WORDS[ca.status]}`
            : `${lb}: ${STATUS_WORDS[cb!.status]}`;
      return {
        context: ctx,
        concurrency: c,
        ratio: null,
        text: why,
        fill: statusColor(null),
        title: `${where}: no ratio (${why})`,
      };
    }),
  );
  return { label: `${lb} / ${la}`, against, contexts, concurrency, rows };
}

function deltaRows(sessions: readonly Session[]): DeltaRow[] {
  const indexes = sessions.map((s) => cellIndex(s.cells));
  const keys = new Map<string, [number, number]>();
  for (const s of sessions) for (const c of s.cells) keys.set(cellKey(c), [c.context, c.concurrency]);
  return [...keys.values()]
    .sort((x, y) => x[0] - y[0] || x[1] - y[1])
    .map(([context, concurrency]) => {
      const cells = indexes.map((ix) => ix.get(cellKey({ context, concurrency })));
      const base = cells[0];
      return {
        context,
        concurrency,
        statuses: cells.map((c) => (c ? STATUS_WORDS[c.status] : NONE)),
        totals: cells.map((c) =>
          c && (c.status === 'valid' || c.status === 'queued') ? c.totalTokensPerSecond : null,
        ),
        ttfts: cells.map((c) => (c && (c.status === 'valid' || c.status === 'queued') ? (c.ttft?.p50 ?? null) : null)),
        changes: cells.map((c, i) =>
          i > 0 &&
          c?.status === 'valid' &&
          base?.status === 'valid' &&
          base.totalTokensPerSecond &&
          c.totalTokensPerSecond !== null
            ? c.totalTokensPerSecond / base.totalTokensPerSecond - 1
            : null,
        ),
        significance: cells.map((c, i) =>
          i > 0 && c?.status === 'valid' && base?.status === 'valid'
            ? fmtDifference(differenceOf(repetitionTotals(base), repetitionTotals(c)), labelOf(i))
            : null,
        ),
        totalTexts: cells.map((c) =>
          c && (c.status === 'valid' || c.status === 'queued') ? fmtCellThroughput(c) : NONE,
        ),
      };
    });
}

/** The comparison as data. The first session is the baseline (A); needs at least two. */
export function compareSessions(sessions: readonly Session[]): ComparisonModel {
  if (sessions.length < 2) throw new Error('A comparison needs at least two sessions.');
  const labels = sessions.map((_, i) => labelOf(i));
  const base = sessions.map(
    (s) => `${reportTitle(s)}${s.engine.version ? ` · ${s.engine.name} ${s.engine.version}` : ''}`,
  );
  // Same titles would read as the same run: tell them apart by file or date.
  const titles = base.map((t, i) =>
    base.filter((x) => x === t).length > 1 ? `${t} (${sessions[i].origin.file ?? sessions[i].createdAt})` : t,
  );
  return {
    labels,
    titles,
    simulated: sessions.map((s) => s.simulated),
    differences: differences(sessions),
    prefill: prefillRows(sessions),
    decode: sessions.slice(1).map((s, i) => ratioMatrix(sessions[0], s, i + 1)),
    deltas: deltaRows(sessions),
  };
}

// ---- Tables shared by both forms ---------------------------------------------------------

function differencesTable(m: ComparisonModel): TableModel {
  return {
    header: ['Section', 'Setting', ...m.labels, 'Differs'],
    rows: m.differences.map((d) => [d.section, d.field, ...d.values, d.differs ? '≠' : '']),
  };
}

function prefillTable(m: ComparisonModel): TableModel {
  const others = m.labels.slice(1);
  return {
    header: [
      'Context',
      ...m.labels.map((l) => `${l} prompt tok/s`),
      ...others.map((l) => `${l} / A`),
      ...m.labels.map((l) => `${l} TTFT`),
    ],
    rows: m.prefill.map((r) => [
      fmtContext(r.context),
      ...r.tokensPerSecond.map(fmtTokPerSec),
      ...r.ratios.slice(1).map(fmtRatio),
      ...r.ttftSeconds.map(fmtMs),
    ]),
  };
}

function ratioTable(r: RatioMatrix): TableModel {
  return {
    header: ['Context', ...r.concurrency.map(String)],
    rows: r.rows.map((row, i) => [fmtContext(r.contexts[i]), ...row.map((c) => c.text)]),
  };
}

function deltasTable(m: ComparisonModel): TableModel {
  const others = m.labels.slice(1);
  return {
    header: [
      'Context',
      'Requests at once',
      ...m.labels.map((l) => `${l} status`),
      ...m.labels.map((l) => `${l} total tok/s`),
      ...others.map((l) => `${l} vs A`),
      ...m.labels.map((l) => `${l} TTFT`),
    ],
    rows: m.deltas.map((d) => [
      fmtContext(d.context),
      String(d.concurrency),
      ...d.statuses,
      ...d.totalTexts,
      ...d.changes.slice(1).map((c, i) => d.significance[i + 1] ?? fmtChange(c)),
      ...d.ttfts.map(fmtMs),
    ]),
  };
}

const DELTAS_CAPTION =
  'Each measurement side by side; the change is against A, for Valid pairs only. With repeated cells on both sides, ± is the 95% confidence interval and the change is called significant only when its interval excludes zero.';
const RATIO_CAPTION =
  'Total tok/s of each session over A, only where both cells are Valid. Above 1.00× is faster than A, below is slower.';

export function renderCompareMarkdown(sessions: readonly Session[]): string {
  const m = compareSessions(sessions);
  const out: string[] = [
    'Speed test matrix comparison',
    '',
    `# ${md(m.titles.map((_, i) => m.labels[i]).join(' vs '))}`,
    '',
  ];
  m.titles.forEach((t, i) => out.push(`- **${m.labels[i]}**: ${md(t)}${m.simulated[i] ? ' **(SIMULATED)**' : ''}`));
  out.push('', ...compareMarkdownSections(m));
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** The comparison's sections (differences, prefill, ratio matrices, deltas), as Markdown lines. */
export function compareMarkdownSections(m: ComparisonModel): string[] {
  const out: string[] = [
    '## Differences',
    '',
    'Settings that differ between the sessions are marked ≠ and shown in bold.',
    '',
  ];
  const differing = new Set(m.differences.flatMap((d, i) => (d.differs ? [i] : [])));
  out.push(markdownTable(differencesTable(m), differing), '');
  out.push('## Prefill', '', 'Prompt tok/s by context length, and each session over A.', '');
  out.push(m.prefill.length ? markdownTable(prefillTable(m)) : 'No prefill measurements in these sessions.', '');
  for (const r of m.decode) {
    out.push(`## Sustained decode: ${r.label}`, '', line(RATIO_CAPTION), '', markdownTable(ratioTable(r)), '');
  }
  out.push('## Deltas', '', DELTAS_CAPTION, '');
  out.push(m.deltas.length ? markdownTable(deltasTable(m)) : 'No decode measurements in these sessions.', '');
  return out;
}

function ratioHeatmap(r: RatioMatrix): HeatmapModel {
  return {
    title: `Sustained decode: ${r.label} total tok/s`,
    key: null,
    rowLabels: r.contexts.map(fmtContext),
    colLabels: r.concurrency.map(String),
    rowAxis: 'Context',
    colAxis: 'Simultaneous requests',
    cells: r.rows.map((row) => row.map((c) => ({ fill: c.fill, lines: [c.text], title: c.title }))),
  };
}

function prefillOverlay(m: ComparisonModel): string {
  const series = m.labels.map((label, i) => ({
    label: `${label}: ${m.titles[i]}`.slice(0, 60),
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

export function renderCompareHtml(sessions: readonly Session[]): string {
  const m = compareSessions(sessions);
  const out: string[] = [
    '<p class="kicker">Speed test matrix comparison</p>',
    `<h1>${esc(m.labels.join(' vs '))}</h1>`,
    '<ul class="notes">',
  ];
  m.titles.forEach((t, i) =>
    out.push(
      `<li><strong>${m.labels[i]}</strong>: ${esc(t)}${m.simulated[i] ? ' <strong>(SIMULATED)</strong>' : ''}</li>`,
    ),
  );
  out.push('</ul>', ...compareHtmlSections(m));
  return htmlDocument(`Comparison: ${m.titles.join(' vs ')}`, out.join('\n'));
}

/** The comparison's sections (differences, prefill, ratio heatmaps, deltas), as HTML. */
export function compareHtmlSections(m: ComparisonModel): string[] {
  const out: string[] = [];
  if (m.simulated.some(Boolean))
    out.push(
      '<p class="banner">SIMULATED: at least one of these sessions comes from the simulated vLLM server, not real hardware.</p>',
    );
  out.push('<h2>Differences</h2>', '<p class="caption">Settings that differ between the sessions are highlighted.</p>');
  const differing = new Set(m.differences.flatMap((d, i) => (d.differs ? [i] : [])));
  out.push(htmlTable(differencesTable(m), 'differences', -1, differing));
  out.push('<h2>Prefill</h2>', '<p class="caption">Prompt tok/s by context length, and each session over A.</p>');
  if (m.prefill.length) out.push(`<figure>${prefillOverlay(m)}</figure>`, htmlTable(prefillTable(m)));
  else out.push('<p>No prefill measurements in these sessions.</p>');
  for (const r of m.decode) {
    out.push(
      `<h2>Sustained decode: ${esc(r.label)}</h2>`,
      `<p class="caption">${esc(RATIO_CAPTION)}</p>`,
      `<figure>${heatmapSvg(ratioHeatmap(r))}</figure>`,
    );
  }
  out.push('<h2>Deltas</h2>', `<p class="caption">${esc(DELTAS_CAPTION)}</p>`);
  out.push(
    m.deltas.length ? htmlTable(deltasTable(m), 'measurements') : '<p>No decode measurements in these sessions.</p>',
  );
  return out;
}
