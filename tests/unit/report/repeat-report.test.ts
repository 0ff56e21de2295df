import { describe, expect, it } from 'vitest';
import { renderCompareHtml, renderCompareMarkdown } from '../../../src-main/workflows/report/compare';
import { compareSessions } from '#shared/report/compare-model';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { buildReportModel, decodeMeasurementRow } from '#shared/report/report-model';
import { buildDecodeMatrix } from '#shared/report/matrix-model';
import { repetitionSummary } from '#shared/report/confidence';
import { repeatedSession, sampleSession } from '../../helpers/sample-session';

describe('repeated cells in reports', () => {
  const a = repeatedSession({ '8192x1': [1000, 1010, 990], '8192x2': [900, 1000, 1100], '16384x1': [1000, 1010, 990] });

  it('shows the mean with its 95% interval in the measurements table and the decode matrix, and marks unstable cells', () => {
    const cell = a.cells.find((c) => c.context === 8192 && c.concurrency === 1)!;
    // mean 1000, s = 10, t(0.975, 2) = 4.303: 4.303 × 10 / √3 = 24.84
    expect(decodeMeasurementRow(cell)[4]).toBe('1,000.0 ± 24.8');
    const m = buildDecodeMatrix(a);
    expect(m.rows[0][0].text).toBe('1,000.0 ± 24.8');
    // s = 100 on a mean of 1000: a coefficient of variation of 10%, above 5%.
    expect(m.rows[0][1].text).toBe('1,000.0 ± 248.4 unstable');
    const model = buildReportModel(a);
    expect(
      model.legend.some((l) => l.includes('95% confidence interval') && l.includes('"unstable"') && l.includes('5%')),
    ).toBe(true);
    const md = renderMarkdownReport(a);
    expect(md).toContain('| 1,000.0 ± 24.8 |');
    expect(md).toContain('1,000.0 ± 248.4 unstable');
    expect(renderHtmlReport(a)).toContain('1,000.0 ± 24.8');
  });

  it("explains a repeated cell: its count, its 95% interval with the bounds, and each repetition's figures", () => {
    const cell = a.cells.find((c) => c.context === 8192 && c.concurrency === 2)!;
    const summary = repetitionSummary(cell)!;
    expect(summary.count).toBe(3);
    // mean 1000, s = 100: 4.303 × 100 / √3 = 248.4; a 10% spread is unstable.
    expect(summary.interval).toBe(
      '1,000.0 ± 248.4 tok/s: the 95% confidence interval of the mean of 3 repetitions (751.6 to 1,248.4); unstable: they vary by 10%',
    );
    expect(summary.rows.map((r) => [r[0], r[1], r[2]])).toEqual([
      ['1', 'Valid', '900.0'],
      ['2', 'Valid', '1,000.0'],
      ['3', 'Valid', '1,100.0'],
    ]);
    expect(buildReportModel(a).repeatNote).toMatch(/^± is the 95% confidence interval/);
    expect(repetitionSummary(sampleSession().cells[0])).toBeNull();
    expect(buildReportModel(sampleSession()).repeatNote).toBeNull();
  });

  it('keeps single measurements as they were, without a legend line for intervals', () => {
    const plain = sampleSession();
    expect(decodeMeasurementRow(plain.cells[0])[4]).toBe('141.4');
    expect(buildReportModel(plain).legend.some((l) => l.includes('confidence interval'))).toBe(false);
  });

  it('calls a difference significant only when its interval excludes zero', () => {
    // B: 3.1% faster with a Welch interval of 0.6–5.6% at 8K × 1; the same within noise at 16K × 1.
    const b = repeatedSession({
      '8192x1': [1031, 1040, 1022],
      '8192x2': [900, 1000, 1100],
      '16384x1': [1005, 995, 1002],
    });
    const m = compareSessions([a, b]);
    const row = (ctx: number, c: number) => m.deltas.find((d) => d.context === ctx && d.concurrency === c)!;
    expect(row(8192, 1).changeTexts[1]).toBe('B is 3.1% faster, 95% CI 0.6–5.6%');
    expect(row(16384, 1).changeTexts[1]).toBe('no significant difference');
    expect(row(8192, 1).totalTexts).toEqual(['1,000.0 ± 24.8', '1,031.0 ± 22.4']);
    const slower = compareSessions([b, a]);
    expect(slower.deltas.find((d) => d.context === 8192 && d.concurrency === 1)!.changeTexts[1]).toBe(
      'B is 3.0% slower, 95% CI 0.6–5.4%',
    );
    const md = renderCompareMarkdown([a, b]);
    expect(md).toContain('B is 3.1% faster, 95% CI 0.6–5.6%');
    expect(md).toContain('no significant difference');
    expect(renderCompareHtml([a, b])).toContain('B is 3.1% faster, 95% CI 0.6–5.6%');
  });

  it('claims no significance when either side was measured once', () => {
    const once = sampleSession();
    const m = compareSessions([once, a]);
    const r = m.deltas.find((d) => d.context === 8192 && d.concurrency === 1)!;
    expect(r.differences[1]?.method).toBe('band');
    expect(r.changes[1]).toBeCloseTo(1000 / 141.4 - 1, 9);
  });
});
