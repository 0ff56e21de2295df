/**
 * Chart data shared by the reports and the app's renderer: the decode matrix as rows ×
 * columns of display-ready cells, the prefill curve, and the colour scales. Pure functions
 * with no Node imports, so the renderer can import this file as it is.
 */
import type { CellStatus, DecodeCell, PrefillResult, Session } from '../session/schema';
import { STATUSES, type StatusTone, hasFigure } from '../session/status-words';
import { cellIndex, cellKey } from '../cell-key';
import { NONE, fmtContext, fmtContexts, fmtMs, fmtTokPerSec, plural, withFailed } from './format';
import { fmtCellThroughput } from './confidence';
import { CELL_METRIC_DEFS, type CellMetric, type MetricContext } from './cell-metrics';
import { type TargetSet, meetsTargets } from './slo';
import { fewSamples, latencyCount } from './latency';

export interface MatrixCellView {
  context: number;
  concurrency: number;
  /** What the cell shows: its figures, its status word, or nothing (no cell here yet). */
  kind: 'value' | 'status' | 'empty';
  /** null when the session holds no cell here (not measured yet). */
  status: CellStatus | null;
  /** The metric's value when the status keeps figures (null also when the metric is unknown, e.g. cost without a price). */
  value: number | null;
  ttftSeconds: number | null;
  /** First line: "141.4" ("141.4 tok/s" with units in cells), or the status word ("Looped"), or "—". */
  text: string;
  /** Second line: "37 ms TTFT", or "" when there is none. */
  detail: string;
  /** A word shown beside the figures: "Requests queued", "Stream stalled", or null. */
  flag: string | null;
  /** One-line description for tooltips and SVG <title>. */
  title: string;
  /** True when targets are given and this measured cell misses one of them (greyed). */
  missesTargets: boolean;
}

/** What the matrix shows: a metric in its context, and targets whose misses are greyed. */
export interface MatrixView {
  metric: CellMetric;
  ctx: MetricContext;
  targets?: { set: TargetSet; medians: boolean } | null;
  /** Write tok/s in each cell, as the app does; the reports leave it to the caption, as the reference report. */
  unitInCells?: boolean;
}

export const TOTAL_VIEW: MatrixView = { metric: 'total', ctx: { gpuPricePerHour: null, gpuCount: 1 } };

export interface DecodeMatrixModel {
  contexts: number[];
  concurrency: number[];
  /** rows[i][j] is contexts[i] × concurrency[j]. */
  rows: MatrixCellView[][];
  /** Largest value of the metric among cells with figures (0 when none), for colour scaling. */
  maxValue: number;
  metric: CellMetric;
}

const sortedUnique = (values: Iterable<number>): number[] => [...new Set(values)].sort((a, b) => a - b);

/** Matrix axes: what the run planned plus anything measured outside the plan. */
export function matrixAxes(session: Session): { contexts: number[]; concurrency: number[] } {
  return {
    contexts: sortedUnique([...session.runConfig.contexts, ...session.cells.map((c) => c.context)]),
    concurrency: sortedUnique([...session.runConfig.concurrency, ...session.cells.map((c) => c.concurrency)]),
  };
}

/** What a measured cell that misses the service-level targets is marked with, in text and titles. */
export const MISSES_TARGETS = 'misses the targets';

function cellView(
  context: number,
  concurrency: number,
  cell: DecodeCell | undefined,
  view: MatrixView = TOTAL_VIEW,
): MatrixCellView {
  const where = `${fmtContext(context)} context × ${concurrency} at once`;
  const missesTargets = !!(cell && view.targets && !meetsTargets(cell, view.targets.set, view.targets.medians));
  if (!cell) {
    return {
      context,
      concurrency,
      kind: 'empty',
      status: null,
      value: null,
      ttftSeconds: null,
      text: NONE,
      detail: '',
      flag: null,
      title: `${where}: not measured`,
      missesTargets,
    };
  }
  const word = STATUSES[cell.status].word;
  if (!hasFigure(cell.status) || cell.totalTokensPerSecond === null) {
    const why = cell.reason ? `: ${cell.reason}` : '';
    return {
      context,
      concurrency,
      kind: 'status',
      status: cell.status,
      value: null,
      ttftSeconds: null,
      text: word,
      detail: '',
      flag: null,
      title: `${where}: ${word}${why}`,
      missesTargets,
    };
  }
  const def = CELL_METRIC_DEFS[view.metric];
  const value = def.value(cell, view.ctx);
  const ttft = cell.ttft?.p50 ?? null;
  // The reports write tok/s figures without their unit, as the reference report's heatmap does.
  const unit = view.unitInCells ? unitInCell(view.metric, value) : '';
  const figure = view.metric === 'total' ? fmtCellThroughput(cell) : def.format(value);
  const text = withFailed(`${figure}${unit}`, cell.failedRequests);
  const latency = def.latency?.kind;
  const detail =
    latency && value !== null && fewSamples(cell, latency)
      ? `from ${plural(latencyCount(cell, latency) ?? 0, 'request')}`
      : latency === 'ttft'
        ? `${fmtTokPerSec(cell.totalTokensPerSecond)} tok/s total`
        : ttft === null
          ? ''
          : `${fmtMs(ttft)} TTFT`;
  const what = view.metric === 'total' ? 'tok/s total' : def.label;
  const flag = cell.status === 'valid' ? null : word;
  const missNote = missesTargets ? `, ${MISSES_TARGETS}` : '';
  return {
    context,
    concurrency,
    kind: 'value',
    status: cell.status,
    value,
    ttftSeconds: ttft,
    text,
    detail,
    flag,
    title: `${where}: ${text} ${what}${detail ? `, ${detail}` : ''}${flag ? ` (${flag})` : ''}${missNote}`,
    missesTargets,
  };
}

export function buildDecodeMatrix(session: Session, view: MatrixView = TOTAL_VIEW): DecodeMatrixModel {
  return decodeMatrix(matrixAxes(session), session.cells, view);
}

/** The matrix over given axes (sorted here), e.g. a run's plan while its cells arrive. */
export function decodeMatrix(
  axes: { contexts: readonly number[]; concurrency: readonly number[] },
  cells: readonly DecodeCell[],
  view: MatrixView = TOTAL_VIEW,
): DecodeMatrixModel {
  const contexts = sortedUnique(axes.contexts);
  const concurrency = sortedUnique(axes.concurrency);
  const index = cellIndex(cells);
  const rows = contexts.map((ctx) =>
    concurrency.map((c) => cellView(ctx, c, index.get(cellKey({ context: ctx, concurrency: c })), view)),
  );
  const maxValue = Math.max(0, ...rows.flat().map((v) => v.value ?? 0));
  return { contexts, concurrency, rows, maxValue, metric: view.metric };
}

interface PrefillPoint {
  context: number;
  promptTokens: number | null;
  tokensPerSecond: number;
  ttftSeconds: number | null;
}

/** The prefill curve: measured points only, by context. */
export function buildPrefillSeries(prefill: readonly PrefillResult[]): PrefillPoint[] {
  return [...prefill]
    .filter((p) => hasFigure(p.status) && p.tokensPerSecond !== null)
    .sort((a, b) => a.context - b.context)
    .map((p) => ({
      context: p.context,
      promptTokens: p.promptTokens,
      tokensPerSecond: p.tokensPerSecond as number,
      ttftSeconds: p.ttftSeconds,
    }));
}

/** Prefill results sorted by context (every status). */
export function sortedPrefill(prefill: readonly PrefillResult[]): PrefillResult[] {
  return [...prefill].sort((a, b) => a.context - b.context);
}

// ---- Colours ---------------------------------------------------------------------------

type Rgb = [number, number, number];
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t)) as Rgb;
const hex = (c: Rgb): string => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const clamp01 = (t: number): number => (Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0);

const SEQ_LOW: Rgb = [0xe8, 0xf1, 0xfb];
const SEQ_MID: Rgb = [0x5b, 0x9b, 0xd5];
const SEQ_HIGH: Rgb = [0x0b, 0x3d, 0x7a];

/** Sequential blue scale for throughput: t = value / max in 0..1. */
export function sequentialColor(t: number): string {
  const u = clamp01(t);
  return hex(u < 0.5 ? mix(SEQ_LOW, SEQ_MID, u * 2) : mix(SEQ_MID, SEQ_HIGH, (u - 0.5) * 2));
}

/**
 * The one throughput colour of the decode heatmap, in the app and the reports: anchored at
 * zero (t = value / largest value), so 127.8 and 137.4 tok/s get nearly the same blue instead
 * of opposite ends of the scale.
 */
export function throughputColor(value: number, maxValue: number): string {
  return metricColor(value, maxValue, 'higher');
}

/**
 * The heatmap colour of any cell metric, on the same zero-anchored scale: darker is always
 * better, so a lower-is-better metric (TTFT, joules, cost) runs the scale the other way, and
 * its smallest values are the darkest.
 */
export function metricColor(value: number, maxValue: number, better: 'higher' | 'lower'): string {
  const t = maxValue > 0 ? value / maxValue : 0;
  return sequentialColor(better === 'higher' ? t : 1 - clamp01(t));
}

/** The heatmap's colour key, from 0 (left) to the largest value (right), as a CSS gradient in a metric's direction. */
export function metricGradientCss(better: 'higher' | 'lower'): string {
  const stops = better === 'higher' ? [SEQ_LOW, SEQ_MID, SEQ_HIGH] : [SEQ_HIGH, SEQ_MID, SEQ_LOW];
  return `linear-gradient(90deg, ${stops.map(hex).join(', ')})`;
}

/** The colour key's words: "0 to 4,786.2 tok/s total". */
const throughputKeyText = (maxValue: number): string => `0 to ${fmtTokPerSec(maxValue)} tok/s total`;

/** " tok/s" after a figure whose format leaves the unit to a column, else "". */
const unitInCell = (metric: CellMetric, value: number | null): string =>
  value !== null && CELL_METRIC_DEFS[metric].unit === 'tok/s' ? ' tok/s' : '';

/** A metric's figure as a cell shows it: its own format, with "tok/s" where the format leaves the unit to a column. */
function metricCellText(metric: CellMetric, value: number | null): string {
  return `${CELL_METRIC_DEFS[metric].format(value)}${unitInCell(metric, value)}`;
}

/** The colour key's words for any metric: "0 to 1,053 ms TTFT (median), darker is lower (better)". */
export function metricKeyText(metric: CellMetric, maxValue: number): string {
  if (metric === 'total') return throughputKeyText(maxValue);
  const def = CELL_METRIC_DEFS[metric];
  return `0 to ${metricCellText(metric, maxValue)} ${def.label}, darker is ${def.better} (better)`;
}

const DIV_WORSE: Rgb = [0xc0, 0x39, 0x2b];
const DIV_SAME: Rgb = [0xf4, 0xf4, 0xf1];
const DIV_BETTER: Rgb = [0x1e, 0x84, 0x49];

/**
 * Diverging scale for a ratio B / A: neutral at 1, green above, red below, symmetric on a
 * log scale and saturating at 2× and 0.5×.
 */
export function divergingColor(ratio: number): string {
  if (!(ratio > 0)) return hex(DIV_SAME);
  const t = Math.max(-1, Math.min(1, Math.log2(ratio)));
  return hex(t >= 0 ? mix(DIV_SAME, DIV_BETTER, t) : mix(DIV_SAME, DIV_WORSE, -t));
}

/** The report's fill for each colour family of a cell with no figure: light greys, the failed ones slightly warm. */
const TONE_FILL: Record<StatusTone, string> = {
  measured: '#efefef',
  caution: '#efefef',
  discarded: '#f3dcd6',
  failed: '#f3dcd6',
  'not-run': '#e2e2e2',
  stopped: '#efefef',
};

/** Fill for cells with no figure, by its status's colour family (src-shared/session/status-words.ts). */
export function statusColor(status: CellStatus | null): string {
  return status ? TONE_FILL[STATUSES[status].tone] : TONE_FILL.stopped;
}

/** Black or white text, whichever reads better on the given #rrggbb fill. */
export function textColorOn(fill: string): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(fill);
  if (!m) return '#111111';
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return lum > 0.36 ? '#111111' : '#ffffff';
}

/** Fill of a measured cell that misses the service-level targets: grey, whatever its figure. */
export const MISSED_TARGET_FILL = '#dcdcdc';

/** Heatmap fill for a decode cell, in its metric's direction. */
export function decodeCellFill(cell: MatrixCellView, maxValue: number, better: 'higher' | 'lower' = 'higher'): string {
  if (cell.missesTargets && cell.kind === 'value') return MISSED_TARGET_FILL;
  if (cell.value === null) return statusColor(cell.status);
  return metricColor(cell.value, maxValue, better);
}

// ---- Heatmap data ----------------------------------------------------------------------

interface HeatmapCell {
  fill: string;
  /** One or two lines of text drawn in the cell. */
  lines: string[];
  title: string;
}

export interface HeatmapModel {
  title: string;
  /** The colour key under the grid ("0 to 4,786.2 tok/s total"), or null for a diverging map. */
  key: string | null;
  /** Which end of the key is better (darker); lower for TTFT, energy and cost. Higher unless said. */
  better?: 'higher' | 'lower';
  rowLabels: string[];
  colLabels: string[];
  rowAxis: string;
  colAxis: string;
  cells: HeatmapCell[][];
}

/** The decode matrix as a heatmap: colour by its metric, status words on grey. */
export function decodeHeatmap(m: DecodeMatrixModel): HeatmapModel {
  const def = CELL_METRIC_DEFS[m.metric];
  const what = m.metric === 'total' ? 'total tok/s' : def.label;
  return {
    title: `Sustained decode: ${what} by context length and simultaneous requests`,
    key: m.maxValue > 0 ? metricKeyText(m.metric, m.maxValue) : null,
    better: def.better,
    rowLabels: fmtContexts(m.contexts),
    colLabels: m.concurrency.map(String),
    rowAxis: 'Context',
    colAxis: 'Simultaneous requests',
    cells: m.rows.map((row) =>
      row.map((c) => ({
        fill: decodeCellFill(c, m.maxValue, def.better),
        lines: c.value === null ? [c.text] : [c.text, c.flag ?? c.detail],
        title: c.title,
      })),
    ),
  };
}
