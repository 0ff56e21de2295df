/**
 * The comparison's words and its regression gate, read from the ratio matrix: the verdict lines
 * (faster, slower, the same, with the sides' statuses), the cells the gate fails, and each
 * failure's line.
 */
import { describe, expect, it } from 'vitest';
import type { RatioCell } from '#shared/report/compare-model';
import { contextVerdicts, fmtList, fmtRegression, overallVerdict, regressions } from '#shared/report/compare-verdict';
import type { Verdict } from '#shared/report/cell-difference';

/** A ratio-matrix cell at 8K context as the comparison builds it; only what the verdicts read matters. */
function cell(
  concurrency: number,
  ratio: number | null,
  verdict: Verdict | null,
  note: string | null = null,
): RatioCell {
  return {
    context: 8192,
    concurrency,
    ratio,
    verdict,
    headline: note === null,
    note,
    figure: '',
    text: '',
    fill: '',
    title: '',
  };
}

describe('the verdict lines', () => {
  it('lists one, two and more items as a sentence does', () => {
    expect(fmtList([])).toBe('');
    expect(fmtList([1])).toBe('1');
    expect(fmtList([1, 2])).toBe('1 and 2');
    expect(fmtList([1, 2, 4])).toBe('1, 2 and 4');
  });

  it('says a slowdown as a percentage, one cell or a spread from the least to the most', () => {
    const row = [cell(1, 0.8, 'slower'), cell(2, 1.01, 'same'), cell(4, 0.9, 'slower', 'B: Requests queued')];
    expect(contextVerdicts([row], [8192], 'B')).toEqual([
      'At 8K context, B is 10–20% slower at 1 and 4 requests (B: Requests queued at 4), the same at 2 requests.',
    ]);
    expect(overallVerdict([row], 'A', 'B')).toBe('B against A: slower in 2 cells (by up to 20%), the same in 1 cell.');
    expect(contextVerdicts([[cell(1, 0.7, 'slower', 'B: Requests queued')]], [8192], 'B')).toEqual([
      'At 8K context, B is 30% slower at 1 request (B: Requests queued).',
    ]);
    expect(contextVerdicts([[cell(1, 0.7, 'slower'), cell(2, 0.7, 'slower')]], [8192], 'B')).toEqual([
      'At 8K context, B is 30% slower at 1 and 2 requests.',
    ]);
  });

  it('says a speed-up from the least to the most, and the overall line the most', () => {
    const row = [cell(1, 3, 'faster'), cell(2, 1.5, 'faster')];
    expect(contextVerdicts([row], [8192], 'B')).toEqual(['At 8K context, B is 1.50–3.00× faster at 1 and 2 requests.']);
    expect(overallVerdict([row], 'A', 'B')).toBe('B against A: faster in 2 cells (up to 3.00×).');
  });

  it('puts faster before slower, says cells without a figure on both sides, and skips a context with none', () => {
    const row = [cell(1, 2, 'faster'), cell(2, 0.5, 'slower'), cell(4, null, null, 'not in B')];
    expect(overallVerdict([row], 'A', 'B')).toBe(
      'B against A: faster in 1 cell (up to 2.00×), slower in 1 cell (by up to 50%); 1 cell without a figure on both sides.',
    );
    expect(contextVerdicts([row, [cell(1, null, null)]], [8192, 16384], 'B')).toEqual([
      'At 8K context, B is 2.00× faster at 1 request, 50% slower at 2 requests.',
    ]);
    expect(overallVerdict([[cell(1, null, null)]], 'A', 'B')).toBe(
      'B and A have no cell with a figure on both sides to compare.',
    );
  });
});

describe('the regression gate', () => {
  const decode = (label: string, row: RatioCell[]) => ({ label, rows: [row] });

  it('fails only a cell slower beyond the noise and by more than the limit', () => {
    const gated = regressions(
      [
        decode('B / A', [
          cell(1, 0.9, 'slower'),
          // As slow, but within the noise of its windows: the same, not a regression.
          cell(2, 0.6, 'same'),
          cell(4, 0.96, 'slower'),
          cell(8, 1.5, 'faster'),
        ]),
      ],
      0.05,
    );
    expect(gated).toEqual([{ label: 'B / A', context: 8192, concurrency: 1, ratio: 0.9, note: null }]);
    // Exactly at the limit is not beyond it.
    expect(regressions([decode('B / A', [cell(1, 0.75, 'slower')])], 0.25)).toEqual([]);
  });

  it('checks every later session against the first, not only the second', () => {
    const gated = regressions(
      [
        decode('B / A', [cell(1, 1, 'same')]),
        decode('C / A', [cell(1, 1, 'same'), cell(2, 0.5, 'slower', 'C: Requests queued')]),
      ],
      0.1,
    );
    expect(gated).toEqual([{ label: 'C / A', context: 8192, concurrency: 2, ratio: 0.5, note: 'C: Requests queued' }]);
  });

  it('writes a failure with its cell, ratio, slowdown and the status of a side that was not Valid', () => {
    const g = { label: 'B / A', context: 8192, concurrency: 16, ratio: 0.31, note: 'B: Requests queued' };
    expect(fmtRegression(g)).toBe('B / A at 8K context × 16: 0.31× (69% slower; B: Requests queued)');
    expect(fmtRegression({ ...g, note: null })).toBe('B / A at 8K context × 16: 0.31× (69% slower)');
  });
});
