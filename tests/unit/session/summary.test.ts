/**
 * The summary's cells line (`run`, `validate`, `import`): a run stopped before its plan was done
 * says how many of the plan's cells are done and what is left, not the cells recorded alone.
 */
import { describe, expect, it } from 'vitest';
import { summarizeSession } from '../../../src-main/platform/session/summary';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

const cellsLine = (text: string) => text.split('\n').find((l) => l.startsWith('Cells:'));

function planOf2x3() {
  const s = sampleSession();
  s.runConfig.contexts = [8192, 32768];
  s.runConfig.concurrency = [1, 2, 4];
  return s;
}

describe('the summary’s cells line', () => {
  it('a stopped run: done of the plan’s cells, by status, then what was cancelled and what was not run', () => {
    const s = planOf2x3();
    s.cells = [
      sampleCell(8192, 1),
      sampleCell(8192, 2),
      sampleCell(8192, 4, { status: 'cancelled', totalTokensPerSecond: null }),
      sampleCell(32768, 4, { status: 'over-capacity', totalTokensPerSecond: null }),
    ];
    expect(cellsLine(summarizeSession(s))).toBe(
      'Cells:     3 of 6 done (Valid 2, Over capacity 1); Cancelled 1, not run 2',
    );
  });

  it('a run whose plan is done: the cells by status', () => {
    const s = planOf2x3();
    s.cells = [1, 2, 4].flatMap((c) => [sampleCell(8192, c), sampleCell(32768, c)]);
    expect(cellsLine(summarizeSession(s))).toBe('Cells:     6 (Valid 6)');
  });
});
