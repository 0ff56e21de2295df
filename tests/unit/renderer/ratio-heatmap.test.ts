/**
 * The comparison view's ratio heatmap: the comparison model's ratio matrix drawn as the app's
 * heatmap, in the report's colours, a cell without a ratio saying why, and with repeated cells
 * whether the difference is more than noise.
 */
import { describe, expect, it } from 'vitest';
import { ratioHeatmap } from '../../../src-renderer/src/features/compare/ratio-heatmap';
import { compareSessions, fmtChange } from '#shared/report/compare-model';
import { divergingColor, textColorOn } from '#shared/report/matrix-model';
import { repeatedSession, sampleSession } from '../../helpers/sample-session';

describe('the ratio heatmap of a comparison', () => {
  it('colours each ratio as the report does and writes the significance under it', () => {
    const a = repeatedSession({ '8192x1': [1000, 1010, 990], '16384x1': [1000, 1010, 990] });
    const b = repeatedSession({ '8192x1': [1031, 1040, 1022], '16384x1': [1005, 995, 1002] });
    const m = compareSessions([a, b]);
    const heat = ratioHeatmap(m.decode[0], m.deltas);
    const at = (ctx: number, c: number) => heat.rows[heat.contexts.indexOf(ctx)][heat.concurrency.indexOf(c)];
    const faster = at(8192, 1);
    expect(faster).toMatchObject({ kind: 'value', line1: '1.03×', line2: 'B is 3.1% faster, 95% CI 0.6–5.6%' });
    expect(faster.background).toBe(divergingColor(1031 / 1000));
    expect(faster.foreground).toBe(textColorOn(faster.background!));
    expect(faster.reason).toMatch(/^8K context × 1 at once: B 1,031\.0 \/ A 1,000\.0 tok\/s = 1\.03×, faster$/);
    expect(at(16384, 1).line2).toBe('no significant difference');
    expect(heat.max).toBeCloseTo(1031 / 1000, 10);
  });

  it('says why a cell has no ratio, on the theme colour, with nothing claimed', () => {
    const a = sampleSession();
    const b = sampleSession();
    b.cells[0] = { ...b.cells[0], status: 'looped' };
    const m = compareSessions([a, b]);
    const key = `${b.cells[0].context}x${b.cells[0].concurrency}`;
    const cell = ratioHeatmap(m.decode[0], m.deltas)
      .rows.flat()
      .find((c) => c.key === key)!;
    expect(cell).toMatchObject({ kind: 'status', line1: 'B: Looped', line2: '', background: null, status: null });
  });

  it('writes a change that rounds to zero without a minus sign', () => {
    expect(fmtChange(-0.0004)).toBe('+0.0%');
    expect(fmtChange(-0.031)).toBe('−3.1%');
    expect(fmtChange(0.031)).toBe('+3.1%');
  });
});
