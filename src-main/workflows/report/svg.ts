/**
 * Charts as inline SVG strings, from plain data: the prefill curve (one or more series) and
 * a heatmap grid. Pure functions, no scripts, no external references; every label is
 * escaped. Axis text uses currentColor so the charts follow the page's light or dark theme.
 */
import { escapeHtml as esc } from './escape';
import { fmtContext, fmtTokPerSec } from '#shared/report/format';
import { type HeatmapModel, metricColor, textColorOn } from '#shared/report/matrix-model';
import { fmtTick, zeroScale } from '#shared/report/scale';
import { type TimelineBar, type TimelineModel, timelineLayout } from '#shared/report/timeline';

interface CurvePoint {
  x: number;
  y: number;
  /** Tooltip text (SVG <title>). */
  title: string;
}

interface CurveSeries {
  label: string;
  color: string;
  /** An SVG stroke-dasharray ("6 4"), to tell a session's contexts apart; solid when absent. */
  dash?: string;
  points: CurvePoint[];
}

/** Colours for overlaid series: distinct, readable on light and dark backgrounds. */
const r1 = (v: number): string => (Math.round(v * 10) / 10).toString();

interface CurveChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  /** Label each point with its value (one series only reads well). */
  valueLabels?: boolean;
  width?: number;
  height?: number;
  /** An x value as its tick says it; contexts ("8K") unless given. */
  xTick?: (x: number) => string;
  /** False: the caller lists the series beside the chart (long names do not fit its top line). */
  legend?: boolean;
}

/** Centres of two labels of a context ("251K", "12.7K") closer than this overlap. */
const LABEL_GAP = 34;
/** One line of label text, in SVG units. */
const LINE = 14;

/**
 * Gives each label, left to right, the first line on which it clears the last label by LABEL_GAP:
 * 0 (its place), 1 (a line below), and so on, so three crowded contexts take three lines.
 */
function laneFinder(sx: (x: number) => number): (x: number) => number {
  const lastOnLane: number[] = [];
  return (x) => {
    const at = sx(x);
    let lane = lastOnLane.findIndex((last) => at - last >= LABEL_GAP);
    if (lane < 0) lane = lastOnLane.length;
    lastOnLane[lane] = at;
    return lane;
  };
}

/** Line chart over context length (log₂ x axis, since contexts double), y from 0 to a round top (scale.ts). */
export function curveChartSvg(series: readonly CurveSeries[], opts: CurveChartOptions): string {
  const W = opts.width ?? 720;
  const m = { top: 28, right: 20, bottom: 48, left: 64 };
  const pw = W - m.left - m.right;
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const yScale = zeroScale(Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.y))));
  const ymax = yScale.max;
  const lx = (x: number) => Math.log2(Math.max(1, x));
  const lo = xs.length ? lx(xs[0]) : 0;
  const hi = xs.length ? lx(xs[xs.length - 1]) : 1;
  const pad = 28; // keeps the first and last points clear of the axes
  const sx = (x: number) => m.left + pad + (hi > lo ? ((lx(x) - lo) / (hi - lo)) * (pw - 2 * pad) : (pw - 2 * pad) / 2);
  // Labels closer than LABEL_GAP to the last one on their line move to the next line (251K and 256K);
  // the chart grows by the lines the context labels take, so they stay clear of the axis title.
  const axisLane = laneFinder(sx);
  const axisLanes = xs.map(axisLane);
  const extraLines = Math.max(0, ...axisLanes);
  m.bottom += extraLines * LINE;
  const H = (opts.height ?? 300) + extraLines * LINE;
  const ph = H - m.top - m.bottom;
  const valueLane = laneFinder(sx);
  const sy = (y: number) => m.top + ph - (y / ymax) * ph;
  const out: string[] = [
    `<svg class="chart" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${esc(opts.title)}" font-family="inherit" font-size="12">`,
    `<title>${esc(opts.title)}</title>`,
  ];
  yScale.ticks.forEach((tick, i) => {
    const y = r1(sy(tick));
    out.push(
      `<line x1="${m.left}" x2="${W - m.right}" y1="${y}" y2="${y}" stroke="currentColor" stroke-opacity="${i === 0 ? 0.6 : 0.15}"/>`,
    );
    out.push(
      `<text x="${m.left - 8}" y="${y}" dy="0.32em" text-anchor="end" fill="currentColor">${esc(fmtTick(tick))}</text>`,
    );
  });
  xs.forEach((x, i) => {
    const dy = axisLanes[i] * LINE;
    out.push(
      `<text x="${r1(sx(x))}" y="${H - m.bottom + 18 + dy}" text-anchor="middle" fill="currentColor">${esc((opts.xTick ?? fmtContext)(x))}</text>`,
    );
  });
  out.push(
    `<text x="${m.left + pw / 2}" y="${H - 8}" text-anchor="middle" fill="currentColor" fill-opacity="0.75">${esc(opts.xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(14 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle" fill="currentColor" fill-opacity="0.75">${esc(opts.yLabel)}</text>`,
  );
  for (const s of series) {
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    if (pts.length > 1) {
      out.push(
        `<polyline fill="none" stroke="${esc(s.color)}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${esc(s.dash)}"` : ''} points="${pts.map((p) => `${r1(sx(p.x))},${r1(sy(p.y))}`).join(' ')}"/>`,
      );
    }
    pts.forEach((p) => {
      out.push(
        `<circle cx="${r1(sx(p.x))}" cy="${r1(sy(p.y))}" r="4" fill="${esc(s.color)}"><title>${esc(p.title)}</title></circle>`,
      );
      if (opts.valueLabels) {
        const lane = valueLane(p.x);
        // Lines alternate above and below the point: 0 above, 1 below, 2 a line higher, ...
        const dy = lane % 2 === 0 ? -9 - (lane / 2) * LINE : 18 + ((lane - 1) / 2) * LINE;
        out.push(
          `<text x="${r1(sx(p.x))}" y="${r1(sy(p.y) + dy)}" text-anchor="middle" fill="currentColor" font-size="11">${esc(fmtTokPerSec(p.y))}</text>`,
        );
      }
    });
  }
  if (series.length > 1 && opts.legend !== false) {
    series.forEach((s, i) => {
      const x = m.left + 8 + i * Math.floor(pw / series.length);
      out.push(`<rect x="${x}" y="6" width="12" height="12" fill="${esc(s.color)}"/>`);
      out.push(`<text x="${x + 17}" y="12" dy="0.32em" fill="currentColor">${esc(s.label)}</text>`);
    });
  }
  out.push('</svg>');
  return out.join('');
}

/** The heatmap's colour key: the zero-anchored ramp from 0 to the largest value (as steps, no gradient element) in the metric's direction, and what its ends mean. */
function colourKey(text: string, x: number, y: number, better: 'higher' | 'lower'): string[] {
  const steps = 12;
  const w = 10;
  const swatches = Array.from(
    { length: steps },
    (_, i) =>
      `<rect x="${x + i * w}" y="${y}" width="${w}" height="10" fill="${metricColor(i / (steps - 1), 1, better)}"/>`,
  );
  return [
    ...swatches,
    `<text x="${x + steps * w + 8}" y="${y + 5}" dy="0.32em" fill="currentColor" font-size="11">${esc(text)}</text>`,
  ];
}

/**
 * A grid of coloured cells with row and column labels; text colour follows each fill. Drawn at
 * its natural size (the stylesheet only shrinks it to the page), so a 2 × 2 matrix stays small
 * instead of being blown up to the page width with labels three times the size of the text.
 */
export function heatmapSvg(model: HeatmapModel): string {
  const cw = 96;
  const ch = 42;
  const left = 64;
  const top = 44;
  const gridBottom = top + ch * model.rowLabels.length;
  const keyHeight = model.key ? 30 : 0;
  const W = Math.max(left + cw * model.colLabels.length + 4, model.key ? left + 320 : 0);
  const H = gridBottom + 4 + keyHeight;
  const out: string[] = [
    `<svg class="chart heatmap" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(model.title)}" font-family="inherit" font-size="12">`,
    `<title>${esc(model.title)}</title>`,
    `<text x="${left + (cw * model.colLabels.length) / 2}" y="13" text-anchor="middle" fill="currentColor" fill-opacity="0.75">${esc(model.colAxis)}</text>`,
    `<text x="4" y="${top - 8}" fill="currentColor" fill-opacity="0.75">${esc(model.rowAxis)}</text>`,
  ];
  model.colLabels.forEach((c, j) => {
    out.push(
      `<text x="${left + j * cw + cw / 2}" y="${top - 8}" text-anchor="middle" fill="currentColor" font-weight="600">${esc(c)}</text>`,
    );
  });
  model.rowLabels.forEach((r, i) => {
    const y = top + i * ch;
    out.push(
      `<text x="${left - 8}" y="${y + ch / 2}" dy="0.32em" text-anchor="end" fill="currentColor" font-weight="600">${esc(r)}</text>`,
    );
    model.cells[i].forEach((cell, j) => {
      const x = left + j * cw;
      const ink = textColorOn(cell.fill);
      out.push(
        `<g><title>${esc(cell.title)}</title><rect x="${x + 1}" y="${y + 1}" width="${cw - 2}" height="${ch - 2}" rx="3" fill="${esc(cell.fill)}"/>`,
      );
      const [a, b] = cell.lines;
      if (b) {
        // A figure with its failed requests ("1,234.5 (2 failed)") gets a smaller font to fit the cell.
        const size = a.length > 14 ? 9 : a.length > 11 ? 10.5 : 12;
        out.push(
          `<text x="${x + cw / 2}" y="${y + ch / 2 - 7}" dy="0.32em" text-anchor="middle" fill="${ink}" font-weight="600" font-size="${size}">${esc(a)}</text>`,
        );
        out.push(
          `<text x="${x + cw / 2}" y="${y + ch / 2 + 8}" dy="0.32em" text-anchor="middle" fill="${ink}" font-size="10">${esc(b)}</text>`,
        );
      } else {
        out.push(
          `<text x="${x + cw / 2}" y="${y + ch / 2}" dy="0.32em" text-anchor="middle" fill="${ink}" font-size="${(a ?? '').length > 12 ? 10 : 12}">${esc(a ?? '')}</text>`,
        );
      }
      out.push('</g>');
    });
  });
  if (model.key) out.push(...colourKey(model.key, left, gridBottom + 12, model.better ?? 'higher'));
  out.push('</svg>');
  return out.join('');
}

const OUTCOME_COLOR: Record<TimelineBar['outcome'], string> = {
  done: '#2f6fb3',
  cancelled: '#5b8fc7',
  error: '#b3402a',
};

/**
 * A cell's requests as horizontal bars over time (timeline.ts): the pale start of each bar is its
 * time to first token, a red mark its large gap between tokens, the shaded band the window.
 */
export function timelineSvg(model: TimelineModel, title: string): string {
  const L = timelineLayout(model.bars.length);
  const X = (f: number) => r1(L.x(f));
  const wide = (from: number, to: number, min: number) => r1(Math.max(min, (to - from) * L.plotWidth));
  const out = [
    `<svg class="chart timeline" viewBox="0 0 ${L.width} ${r1(L.height)}" width="${L.width}" height="${r1(L.height)}" role="img" aria-label="${esc(title)}" font-family="inherit" font-size="11">`,
  ];
  if (model.window) {
    const w = model.window;
    out.push(
      `<rect x="${X(w.start)}" y="${L.top}" width="${wide(w.start, w.end, 0)}" height="${r1(L.plotHeight)}" fill="currentColor" opacity="0.07"/>`,
    );
  }
  for (const t of model.ticks) {
    out.push(
      `<line x1="${X(t.at)}" x2="${X(t.at)}" y1="${L.top}" y2="${r1(L.top + L.plotHeight + 4)}" stroke="currentColor" opacity="0.2"/>`,
      `<text x="${X(t.at)}" y="${r1(L.tickTextY)}" text-anchor="middle" fill="currentColor">${esc(t.text)}</text>`,
    );
  }
  model.bars.forEach((b, i) => {
    const { y, h } = L.bar(i);
    const at = `y="${r1(y)}" height="${r1(h)}"`;
    const color = OUTCOME_COLOR[b.outcome];
    out.push(
      `<g><title>${esc(b.title)}</title>`,
      `<rect x="${X(b.sent)}" ${at} width="${wide(b.sent, b.first ?? b.end, 0.5)}" fill="${color}" opacity="0.35"/>`,
    );
    if (b.first !== null)
      out.push(`<rect x="${X(b.first)}" ${at} width="${wide(b.first, b.end, 0.5)}" fill="${color}"/>`);
    if (b.gap)
      out.push(
        `<rect class="gap" x="${X(b.gap.start)}" ${at} width="${wide(b.gap.start, b.gap.end, 1.5)}" fill="#e8a33d"/>`,
      );
    out.push('</g>');
  });
  out.push('</svg>');
  return out.join('');
}
