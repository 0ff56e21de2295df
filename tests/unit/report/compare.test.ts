import { describe, expect, it } from 'vitest';
import { importFile } from '../../../src-main/workflows/importers/index';
import { renderCompareHtml, renderCompareMarkdown } from '../../../src-main/workflows/report/compare';
import { type SweepEntry, renderSweepHtml, renderSweepMarkdown } from '../../../src-main/workflows/report/sweep';
import { compareSessions } from '#shared/report/compare-model';
import { divergingColor } from '#shared/report/matrix-model';
import type { Session } from '#shared/session/schema';
import { SYNTHETIC_REPORT } from '../../helpers/paths';
import { tableAfter } from './reference-text';

async function reference(): Promise<Session> {
  const r = await importFile(SYNTHETIC_REPORT);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

/** B: the same run on a faster setup: 10 % more decode, 20 % more prefill, other flags. */
async function faster(): Promise<Session> {
  const b = structuredClone(await reference());
  b.engine.version = '0.31.0';
  b.server.display = b.server.display.replace(
    '--gpu-memory-utilization 0.8',
    '--gpu-memory-utilization 0.90 --enable-chunked-prefill',
  );
  b.server.argv = [];
  for (const c of b.cells) if (c.totalTokensPerSecond !== null) c.totalTokensPerSecond *= 1.1;
  for (const p of b.prefill) if (p.tokensPerSecond !== null) p.tokensPerSecond *= 1.2;
  const c = b.cells.find((x) => x.context === 32768 && x.concurrency === 4)!;
  Object.assign(c, { status: 'valid', totalTokensPerSecond: 330 });
  const q = b.cells.find((x) => x.context === 8192 && x.concurrency === 4)!;
  q.status = 'queued';
  return b;
}

describe('compare', () => {
  it('builds a ratio for every pair with figures, the Valid pairs as the headline and the others with their status', async () => {
    const m = compareSessions([await reference(), await faster()]);
    expect(m.labels).toEqual(['A', 'B']);
    expect(m.decode).toHaveLength(1);
    const r = m.decode[0];
    expect(r.label).toBe('B / A');
    const at = (ctx: number, c: number) => r.rows[r.contexts.indexOf(ctx)][r.concurrency.indexOf(c)];
    expect(at(8192, 1).ratio).toBeCloseTo(1.1, 9);
    expect(at(8192, 1).text).toBe('1.10×');
    expect(at(8192, 1)).toMatchObject({ verdict: 'faster', headline: true, note: null });
    expect(at(8192, 1).fill).toBe(divergingColor(1.1));
    expect(at(32768, 4)).toMatchObject({ ratio: null, verdict: null, text: 'A: Looped' });
    expect(at(8192, 4)).toMatchObject({ verdict: 'faster', headline: false, text: '1.10× · B: Requests queued' });
    expect(at(8192, 4).ratio).toBeCloseTo(1.1, 9);
    expect(at(32768, 16)).toMatchObject({ ratio: null, text: 'A and B: Over capacity' });
    expect(m.prefill[0].ratios[1]).toBeCloseTo(1.2, 9);
  });

  it('compares a Stream stalled cell’s kept figure, marked with its status, outside the headline', async () => {
    const b = await faster();
    const stalled = b.cells.find((x) => x.context === 8192 && x.concurrency === 16)!;
    stalled.status = 'stalled';
    const m = compareSessions([await reference(), b]);
    const r = m.decode[0];
    expect(r.rows[r.contexts.indexOf(8192)][r.concurrency.indexOf(16)]).toMatchObject({
      headline: false,
      note: 'B: Stream stalled',
      text: '1.10× · B: Stream stalled',
    });
    const d = m.deltas.find((x) => x.context === 8192 && x.concurrency === 16)!;
    expect(d.statuses).toEqual(['Valid', 'Stream stalled']);
    expect(d.totals[1]).toBe(stalled.totalTokensPerSecond);
    expect(d.totalTexts[1]).not.toBe('—');
    expect(d.changes[1]).toBeCloseTo(0.1, 9);
  });

  it('marks the settings that differ: engine version and launch flags, not the GPU', async () => {
    const m = compareSessions([await reference(), await faster()]);
    const row = (field: string) => m.differences.find((d) => d.field === field)!;
    expect(row('Version')).toMatchObject({ values: ['0.12.0', '0.31.0'], differs: true });
    expect(row('--gpu-memory-utilization')).toMatchObject({ values: ['0.8', '0.90'], differs: true });
    expect(row('--enable-chunked-prefill')).toMatchObject({ values: ['—', 'true'], differs: true });
    expect(row('GPU').differs).toBe(false);
    expect(row('--max-model-len').differs).toBe(false);
    expect(m.differences.find((d) => d.field === '--api-key')).toBeUndefined();
  });

  it('lists deltas per measurement with the change against A', async () => {
    const m = compareSessions([await reference(), await faster()]);
    const d = m.deltas.find((x) => x.context === 8192 && x.concurrency === 16)!;
    expect(d.statuses).toEqual(['Valid', 'Valid']);
    expect(d.changes[1]).toBeCloseTo(0.1, 9);
    const md = renderCompareMarkdown([await reference(), await faster()]);
    const rows = tableAfter(md.slice(md.indexOf('## Deltas')), 'Context');
    expect(rows[0]).toEqual([
      'Context',
      'Requests at once',
      'A status',
      'B status',
      'A total tok/s',
      'B total tok/s',
      'B vs A',
      'A TTFT',
      'B TTFT',
    ]);
    expect(rows.find((r) => r[0] === '8K' && r[1] === '16')).toEqual([
      '8K',
      '16',
      'Valid',
      'Valid',
      '1,200.0',
      '1,320.0',
      '+10.0%',
      '450 ms',
      '450 ms',
    ]);
  });

  it('Markdown form: differences in bold, prefill side by side, the ratio matrix', async () => {
    const md = renderCompareMarkdown([await reference(), await faster()]);
    expect(md).toContain('| **Engine** | **Version** | **0.12.0** | **0.31.0** | **≠** |');
    expect(md).toContain('| Hardware | GPU | Example GPU 48GB | Example GPU 48GB |  |');
    const prefill = tableAfter(md.slice(md.indexOf('## Prefill')), 'Context');
    expect(prefill[1]).toEqual(['8K', '20.0K', '24.0K', '1.20×', '400 ms', '400 ms']);
    const ratio = tableAfter(md.slice(md.indexOf('## Sustained decode: B / A')), 'Context');
    expect(ratio).toHaveLength(3);
    expect(ratio[1]).toEqual(['8K', '1.10×', '1.10× · B: Requests queued', '1.10×']);
    expect(ratio[2]).toEqual(['32K', '1.10×', 'A: Looped', 'A and B: Over capacity']);
  });

  it('HTML form: overlaid prefill curves, a ratio heatmap per session, highlighted differences', async () => {
    const html = renderCompareHtml([await reference(), await faster()]);
    expect(html).not.toMatch(/<script/i);
    // The prefill curves and the heatmap; the sessions overlaid have their own test (overlay-report.test.ts).
    const charts = html.replace(/<div class="overlay">[\s\S]*?<\/div>/, '');
    expect(charts.match(/<svg /g)).toHaveLength(2);
    const overlay = charts.slice(charts.indexOf('<svg '), charts.indexOf('</svg>'));
    expect(overlay.match(/<polyline /g)).toHaveLength(2);
    expect(html).toContain('<tr class="diff"><td>Engine</td><td>Version</td>');
    expect(html).toContain('<tr><td>Hardware</td><td>GPU</td>');
  });

  it('compares three sessions against the first', async () => {
    const a = await reference();
    const m = compareSessions([a, await faster(), a]);
    expect(m.decode.map((d) => d.label)).toEqual(['B / A', 'C / A']);
    expect(m.decode[1].rows[0][0].ratio).toBe(1);
    // A and C are the same run: the titles say which file each came from.
    expect(m.titles[0]).toMatch(/\(synthetic-matrix\.txt\)$/);
    expect(m.titles[1]).not.toMatch(/\.txt\)$/);
    expect(() => compareSessions([a])).toThrow(/at least two/);
  });
  it('says SIMULATED above a comparison or sweep of simulated sessions, in Markdown and HTML, and nothing otherwise', async () => {
    const real = await reference();
    const sim = { ...(await faster()), simulated: true };
    const some = 'SIMULATED: at least one of these sessions comes from';
    expect(renderCompareMarkdown([real, sim])).toContain(`> **${some}`);
    expect(renderCompareHtml([real, sim])).toContain(`<p class="banner">${some}`);
    const entry = (session: Session, i: number): SweepEntry => ({
      variant: { settings: [], label: `v${i}` },
      file: `v${i}.speedmatrix.json`,
      session,
      failure: null,
    });
    const all = [sim, { ...sim }].map(entry);
    expect(renderSweepMarkdown(all)).toContain('> **SIMULATED: all of these sessions come from');
    expect(renderSweepHtml(all)).toContain('<p class="banner">SIMULATED: all of these sessions come from');
    for (const text of [renderCompareMarkdown([real, real]), renderSweepHtml([real, real].map(entry))])
      expect(text).not.toContain('SIMULATED');
  });
});

describe('the simulated banner', () => {
  const MD_BANNER = /^> \*\*SIMULATED: .*simulated vLLM server.*\*\*$/m;
  const HTML_BANNER = /<p class="banner">SIMULATED: [^<]*simulated vLLM server[^<]*<\/p>/;
  async function pair(simulated: boolean): Promise<Session[]> {
    const a = await reference();
    const b = await faster();
    b.simulated = simulated;
    return [a, b];
  }
  const entries = (sessions: Session[]): SweepEntry[] =>
    sessions.map((session, i) => ({
      variant: { settings: [], label: `--max-num-seqs=${4 ** (i + 1)}` },
      file: `v${i}.speedmatrix.json`,
      session,
      failure: null,
    }));

  it('heads a comparison, Markdown and HTML, when any session is simulated, and only then', async () => {
    const sim = await pair(true);
    expect(renderCompareMarkdown(sim)).toMatch(MD_BANNER);
    expect(renderCompareHtml(sim)).toMatch(HTML_BANNER);
    const real = await pair(false);
    expect(renderCompareMarkdown(real)).not.toMatch(/SIMULATED/);
    expect(renderCompareHtml(real)).not.toMatch(/SIMULATED/);
  });

  it('heads a sweep report, Markdown and HTML, also when too few variants ran to compare', async () => {
    const sim = await pair(true);
    for (const e of [entries(sim), entries([sim[1]])]) {
      expect(renderSweepMarkdown(e)).toMatch(MD_BANNER);
      expect(renderSweepHtml(e)).toMatch(HTML_BANNER);
    }
    const real = entries(await pair(false));
    expect(renderSweepMarkdown(real)).not.toMatch(/SIMULATED/);
    expect(renderSweepHtml(real)).not.toMatch(/SIMULATED/);
  });
});
