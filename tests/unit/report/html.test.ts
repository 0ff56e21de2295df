import { describe, expect, it } from 'vitest';
import { importFile } from '../../../src-main/workflows/importers/index';
import { renderCompareHtml } from '../../../src-main/workflows/report/compare';
import { prefillChart, renderHtmlReport } from '../../../src-main/workflows/report/html';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import {
  buildDecodeMatrix,
  decodeHeatmap,
  divergingColor,
  sequentialColor,
  textColorOn,
} from '#shared/report/matrix-model';
import type { Session } from '#shared/session/schema';
import { SYNTHETIC_REPORT } from '../../helpers/paths';
import { sampleSession } from '../../helpers/sample-session';
import { PAYLOAD, poisonedSession } from './poison';

async function referenceSession(): Promise<Session> {
  const r = await importFile(SYNTHETIC_REPORT);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

const ALLOWED_TAGS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'main',
  'p',
  'h1',
  'h2',
  'h3',
  'div',
  'section',
  'dl',
  'dt',
  'dd',
  'ul',
  'li',
  'strong',
  'pre',
  'code',
  'figure',
  // The folded cell timelines: opened by the browser itself, no script.
  'details',
  'summary',
  // The overlay's normalisation switch: radio buttons and CSS, no script.
  'input',
  'label',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'footer',
  'svg',
  'g',
  'rect',
  'line',
  'polyline',
  'circle',
  'text',
]);

/**
 * Every tag in the document is one we write, and no attribute can run or load anything.
 * Text is escaped, so every "<" left in the document starts a real tag.
 */
function assertInert(html: string): void {
  expect(html).not.toMatch(/<script/i);
  const style = html.slice(html.indexOf('<style>'), html.indexOf('</style>'));
  expect(style).not.toMatch(/url\(|@import|@font-face|https?:/i);
  const tags = html.match(/<[^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(20);
  for (const tag of tags) {
    if (tag === '<!doctype html>') continue;
    const name = /^<\/?([a-zA-Z][\w:-]*)/.exec(tag)?.[1].toLowerCase();
    expect(name && ALLOWED_TAGS.has(name), `tag ${tag.slice(0, 60)}`).toBe(true);
    const body = tag.replace(/^<\/?[\w:-]+/, '').replace(/\/?>$/, '');
    const attrs = [...body.matchAll(/\s*([\w:-]+)(?:="([^"]*)")?/g)].filter((m) => m[0].trim());
    expect(attrs.map((m) => m[0].trim()).join(' ')).toBe(body.trim()); // nothing unparsed hides in the tag
    for (const [, attr, value = ''] of attrs) {
      expect(attr.toLowerCase(), tag).not.toMatch(/^on|^(href|src|xlink:href|action|formaction|srcdoc)$/);
      expect(value, tag).not.toMatch(/javascript:|https?:|url\(/i);
    }
  }
}

describe('HTML report', () => {
  it('is self-contained: no scripts, no external resources, a CSP that forbids both', async () => {
    const html = renderHtmlReport(await referenceSession());
    assertInert(html);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'`);
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('has the report sections plus the prefill chart and the decode heatmap as inline SVG', async () => {
    const html = renderHtmlReport(await referenceSession());
    expect(html).toContain('<h1>Example-2B on Example GPU 48GB</h1>');
    for (const h of ['Launch command', 'Prefill', 'Sustained decode', 'All measurements'])
      expect(html).toContain(`<h2>${h}</h2>`);
    for (const h of ['Hardware', 'Engine', 'Run']) expect(html).toContain(`<h3>${h}</h3>`);
    expect(html.match(/<svg /g)).toHaveLength(2);
    const prefillSvg = html.slice(html.indexOf('<svg '), html.indexOf('</svg>'));
    expect(prefillSvg.match(/<circle /g)).toHaveLength(2);
    expect(html).toContain('<td>1,200.0</td>');
    expect(html).toContain('--api-key &lt;redacted&gt;');
    expect(html).toMatch(/<td class="text tone-discarded">Looped<\/td>/);
  });

  it('has a print stylesheet for A4 and Letter and follows light and dark colour schemes', () => {
    const html = renderHtmlReport(sampleSession());
    expect(html).toContain('@page { margin: 12mm; }');
    expect(html).toContain('@media print');
    expect(html).toContain('@media (prefers-color-scheme: dark)');
    expect(html).toContain('print-color-adjust: exact');
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
  });

  it('lets nothing through from any string in the session', () => {
    const s = poisonedSession();
    expect(s.server.model?.startsWith(PAYLOAD)).toBe(true);
    expect(s.engine.name.startsWith(PAYLOAD)).toBe(true);
    const html = renderHtmlReport(s);
    assertInert(html);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The payload reached the title, the blocks, the launch line, the notes and the footer.
    expect(html.split('&lt;script&gt;alert(1)').length).toBeGreaterThan(10);

    const md = renderMarkdownReport(s);
    expect(md.replace(/^(`{3,})text\n[\s\S]*?\n\1$/gm, '')).not.toMatch(/<script|<img|<a /i);
    for (const row of md.split('\n').filter((l) => l.startsWith('| Sustained decode'))) {
      expect(row.split(/(?<!\\)\|/).length - 2).toBe(12);
    }

    const cmp = renderCompareHtml([s, sampleSession()]);
    assertInert(cmp);
    expect(cmp).toContain('&lt;script&gt;');
  });

  it('renders a session with nothing measured and says what is missing', () => {
    const s = sampleSession();
    s.prefill = [];
    s.cells = [];
    s.runConfig.contexts = [];
    s.runConfig.concurrency = [];
    const html = renderHtmlReport(s);
    assertInert(html);
    expect(html).toContain('No prefill measurements in this session.');
    expect(html).toContain('No decode measurements in this session.');
    expect(html).toContain('<li>Sustained decode: no measurements.</li>');
    expect(html).not.toContain('<svg ');
  });

  it('labels a simulated session with a banner next to the title', () => {
    const html = renderHtmlReport({ ...sampleSession(), simulated: true });
    const title = html.indexOf('<h1>');
    const banner = html.indexOf('<p class="banner">SIMULATED');
    expect(banner).toBeGreaterThan(title);
    expect(banner - title).toBeLessThan(200);
  });
});

describe('chart data for the app and the reports', () => {
  it('builds the decode heatmap model from the matrix', async () => {
    const s = await referenceSession();
    const m = buildDecodeMatrix(s);
    expect(m.contexts).toHaveLength(2);
    expect(m.concurrency).toEqual([1, 4, 16]);
    expect(m.maxValue).toBe(1200);
    expect(m.rows[0][0]).toMatchObject({ text: '100.0', detail: '40 ms TTFT', status: 'valid', flag: null });
    expect(m.rows[1][1]).toMatchObject({ text: 'Looped', value: null });
    const h = decodeHeatmap(m);
    expect(h.rowLabels).toEqual(['8K', '32K']);
    expect(h.cells[0][2].lines).toEqual(['1,200.0', '450 ms TTFT']);
    expect(h.cells[0][2].fill).toBe(sequentialColor(1));
    expect(h.cells[1][2].lines).toEqual(['Over capacity']);
  });

  it('colour scales: neutral at 1×, text readable on every fill', () => {
    expect(divergingColor(1)).toBe('#f4f4f1');
    expect(divergingColor(2)).toBe(divergingColor(8)); // saturates
    expect(divergingColor(0.5)).not.toBe(divergingColor(2));
    expect(textColorOn(sequentialColor(1))).toBe('#ffffff');
    expect(textColorOn(sequentialColor(0))).toBe('#111111');
  });
});

describe('prefill chart labels', () => {
  it('puts crowded contexts and their figures on separate lines, so 250K, 251K and 256K never overlap', () => {
    const s = sampleSession();
    s.prefill = [8192, 131072, 256000, 257984, 262144].map((context, i) => ({
      context,
      status: 'valid' as const,
      reason: null,
      measuredAt: null,
      promptTokens: context,
      ttftSeconds: 1 + i,
      tokensPerSecond: 20_000 - i * 100,
    }));
    const svg = prefillChart(s);
    const labels = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" text-anchor="middle"[^>]*>([^<]+)<\/text>/g)].map(
      (m) => ({
        x: Number(m[1]),
        y: Number(m[2]),
        text: m[3],
      }),
    );
    const axis = labels.filter((l) => /^\d+K$/.test(l.text));
    expect(axis.map((l) => l.text)).toEqual(['8K', '128K', '250K', '251K', '256K']);
    const values = labels.filter((l) => /^[\d.]+K$/.test(l.text) && l.text.includes('.'));
    expect(values).toHaveLength(5);
    for (const group of [axis, values]) {
      for (const [i, a] of group.entries()) {
        for (const b of group.slice(i + 1)) {
          const apart = Math.abs(a.x - b.x) >= 34 || Math.abs(a.y - b.y) >= 11; // the labels are 11 to 12 units tall
          expect(apart, `${a.text} and ${b.text} overlap`).toBe(true);
        }
      }
    }
  });
});
