/**
 * The one rule for "same or different": a single window's tie band from its own variation (at
 * least ±5%), Welch's test with repeats; and what follows from it: Cells won, the best variant,
 * the one-line verdicts and the regression gate.
 */
import { describe, expect, it } from 'vitest';
import { BAND_FLOOR, cellDifference, relativeNoise, tieBand } from '#shared/report/cell-difference';
import { compareSessions } from '#shared/report/compare-model';
import { regressions } from '#shared/report/compare-verdict';
import { bestTable, buildSweepModel } from '#shared/report/sweep-model';
import type { DecodeCell, Session } from '#shared/session/schema';
import { repeatedSession, sampleCell, sampleSession } from '../../helpers/sample-session';

/** A 30 s window of `streams` requests, each sending `rates[k]` tokens per second in the k-th fifth of the window. */
function windowCell(concurrency: number, total: number, shape: readonly number[] = [1, 1, 1, 1, 1]): DecodeCell {
  const slice = 30 / shape.length;
  const sentAt: number[] = [];
  const first: number[] = [];
  const last: number[] = [];
  const tokens: number[] = [];
  // One request per stream per slice, so the window's rate follows the shape slice by slice.
  shape.forEach((f, k) => {
    for (let s = 0; s < concurrency; s++) {
      sentAt.push(k * slice - 0.05);
      first.push(k * slice);
      last.push((k + 1) * slice - 0.001);
      tokens.push(Math.round(((total * f) / concurrency) * slice));
    }
  });
  const n = sentAt.length;
  return sampleCell(8192, concurrency, {
    totalTokensPerSecond: total,
    requests: {
      sentAt,
      firstTokenAt: first,
      lastTokenAt: last,
      outputTokens: tokens,
      windowTokens: tokens,
      promptTokens: new Array(n).fill(8192),
      outcome: new Array(n).fill('done'),
    },
  });
}

function sessionOf(cells: DecodeCell[]): Session {
  const s = sampleSession();
  const runConfig = { ...s.runConfig, contexts: [8192], concurrency: cells.map((c) => c.concurrency) };
  return { ...s, runConfig, cells };
}

describe('same or different', () => {
  it('calls a steady window’s difference of a few percent the same: one window says nothing finer than ±5%', () => {
    const a = windowCell(4, 520);
    const b = windowCell(4, 520 * 1.029);
    expect(relativeNoise(a)).toBeCloseTo(0, 3);
    expect(tieBand(a, b)).toBe(BAND_FLOOR);
    expect(cellDifference(a, b)).toMatchObject({ verdict: 'same', method: 'band', band: 0.05 });
    expect(cellDifference(a, windowCell(4, 520 * 1.06))?.verdict).toBe('faster');
    expect(cellDifference(a, windowCell(4, 520 * 0.94))?.verdict).toBe('slower');
    // 137.2 vs 137.2 is no win for anybody.
    expect(cellDifference(windowCell(1, 137.2), windowCell(1, 137.2))?.verdict).toBe('same');
  });

  it('widens the band by the windows’ own variation: a window whose rate swings is not trusted to 5%', () => {
    const swinging = windowCell(4, 520, [0.7, 1.3, 0.7, 1.3, 1.0]);
    expect(relativeNoise(swinging)).toBeGreaterThan(0.05);
    const band = tieBand(swinging, windowCell(4, 520));
    expect(band).toBeGreaterThan(0.1);
    expect(cellDifference(swinging, windowCell(4, 520 * 1.08))?.verdict).toBe('same');
  });

  it('uses Welch’s test when both sides were repeated', () => {
    const a = repeatedSession({ '8192x1': [1000, 1010, 990] }).cells[0];
    const b = repeatedSession({ '8192x1': [1031, 1040, 1022] }).cells[0];
    expect(cellDifference(a, b)).toMatchObject({ verdict: 'faster', method: 'welch', band: null });
  });

  it('counts only wins beyond the noise in Cells won, and names tied variants together as the best', () => {
    const a = sessionOf([windowCell(1, 137.2), windowCell(4, 500), windowCell(16, 480)]);
    const b = sessionOf([windowCell(1, 137.2), windowCell(4, 510), windowCell(16, 1500)]);
    const entry = (session: Session) => ({ variant: { settings: [], label: '' }, file: '', session, failure: null });
    const m = buildSweepModel([entry(a), entry(b)]);
    expect(m.wins).toEqual([0, 1]);
    expect(m.best.rows[0].map((c) => [c.entry, c.tied])).toEqual([
      [0, [1]],
      [1, [0]],
      [1, []],
    ]);
    expect(bestTable(m).rows[0].slice(1)).toEqual(['A = B · 137.2', 'B = A · 510.0', 'B · 1,500.0']);
  });

  it('says the comparison and each context in one line, queued sides named beside the ratio', () => {
    const a = sessionOf([
      windowCell(1, 137),
      windowCell(2, 270),
      { ...windowCell(16, 490), status: 'queued' as const },
    ]);
    const b = sessionOf([windowCell(1, 138), windowCell(2, 268), windowCell(16, 1620)]);
    const r = compareSessions([a, b]).decode[0];
    const at16 = r.rows[0][2];
    expect(at16).toMatchObject({ verdict: 'faster', headline: false, note: 'A: Requests queued' });
    expect(at16.text).toBe('3.31× · A: Requests queued');
    expect(r.verdict).toBe('B against A: faster in 1 cell (up to 3.31×), the same in 2 cells.');
    expect(r.contextVerdicts).toEqual([
      'At 8K context, B is 3.31× faster at 16 requests (A: Requests queued), the same at 1 and 2 requests.',
    ]);
    const same = compareSessions([a, a]).decode[0];
    expect(same.verdict).toBe('B and A: no difference beyond the noise in any of the 3 cells both measured.');
    expect(regressions([same], 0.05)).toEqual([]);
    // The gate: B slower by more than the limit and beyond the noise, queued or not.
    const back = compareSessions([b, a]).decode;
    expect(regressions(back, 0.05)).toEqual([
      { label: 'B / A', context: 8192, concurrency: 16, ratio: 490 / 1620, note: 'B: Requests queued' },
    ]);
    expect(regressions(back, 0.8)).toEqual([]);
  });
});
