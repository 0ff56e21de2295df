/**
 * The sessions overlaid in a comparison's HTML and Markdown (src-main/workflows/report/overlay.ts):
 * a panel per normalisation behind a script-free switch, a line per session and context drawn in the
 * session's colour, each named by its hardware and method; the reasons a session has no figure;
 * the ranking per GPU and per price per hour with the price given.
 */
import { describe, expect, it } from 'vitest';
import { renderCompareHtml, renderCompareMarkdown } from '../../../src-main/workflows/report/compare';
import { REPORT_CSS } from '../../../src-main/workflows/report/style';
import type { Session } from '#shared/session/schema';
import { powerTelemetry, sampleCell, sampleSession } from '../../helpers/sample-session';

function session(gpus: number, display: string, totals: number[], watts: number | null): Session {
  const s = sampleSession();
  s.hardware.gpus = Array.from({ length: gpus }, (_, i) => ({ ...s.hardware.gpus[0], index: i, name: 'H100' }));
  s.server.display = display;
  s.cells = [8192, 16384].flatMap((context) =>
    totals.map((t, i) =>
      sampleCell(context, 2 ** i, {
        totalTokensPerSecond: t,
        perRequestTokensPerSecond: t / 2 ** i,
        telemetry: powerTelemetry(watts, t),
      }),
    ),
  );
  return s;
}

const one = () => session(1, 'vllm serve m', [100, 190, 350], 500);
const two = () => session(2, 'vllm serve m -tp 2', [120, 230, 600], null);
const panelOf = (html: string, mode: string) =>
  html.slice(
    html.indexOf(`data-normalisation="${mode}"`),
    html.indexOf('</section>', html.indexOf(`data-normalisation="${mode}"`)),
  );

describe('the sessions overlaid in a comparison report', () => {
  it('switches between the normalisations with radio buttons and CSS, as measured first', () => {
    const html = renderCompareHtml([one(), two()]);
    expect(html).toContain('<h2>Sessions overlaid</h2>');
    expect(html).toMatch(
      /<input type="radio" name="overlay-normalisation" id="overlay-measured" value="measured" checked>/,
    );
    for (const mode of ['per-gpu', 'per-watt', 'per-price']) expect(html).toContain(`id="overlay-${mode}"`);
    expect(REPORT_CSS).toContain('#overlay-per-gpu:checked ~ .overlay-per-gpu');
    expect(html).not.toMatch(/<script/);
  });

  it('draws a line per session and context, named by hardware and method, a context by its dash', () => {
    const measured = panelOf(renderCompareHtml([one(), two()]), 'measured');
    expect(measured.match(/<polyline /g)).toHaveLength(4);
    expect(measured.match(/stroke-dasharray/g)?.length).toBeGreaterThanOrEqual(2);
    expect(measured).toContain('A · H100 × 1 · SpeedMatrix 0.1.0 · 8K');
    expect(measured).toContain('B · H100 × 2 · SpeedMatrix 0.1.0 · 16K');
    expect(measured).toContain('Total tok/s against requests at once');
  });

  it('ranks per GPU fairly and says why a session has no per-watt figure', () => {
    const html = renderCompareHtml([one(), two()]);
    const perGpu = panelOf(html, 'per-gpu');
    expect(perGpu).toContain('1. A · H100 × 1 · SpeedMatrix 0.1.0: 350.0 tok/s per GPU at 8K × 4');
    expect(perGpu).toContain('2. B · H100 × 2 · SpeedMatrix 0.1.0: 300.0 tok/s per GPU at 8K × 4');
    const perWatt = panelOf(html, 'per-watt');
    expect(perWatt.match(/<polyline /g)).toHaveLength(2);
    expect(perWatt).toContain('B: no GPU power telemetry');
    expect(panelOf(html, 'per-price')).toContain('give a GPU price per hour');
  });

  it('uses the GPU price given for tok/s per price per hour, in its currency, in HTML and Markdown', () => {
    const gpuPrice = { perHour: 2, currency: 'EUR' };
    expect(panelOf(renderCompareHtml([one(), two()], {}, { gpuPrice }), 'per-price')).toContain(
      '1. A · H100 × 1 · SpeedMatrix 0.1.0: 175.0 tok/s per EUR/h at 8K × 4',
    );
    const md = renderCompareMarkdown([one(), two()], { gpuPrice });
    expect(md).toContain('## Sessions overlaid');
    expect(md).toContain(
      '### Per price per hour\n\n- 1\\. A · H100 × 1 · SpeedMatrix 0.1.0: 175.0 tok/s per EUR/h at 8K × 4',
    );
    expect(md).toContain('### Per watt');
  });
});
