import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importText } from '../../../src-main/workflows/importers';
import { buildReportModel } from '#shared/report/report-model';
import { FEW_SAMPLES_LEGEND, LATENCY_COLUMNS, fmtLatency } from '#shared/report/latency';
import { meetsTargets, parseTargets, targetLabel } from '#shared/report/slo';
import { buildDecodeMatrix } from '#shared/report/matrix-model';
import { foldRepetition } from '../../../src-main/engine/bench/repetitions';
import { sampleCell, sampleSession } from '../../helpers/sample-session';
import { SYNTHETIC_REPORT } from '../../helpers/paths';

const stats = (p50: number, count?: number) => ({
  p50,
  p90: p50 * 2,
  p95: p50 * 3,
  p99: p50 * 4,
  mean: p50 * 1.5,
  ...(count === undefined ? {} : { count }),
});

const reference = () => {
  const r = importText(readFileSync(SYNTHETIC_REPORT), 'synthetic.txt');
  if (!r.ok) throw new Error(r.error);
  return r.data;
};

describe('latency percentiles of decode cells', () => {
  it('tables TTFT, time between tokens and end-to-end latency at p50/p90/p99 with the count behind each', () => {
    const s = sampleSession();
    s.cells = [
      sampleCell(8192, 4, { ttft: stats(0.5, 40), timeBetweenTokens: stats(0.01, 38), e2eLatency: stats(20, 36) }),
      sampleCell(131072, 4, { ttft: stats(1.956, 3), timeBetweenTokens: stats(0.02, 3), e2eLatency: null }),
    ];
    const r = buildReportModel(s);
    expect(r.latency!.header).toEqual([...LATENCY_COLUMNS]);
    expect(r.latency!.rows[0]).toEqual([
      '8K',
      '4',
      '500 ms',
      '1,000 ms',
      '2,000 ms',
      '40',
      '10.0 ms',
      '20.0 ms',
      '40.0 ms',
      '38',
      '20,000 ms',
      '40,000 ms',
      '80,000 ms',
      '36',
    ]);
    // A cell with a handful of first tokens says so, and no finished request means no end-to-end figure.
    expect(r.latency!.rows[1].slice(2)).toEqual([
      '1,956 ms',
      '3,912 ms',
      '7,824 ms',
      '3 (few)',
      '20.0 ms',
      '40.0 ms',
      '80.0 ms',
      '3 (few)',
      '—',
      '—',
      '—',
      '—',
    ]);
  });

  it('flags a TTFT from few first tokens in the measurements and says so in their caption, only when one occurs', () => {
    const s = sampleSession();
    s.cells = [sampleCell(8192, 4, { ttft: stats(0.5, 40) }), sampleCell(131072, 8, { ttft: stats(0.927, 4) })];
    const r = buildReportModel(s);
    const ttftColumn = r.measurements.header.indexOf('TTFT');
    const decodeRows = r.measurementRows.filter((row) => row.cellKey !== null);
    expect(decodeRows.map((row) => row.text[ttftColumn])).toEqual(['500 ms', '927 ms (from 4)']);
    // Explained over the table that shows "(from N)", never under the heatmap, which does not.
    expect(r.measurementsCaption).toContain(FEW_SAMPLES_LEGEND);
    expect(r.legend).not.toContain(FEW_SAMPLES_LEGEND);
    s.cells = [sampleCell(8192, 4, { ttft: stats(0.5, 40) })];
    expect(buildReportModel(s).measurementsCaption).not.toContain(FEW_SAMPLES_LEGEND);
    // A file without counts (older, imported) claims nothing.
    expect(fmtLatency(sampleCell(8192, 1), 'ttft', 'p50')).toBe('37 ms');
  });

  it('shows an imported report’s medians only, without counts, and says the source gave medians', () => {
    const r = buildReportModel(reference());
    expect(r.latencyCaption).toMatch(/medians only/);
    for (const row of r.latency!.rows) {
      const [ttftP50, ttftP90, ttftP99, ttftN] = row.slice(2, 6);
      expect(ttftP50).toMatch(/ ms$/);
      expect([ttftP90, ttftP99, ttftN]).toEqual(['—', '—', '—']);
    }
  });

  it('colours the heatmap by a latency percentile and names the few requests behind a figure', () => {
    const s = sampleSession();
    s.cells = [sampleCell(8192, 1, { ttft: stats(0.5, 40) }), sampleCell(8192, 4, { ttft: stats(0.8, 2) })];
    const m = buildDecodeMatrix(s, { metric: 'ttft-p99', ctx: { gpuPricePerHour: null, gpuCount: 1 } });
    const at = (c: number) => m.rows[m.contexts.indexOf(8192)][m.concurrency.indexOf(c)];
    const [one, four] = [at(1), at(4)];
    expect([one.value, four.value]).toEqual([2, 3.2]);
    expect(four.text).toBe('3,200 ms');
    expect(four.detail).toBe('from 2 requests');
    expect(four.title).toContain('TTFT (p99)');
  });

  it('checks p95 and end-to-end targets against a measured cell', () => {
    const cell = sampleCell(8192, 4, { ttft: stats(0.5, 40), e2eLatency: stats(10, 30) });
    expect(meetsTargets(cell, parseTargets('ttft-p95<=1.5s'), false)).toBe(true);
    expect(meetsTargets(cell, parseTargets('ttft-p95<=1.4s'), false)).toBe(false);
    expect(meetsTargets(cell, parseTargets('e2e-p99<=40s'), false)).toBe(true);
    expect(meetsTargets(cell, parseTargets('e2e-p99<=39s'), false)).toBe(false);
    // A cell whose file predates p95 or end-to-end latency has no such figure, so it cannot meet the target.
    expect(meetsTargets(sampleCell(8192, 4), parseTargets('ttft-p95<=10s'), false)).toBe(false);
    expect(meetsTargets(sampleCell(8192, 4), parseTargets('e2e<=100s'), false)).toBe(false);
    expect(targetLabel(parseTargets('e2e-p95<=30s').targets[0], () => '30 s')).toBe('End-to-end latency p95 ≤ 30 s');
  });

  it('counts every repetition’s requests behind a repeated cell’s mean percentiles', () => {
    const first = sampleCell(8192, 4, { ttft: stats(0.4, 10), e2eLatency: stats(10, 6) });
    const second = sampleCell(8192, 4, { ttft: stats(0.6, 12), e2eLatency: stats(12, 8) });
    const folded = foldRepetition(foldRepetition(undefined, first, 1, 2), second, 2, 2);
    expect(folded.ttft).toMatchObject({ p50: 0.5, p95: 1.5, count: 22 });
    expect(folded.e2eLatency).toMatchObject({ p50: 11, count: 14 });
  });
});
