/**
 * Context labels floor to K ("8K"), so 8K and 8.5K would both read "8K": beside each other
 * they get their precise value, in the summary, the Markdown report, and back through import.
 */
import { describe, expect, it } from 'vitest';
import { importText } from '../../../src-main/workflows/importers';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { summarizeSession } from '../../../src-main/platform/session/summary';
import { fmtCell, fmtContext, fmtContextRange, fmtContexts } from '#shared/report/format';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

/** The sample session measured at 8K and 8.5K (8,704 tokens), one request at a time. */
function closeContexts() {
  const s = sampleSession();
  s.runConfig.contexts = [8192, 8704];
  s.runConfig.concurrency = [1];
  s.cells = [sampleCell(8192, 1), sampleCell(8704, 1, { totalTokensPerSecond: 120 })];
  s.prefill = s.prefill.filter((p) => p.context === 8192);
  return s;
}

describe('context labels that would collide', () => {
  it('alone or apart they floor to K; beside a context of the same K they show the precise value', () => {
    expect(fmtContext(8704)).toBe('8K');
    expect(fmtContexts([8192, 8704, 16384])).toEqual(['8K', '8.5K', '16K']);
    expect(fmtContexts([8192, 8250])).toEqual(['8K', '8.1K']);
    expect(fmtContexts([8192, 8193])).toEqual(['8,192', '8,193']);
    expect(fmtContextRange([8192, 8704])).toBe('8K–8.5K');
    expect(fmtContextRange([8192, 262144])).toBe('8K–256K');
  });

  it('the summary names one context level in the singular and tells 8K from 8.5K', () => {
    const s = closeContexts();
    expect(summarizeSession(s)).toContain('Matrix:    2 contexts (8K–8.5K) × 1 concurrency level (1)');
    expect(summarizeSession(s)).toContain('Prefill:   1 context measured');
  });

  it('the Markdown report has one row per context, and importing it gives 8,704 tokens back', () => {
    const md = renderMarkdownReport(closeContexts());
    expect(md).toMatch(/^\| 8K +\|/m);
    expect(md).toMatch(/^\| 8\.5K +\|/m);
    const back = importText(md, 'report.md');
    expect(back.ok).toBe(true);
    if (!back.ok) return;
    expect(back.data.cells.map((c) => c.context).sort((a, b) => a - b)).toEqual([8192, 8704]);
  });
});

describe('a decode cell named in a message', () => {
  it('reads as its context label × its concurrency, "32K × 32", as the progress lines and reports name it', () => {
    expect(fmtCell(32768, 32)).toBe('32K × 32');
    expect(fmtCell(0, 1)).toBe('0 × 1');
  });
});
