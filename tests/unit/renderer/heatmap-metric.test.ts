/** The heatmap in any metric: its cell text, the colour direction, and cells greyed for missing targets. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildHeatmap } from '../../../src-renderer/src/charts/heatmap-model';
import { importText } from '../../../src-main/workflows/importers';
import { metricContextOf } from '#shared/report/cell-metrics';
import {
  MISSED_TARGET_FILL,
  matrixAxes,
  metricColor,
  sequentialColor,
  throughputColor,
} from '#shared/report/matrix-model';
import { medianOnly, parseTargets } from '#shared/report/slo';
import { SYNTHETIC_REPORT } from '../../helpers/paths';

const reference = () => {
  const r = importText(readFileSync(SYNTHETIC_REPORT), 'ref.txt');
  if (!r.ok) throw new Error(r.error);
  return r.data;
};
const K = 1024;

describe('heatmap colour by metric direction', () => {
  it('keeps the zero-anchored throughput scale for higher-is-better metrics', () => {
    expect(metricColor(50, 100, 'higher')).toBe(throughputColor(50, 100));
    expect(metricColor(100, 100, 'higher')).toBe(sequentialColor(1));
  });

  it('runs the scale the other way for lower-is-better metrics, so the smallest value is darkest', () => {
    expect(metricColor(100, 100, 'lower')).toBe(sequentialColor(0));
    expect(metricColor(10, 100, 'lower')).toBe(sequentialColor(0.9));
  });
});

describe('heatmap in a chosen metric', () => {
  const s = reference();
  const { contexts, concurrency } = matrixAxes(s);
  const at = (m: ReturnType<typeof buildHeatmap>, context: number, conc: number) =>
    m.rows[m.contexts.indexOf(context)][m.concurrency.indexOf(conc)];

  it('writes TTFT cells in milliseconds with the total beside, lowest TTFT darkest', () => {
    const m = buildHeatmap(contexts, concurrency, s.cells, [], { metric: 'ttft', ctx: metricContextOf(s, null) });
    const c = at(m, 8 * K, 1);
    expect(c.line1).toMatch(/^\d[\d,]* ms$/);
    expect(c.line2).toMatch(/tok\/s total$/);
    const ttft = c.cell?.ttft?.p50 as number;
    expect(c.background).toBe(metricColor(ttft, m.max as number, 'lower'));
  });

  it('writes cost per million tokens from the GPU price and the total rate', () => {
    const ctx = metricContextOf(s, 3.6);
    const m = buildHeatmap(contexts, concurrency, s.cells, [], { metric: 'cost-per-million', ctx });
    const c = at(m, 8 * K, 16);
    const total = c.cell?.totalTokensPerSecond as number;
    const expected = ((3.6 * ctx.gpuCount) / 3600 / total) * 1e6;
    expect(c.line1).toBe(expected.toFixed(2));
  });

  it('greys the measured cells that miss the targets and leaves those that meet them coloured', () => {
    // 8K × 4 (120 ms, 95.2 tok/s per request) meets both; 8K × 16 (450 ms) misses the TTFT target.
    const set = parseTargets('ttft-p90<=200ms,per-request>=60');
    const m = buildHeatmap(contexts, concurrency, s.cells, [], {
      metric: 'total',
      ctx: metricContextOf(s, null),
      targets: { set, medians: medianOnly(s) },
    });
    expect(at(m, 8 * K, 4).missesTargets).toBe(false);
    expect(at(m, 8 * K, 4).background).not.toBe(MISSED_TARGET_FILL);
    const tooMany = at(m, 8 * K, 16);
    expect(tooMany.missesTargets).toBe(true);
    expect(tooMany.background === MISSED_TARGET_FILL || tooMany.kind === 'status').toBe(true);
  });
});
