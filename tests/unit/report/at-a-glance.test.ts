/**
 * "At a glance": the headline figures every report, the results site's run pages and the app open
 * with, defined once from the session (at-a-glance.ts). Expected figures are read from the session
 * the test builds, not written out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atAGlance } from '#shared/report/at-a-glance';
import { buildReportModel } from '#shared/report/report-model';
import { buildCapacitySection } from '#shared/report/capacity-section';
import { fmtContext, fmtRate, fmtTokPerSec } from '#shared/report/format';
import { parseTargets } from '#shared/report/slo';
import { siteRunFigures } from '#shared/report/site-index';
import type { Session } from '#shared/session/schema';
import { importText } from '../../../src-main/workflows/importers';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { ROOT } from '../../helpers/paths';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

/** The sample session with a longer prefill point and a faster cell at the longer context. */
function widerSession(): Session {
  const s = sampleSession();
  s.prefill.push({ ...s.prefill[1], context: 65536, promptTokens: 65536, ttftSeconds: 2.1, tokensPerSecond: 31_200 });
  s.cells.push(sampleCell(16384, 4, { totalTokensPerSecond: 777.7, perRequestTokensPerSecond: 194.4 }));
  return s;
}

const peer = (name: string): Session => {
  const r = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
  if (!r.ok) throw new Error(r.error);
  return r.data;
};

const byLabel = (items: ReturnType<typeof atAGlance>) => new Map(items.map((g) => [g.label, g]));

describe('at a glance, for a matrix session', () => {
  it('gives prefill at 8K and at the longest context, one request alone, and the peak and where', () => {
    const s = widerSession();
    const g = byLabel(atAGlance(s));
    const at8k = s.prefill.find((p) => p.context === 8192)!;
    const longest = s.prefill.find((p) => p.context === 65536)!;
    expect(g.get('Prefill at 8K')?.value).toBe(`${fmtTokPerSec(at8k.tokensPerSecond)} tok/s`);
    expect(g.get(`Prefill at ${fmtContext(65536)}`)?.value).toBe(`${fmtTokPerSec(longest.tokensPerSecond)} tok/s`);
    const single = s.cells.find((c) => c.context === 8192 && c.concurrency === 1)!;
    expect(g.get('Decode, 1 request')?.value).toBe(`${fmtTokPerSec(single.totalTokensPerSecond)} tok/s`);
    expect(g.get('Decode, 1 request')?.detail).toContain('8K context');
    const peak = g.get('Peak decode')!;
    expect(peak.value).toBe(`${fmtTokPerSec(777.7)} tok/s total`);
    expect(peak.detail).toBe('16K context × 4 requests at once');
  });

  it('says every figure with its unit', () => {
    for (const item of atAGlance(widerSession(), parseTargets('ttft-p90<=2s'))) {
      expect(item.value).toMatch(/tok\/s|requests? at once|none/);
    }
  });

  it('leaves out a figure the session lacks instead of showing an empty one', () => {
    const s = sampleSession();
    s.prefill = s.prefill.filter((p) => p.context !== 8192);
    const labels = atAGlance(s).map((g) => g.label);
    expect(labels).not.toContain('Prefill at 8K');
    expect(labels).toContain(`Prefill at ${fmtContext(16384)}`);
    expect(atAGlance({ ...s, prefill: [], cells: [] })).toEqual([]);
  });

  it('counts only the latest measurement of a cell that was rerun', () => {
    const s = sampleSession();
    s.cells.push(sampleCell(8192, 2, { status: 'error', totalTokensPerSecond: null }));
    s.cells.push(sampleCell(8192, 2, { totalTokensPerSecond: 999.9 }));
    expect(byLabel(atAGlance(s)).get('Peak decode')?.value).toBe(`${fmtTokPerSec(999.9)} tok/s total`);
  });

  it('adds capacity within targets only when targets are set, from the capacity table’s own figures', () => {
    const s = widerSession();
    expect(atAGlance(s).map((g) => g.label)).not.toContain('Capacity within targets');
    const set = parseTargets('ttft-p90<=2s,per-request>=100');
    const capacity = byLabel(atAGlance(s, set)).get('Capacity within targets')!;
    const section = buildCapacitySection(s, set);
    // The glance names the context whose capacity gives the most total tok/s: its row in the table.
    const row = section.rows.find((r) => capacity.value.endsWith(`at once at ${r[0]}`))!;
    // The table's count may go on with the cells it passed over ("4; 2 not measured: Looped").
    expect(capacity.value).toBe(`${row[1].split(';')[0]} requests at once at ${row[0]}`);
    expect(capacity.detail).toContain(`${row[2]} tok/s total`);
    expect(capacity.detail).toContain(section.targets[0]);
    const none = byLabel(atAGlance(s, parseTargets('per-request>=100000'))).get('Capacity within targets')!;
    expect(none.value).toBe('none');
  });

  it('agrees with the results site’s index figures for the same run', () => {
    const s = widerSession();
    const site = siteRunFigures(s);
    const g = byLabel(atAGlance(s));
    expect(g.get('Prefill at 8K')?.value).toBe(`${fmtTokPerSec(site.prefill8k)} tok/s`);
    expect(g.get('Decode, 1 request')?.value).toBe(`${fmtTokPerSec(site.decodeSingle)} tok/s`);
    expect(g.get('Peak decode')?.value).toBe(`${fmtTokPerSec(site.bestTotal)} tok/s total`);
  });
});

describe('at a glance, for a load session', () => {
  it('gives the most requests per second achieved, and no matrix figures', () => {
    const s = peer('guidellm-benchmarks.json');
    const items = atAGlance(s);
    const most = Math.max(...s.load!.results.map((r) => r.achievedRate));
    expect(items.map((g) => g.label)).toEqual(['Most achieved']);
    expect(items[0].value).toBe(`${fmtRate(most)} req/s`);
  });

  it('adds the best rate within targets when the run had targets', () => {
    const s = peer('guidellm-benchmarks.json');
    s.load = { ...s.load!, bestRateWithinSlo: 6.5, config: { ...s.load!.config, slo: { ttftSeconds: 1 } } };
    expect(byLabel(atAGlance(s)).get('Best rate within targets')?.value).toBe(`${fmtRate(6.5)} req/s`);
    s.load = { ...s.load, bestRateWithinSlo: null };
    expect(byLabel(atAGlance(s)).get('Best rate within targets')?.value).toBe('none');
  });
});

describe('the reports open with the glance', () => {
  it('Markdown puts it after the title lines and before the Hardware block', () => {
    const s = widerSession();
    const md = renderMarkdownReport(s);
    const at = md.indexOf('\n## At a glance\n');
    expect(at).toBeGreaterThan(md.indexOf('\n# '));
    expect(at).toBeLessThan(md.indexOf('\n## Hardware\n'));
    for (const g of buildReportModel(s).glance) expect(md).toContain(`- **${g.label}**: ${g.value} (${g.detail})`);
  });

  it('HTML (and so PDF and the site’s run pages) shows each figure before the blocks', () => {
    const s = widerSession();
    const html = renderHtmlReport(s);
    const at = html.indexOf('<section class="glance"');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(html.indexOf('<div class="blocks">'));
    for (const g of buildReportModel(s).glance) expect(html).toContain(`<dd class="glance-value">${g.value}</dd>`);
  });

  it('a load report opens with its own glance', () => {
    const md = renderMarkdownReport(peer('guidellm-benchmarks.json'));
    expect(md.indexOf('- **Most achieved**:')).toBeLessThan(md.indexOf('\n## Load\n'));
    expect(md).toContain('## At a glance');
  });
});
