/**
 * The sessions overlaid (src-shared/report/overlay.ts) in a comparison's HTML and Markdown: total
 * tok/s against requests at once, a line per session and context, under each normalisation. The
 * HTML switches between them with radio buttons and CSS alone (a report and the results site run no
 * script of their own for it); print shows every normalisation one after another.
 */
import type { ComparisonModel } from '#shared/report/compare-model';
import {
  NORMALISATIONS,
  NORMALISATION_LABELS,
  type Normalisation,
  normalisationUnavailable,
  normalisedUnit,
  overlayContexts,
  overlayRanking,
  overlaySeries,
} from '#shared/report/overlay';
import type { GpuPrice } from '#shared/report/price';
import { SERIES_COLORS } from '#shared/report/scale';
import { escapeHtml as esc, escapeMarkdownLine as line } from './escape';
import { curveChartSvg } from './svg';

/** A context's dash, in the order of contexts (solid for the shortest). */
const DASHES = ['', '7 4', '2 3', '9 3 2 3', '14 4', '4 2'];

export const OVERLAY_CAPTION =
  'Total tok/s against requests at once, a line per session and context (a colour per session, a dash per context), each named by its hardware (GPU × the GPUs its server used) and the tool that measured. Per GPU divides by those GPUs, so runs on different GPU counts rank fairly; per watt by the server’s mean power draw; per price per hour by the GPU price × those GPUs.';

/** One normalisation's chart, legend, ranking and the reasons sessions have no figure. */
function panel(m: ComparisonModel, mode: Normalisation, price: GpuPrice | null): string[] {
  const contexts = overlayContexts(m.overlay);
  const series = overlaySeries(m.overlay, mode, price, null);
  const unit = normalisedUnit(mode, price);
  const out = [
    `<section class="overlay-panel overlay-${mode}" data-normalisation="${mode}">`,
    `<h3>${esc(NORMALISATION_LABELS[mode])}</h3>`,
  ];
  const styled = series.map((s) => ({
    s,
    color: SERIES_COLORS[s.sessionIndex % SERIES_COLORS.length],
    dash: DASHES[contexts.indexOf(s.context) % DASHES.length],
  }));
  if (series.length) {
    const chart = curveChartSvg(
      styled.map(({ s, color, dash }) => ({
        label: s.name,
        color,
        dash: dash || undefined,
        points: s.x.map((x, i) => ({ x, y: s.y[i], title: s.text[i] })),
      })),
      {
        title: `Total ${unit} against requests at once`,
        xLabel: 'Requests at once (log scale)',
        yLabel: `Total ${unit}`,
        height: 320,
        xTick: String,
        legend: false,
      },
    );
    out.push(`<figure>${chart}</figure>`, '<ul class="legend overlay-legend">');
    for (const { s, color, dash } of styled) {
      const swatch = `<svg width="28" height="10" aria-hidden="true"><line x1="0" y1="5" x2="28" y2="5" stroke="${esc(color)}" stroke-width="2.5"${dash ? ` stroke-dasharray="${dash}"` : ''}/></svg>`;
      out.push(`<li>${swatch} ${esc(s.name)}</li>`);
    }
    out.push('</ul>');
  }
  const missing = m.overlay.flatMap((s) => normalisationUnavailable(s, mode, price) ?? []);
  if (missing.length) out.push(`<ul class="notes">${missing.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`);
  if (series.length) {
    const ranking = overlayRanking(m.overlay, mode, price, null);
    out.push(`<p class="caption">Best of each session (${esc(NORMALISATION_LABELS[mode].toLowerCase())}):</p>`);
    out.push(`<ul class="notes overlay-ranking">${ranking.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`);
  }
  return [...out, '</section>'];
}

/** The overlay as HTML, or nothing when no session has a decode figure. */
export function overlayHtml(m: ComparisonModel, price: GpuPrice | null): string[] {
  if (overlayContexts(m.overlay).length === 0) return [];
  const out = ['<h2>Sessions overlaid</h2>', `<p class="caption">${esc(OVERLAY_CAPTION)}</p>`, '<div class="overlay">'];
  NORMALISATIONS.forEach((mode, i) =>
    out.push(
      `<input type="radio" name="overlay-normalisation" id="overlay-${mode}" value="${mode}"${i === 0 ? ' checked' : ''}>`,
      `<label for="overlay-${mode}">${esc(NORMALISATION_LABELS[mode])}</label>`,
    ),
  );
  for (const mode of NORMALISATIONS) out.push(...panel(m, mode, price));
  return [...out, '</div>'];
}

/** The overlay in Markdown: each normalisation's ranking (the chart is the HTML's). */
export function overlayMarkdown(m: ComparisonModel, price: GpuPrice | null): string[] {
  if (overlayContexts(m.overlay).length === 0) return [];
  const out = ['## Sessions overlaid', '', line(OVERLAY_CAPTION), ''];
  for (const mode of NORMALISATIONS) {
    out.push(`### ${NORMALISATION_LABELS[mode]}`, '');
    out.push(...overlayRanking(m.overlay, mode, price, null).map((r) => `- ${line(r)}`), '');
  }
  return out;
}
