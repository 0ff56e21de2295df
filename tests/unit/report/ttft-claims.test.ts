/**
 * What a report claims of TTFT (docs/method.md, "TTFT"): what the figure includes, and, cell by
 * cell, where it is longer than a cold prefill at the same context (so it waited for more than
 * its own prompt), as at 128K × 16 in the seed report: 10,128 ms against a cold 7,071 ms.
 */
import { describe, expect, it } from 'vitest';
import { buildReportModel } from '#shared/report/report-model';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

const ms = (v: number) => ({ p50: v / 1000, p90: v / 1000, p99: v / 1000, mean: v / 1000 });

describe('the TTFT claim', () => {
  it('says what TTFT includes and names each cell whose TTFT is longer than a cold prefill at its context', () => {
    const s = sampleSession();
    s.prefill = [
      {
        context: 131072,
        status: 'valid',
        reason: null,
        promptTokens: 131072,
        ttftSeconds: 7.071,
        tokensPerSecond: 18537,
        measuredAt: null,
      },
    ];
    s.cells = [
      sampleCell(131072, 1, { ttft: ms(120) }),
      sampleCell(131072, 16, { ttft: ms(10128) }),
      sampleCell(8192, 16, { ttft: ms(9000) }), // no prefill measured at 8K: nothing to compare with
    ];
    const m = buildReportModel(s);
    expect(m.ttftNote).not.toContain('mostly excludes prefill');
    expect(m.ttftNote).toContain("including any wait in the server's queue");
    expect(m.ttftNote).toContain('the notes say so');
    const notes = m.cellNotes.filter((n) => n.includes('longer than a cold'));
    expect(notes).toEqual([
      "128K context × 16 at once: TTFT 10,128 ms is longer than a cold 128K prefill (7,071 ms), so it includes waiting for other requests' prefills, not only cache hits.",
    ]);
    expect(renderMarkdownReport(s)).toContain('TTFT 10,128 ms is longer than a cold 128K prefill (7,071 ms)');
  });

  it('adds no cell note when every TTFT is below the cold prefill', () => {
    const m = buildReportModel(sampleSession());
    expect(m.cellNotes.some((n) => n.includes('longer than a cold'))).toBe(false);
    expect(m.ttftNote).not.toContain('the notes say so');
  });
});
