/**
 * A cell that kept its figure with some failed requests shows the count beside the figure in
 * the same words everywhere (Markdown, HTML, the app's heatmap and table); older session files
 * without the new fields still open and show the figure alone.
 */
import { describe, expect, it } from 'vitest';
import { buildHeatmap } from '../../../src-renderer/src/charts/heatmap-model';
import { measurementRows } from '../../../src-renderer/src/features/results/measurements';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { parseSessionText } from '../../../src-main/platform/session/read';
import { withFailed } from '#shared/report/format';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

function sessionWithFailures() {
  const s = sampleSession();
  s.cells = [
    sampleCell(8192, 8, { totalTokensPerSecond: 1234.5, failedRequests: 2, windowRequests: 40 }),
    sampleCell(8192, 16, {
      status: 'stalled',
      reason: 'a stream produced nothing for 4.2 s inside the window',
      stall: { gapSeconds: 4.2, endedAtSeconds: 27, thresholdSeconds: 2 },
    }),
  ];
  s.runConfig.concurrency = [8, 16];
  s.runConfig.contexts = [8192];
  return s;
}

describe('failed requests beside the figure', () => {
  it('one formatter: "1,234.5 (2 failed)", the figure alone when none failed', () => {
    expect(withFailed('1,234.5', 2)).toBe('1,234.5 (2 failed)');
    expect(withFailed('1,234.5', 1_200)).toBe('1,234.5 (1,200 failed)');
    expect(withFailed('1,234.5', 0)).toBe('1,234.5');
    expect(withFailed('1,234.5', undefined)).toBe('1,234.5');
    // No figure (an Error cell), no count beside it: the reason says how many failed.
    expect(withFailed('—', 9)).toBe('—');
  });

  it('Markdown shows it in the matrix and the All measurements table, and Stream stalled keeps its figure with the word', () => {
    const md = renderMarkdownReport(sessionWithFailures());
    expect(md).toMatch(/\| 8K \| 1,234\.5 \(2 failed\)/);
    expect(md).toContain('| Sustained decode | 8K | 8 | Valid | 1,234.5 (2 failed) |');
    expect(md).toMatch(/\| Sustained decode \| 8K \| 16 \| Stream stalled \| 2,262\.4 \|/);
    expect(md).toMatch(/Stream stalled: measured, but one stream produced nothing/);
  });

  it('HTML shows it too (the PDF is printed from this HTML)', () => {
    const html = renderHtmlReport(sessionWithFailures());
    expect(html).toContain('1,234.5 (2 failed)');
    expect(html).toContain('Stream stalled');
    // In the heatmap the second line of a kept figure is its status word, whatever the status.
    expect(html).toMatch(/2,262\.4<\/text><text[^>]*>Stream stalled</);
  });

  it('the app’s heatmap and measurements table show the same words', () => {
    const s = sessionWithFailures();
    const heat = buildHeatmap([8192], [8, 16], s.cells);
    expect(heat.rows[0][0].line1).toBe('1,234.5 tok/s (2 failed)');
    expect(heat.rows[0][1].flag).toBe('Stream stalled');
    expect(heat.statusesShown).toContain('stalled');
    const rows = measurementRows(s).filter((r) => r.phase === 'Sustained decode');
    expect(rows[0].text[4]).toBe('1,234.5 (2 failed)');
  });

  it('a format-version-1 file written before these fields still opens, with the figure alone', () => {
    const s = sampleSession();
    s.cells = [sampleCell(8192, 8, { totalTokensPerSecond: 1234.5 })];
    const json = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
    for (const c of json.cells as Array<Record<string, unknown>>)
      for (const k of ['failedRequests', 'windowRequests', 'fairShareTokensPerSecond', 'queueEvidence', 'stall'])
        delete c[k];
    const parsed = parseSessionText(JSON.stringify(json));
    expect(parsed.ok).toBe(true);
    if (parsed.ok)
      expect(renderMarkdownReport(parsed.data)).toContain('| Sustained decode | 8K | 8 | Valid | 1,234.5 |');
  });
});
