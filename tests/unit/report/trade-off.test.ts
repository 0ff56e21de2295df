/**
 * The throughput trade-off's lines (trade-off.ts): one per context, points in order of requests at
 * once, only cells that kept both figures, a rerun cell once as measured last.
 */
import { describe, expect, it } from 'vitest';
import { tradeOffLines } from '#shared/report/trade-off';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

describe('the throughput trade-off', () => {
  it('draws one line per context, its points ordered by requests at once', () => {
    const cells = [
      sampleCell(16384, 4, { totalTokensPerSecond: 400, perRequestTokensPerSecond: 100 }),
      sampleCell(8192, 4, { totalTokensPerSecond: 480, perRequestTokensPerSecond: 120 }),
      sampleCell(8192, 1),
      sampleCell(16384, 1),
      sampleCell(8192, 2),
    ];
    const lines = tradeOffLines(cells);
    expect(lines.map((l) => [l.label, l.points.map((p) => p.concurrency)])).toEqual([
      ['8K', [1, 2, 4]],
      ['16K', [1, 4]],
    ]);
    const four = cells[1];
    expect(lines[0].points[2]).toMatchObject({
      total: four.totalTokensPerSecond,
      perRequest: four.perRequestTokensPerSecond,
    });
  });

  it('leaves out cells without both figures (Looped, errors) and counts a rerun cell as measured last', () => {
    const s = sampleSession();
    const looped = s.cells.find((c) => c.status === 'looped')!;
    s.cells.push(sampleCell(8192, 2, { totalTokensPerSecond: 999, perRequestTokensPerSecond: 499.5 }));
    const lines = tradeOffLines(s.cells);
    const at = (ctx: number) => lines.find((l) => l.context === ctx)!.points.map((p) => p.concurrency);
    expect(at(looped.context)).not.toContain(looped.concurrency);
    expect(lines[0].points.filter((p) => p.concurrency === 2)).toEqual([
      { concurrency: 2, total: 999, perRequest: 499.5, status: 'valid' },
    ]);
    expect(tradeOffLines([sampleCell(8192, 1, { status: 'error', totalTokensPerSecond: null })])).toEqual([]);
  });
});
