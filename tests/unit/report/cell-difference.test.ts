/**
 * The one rule for "same or different": a single window's tie band from its own variation (at
 * least ±5%), Welch's test with repeats; and what follows from it: Cells won, the best variant,
 * the one-line verdicts and the regression gate.
 */
import { describe, expect, it } from 'vitest';
import {
  BAND_FLOOR,
  cellDifference,
  fmtCellDifference,
  fmtChange,
  prefillBand,
  prefillDifference,
  relativeNoise,
  tieBand,
} from '#shared/report/cell-difference';
import { compareSessions, prefillTable } from '#shared/report/compare-model';
import { regressions } from '#shared/report/compare-verdict';
import { bestTable, buildSweepModel } from '#shared/report/sweep-model';
import type { DecodeCell, PrefillResult, Session } from '#shared/session/schema';
import { foldRepetition } from '../../../src-main/engine/bench/repetitions';
import { repeatedCell, repeatedSession, sampleCell, sampleSession } from '../../helpers/sample-session';

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

  it('has no difference without a total on both sides or against a zero A', () => {
    expect(cellDifference(windowCell(4, 520), { ...windowCell(4, 520), totalTokensPerSecond: null })).toBeNull();
    expect(cellDifference({ ...windowCell(4, 520), totalTokensPerSecond: null }, windowCell(4, 520))).toBeNull();
    expect(cellDifference({ ...windowCell(4, 520), totalTokensPerSecond: 0 }, windowCell(4, 520))).toBeNull();
  });

  it('reads the change as B / A − 1; without a window to measure its noise, the band is ±5%', () => {
    const d = cellDifference(windowCell(4, 400), windowCell(4, 500))!;
    expect(d).toMatchObject({ ratio: 1.25, verdict: 'faster', method: 'band', low: null, high: null });
    expect(d.change).toBeCloseTo(0.25, 12);
    // An imported cell keeps no window: its noise is unknown and the band is the floor.
    const bare = (total: number) => ({ ...windowCell(1, total), requests: null });
    expect(relativeNoise(bare(100))).toBeNull();
    expect(cellDifference(bare(100), bare(104.9))?.verdict).toBe('same');
    expect(cellDifference(bare(100), bare(95.1))?.verdict).toBe('same');
    expect(cellDifference(bare(100), bare(94.9))?.verdict).toBe('slower');
    expect(cellDifference(bare(100), bare(105.1))?.verdict).toBe('faster');
    // The band's edge is inside it: exactly 5% either way is the same.
    expect(cellDifference(bare(100), bare(105))).toMatchObject({ change: 0.05, band: BAND_FLOOR, verdict: 'same' });
    expect(cellDifference(bare(100), bare(95))).toMatchObject({ change: -0.05, verdict: 'same' });
  });

  it('measures a window’s noise as the spread of its six slices’ rates over √6', () => {
    // Rates of 0.5 and 1.5 alternating over six slices of the window: mean 1, sample sd √(6/5) × 0.5.
    const cell = windowCell(1, 600, [0.5, 1.5, 0.5, 1.5, 0.5, 1.5]);
    expect(relativeNoise(cell)).toBeCloseTo((Math.sqrt(6 / 5) * 0.5) / Math.sqrt(6), 3);
    const band = tieBand(cell, windowCell(1, 600));
    expect(band).toBeCloseTo(1.96 * relativeNoise(cell)!, 6);
    expect(relativeNoise({ ...cell, windowSeconds: null })).toBeNull();
    expect(relativeNoise({ ...cell, requests: { ...cell.requests!, windowTokens: [] } })).toBeNull();
  });

  it('takes the noise of repeated cells from their repetitions: the standard error of the mean', () => {
    const a = repeatedSession({ '8192x1': [990, 1000, 1010] }).cells[0];
    // sd 10, mean 1000, n 3.
    expect(relativeNoise(a)).toBeCloseTo(10 / 1000 / Math.sqrt(3), 9);
    // Against a single window, the band rule decides: the floor of ±5% here.
    const d = cellDifference(a, windowCell(1, 1030))!;
    expect(d).toMatchObject({ method: 'band', band: BAND_FLOOR, verdict: 'same' });
  });

  it('with repeats on both sides, calls differences within the noise the same and slowdowns slower', () => {
    const a = repeatedSession({ '8192x1': [1000, 1010, 990] }).cells[0];
    const noisy = repeatedSession({ '8192x1': [900, 1100, 1020] }).cells[0];
    const slow = repeatedSession({ '8192x1': [960, 968, 952] }).cells[0];
    expect(cellDifference(a, noisy)).toMatchObject({ verdict: 'same', method: 'welch' });
    const d = cellDifference(a, slow)!;
    expect(d).toMatchObject({ verdict: 'slower', method: 'welch', band: null });
    expect(d.high!).toBeLessThan(0);
    expect(fmtCellDifference(d, 'B')).toMatch(/^B is 4\.0% slower, 95% CI [\d.]+–[\d.]+%$/);
    expect(fmtCellDifference(cellDifference(a, noisy)!, 'B')).toBe('no significant difference');
  });

  it('writes the change with its sign, a tie with its band', () => {
    expect(fmtChange(0.031)).toBe('+3.1%');
    expect(fmtChange(-0.03)).toBe('−3.0%');
    expect(fmtChange(-0.0004)).toBe('+0.0%');
    expect(fmtChange(0)).toBe('+0.0%');
    expect(fmtChange(-0.004)).toBe('−0.4%');
    expect(fmtChange(null)).toBe('—');
    const same = cellDifference(windowCell(4, 500), windowCell(4, 506))!;
    expect(fmtCellDifference(same, 'B')).toBe('+1.2%, the same within ±5.0%');
    expect(fmtCellDifference(cellDifference(windowCell(4, 500), windowCell(4, 1650))!, 'B')).toBe('+230.0%');
  });

  it('spreads each request’s tokens over the slices its stream spans, and puts a stream of one instant in its slice', () => {
    // One stream over the whole 30 s window (600 tokens, 100 a slice) and one inside the first
    // slice (100 tokens): slice rates 200, 100, 100, 100, 100, 100.
    const requests = (first: number[], last: number[], tokens: number[]) => ({
      sentAt: first.map((f) => f - 0.05),
      firstTokenAt: first,
      lastTokenAt: last,
      outputTokens: tokens,
      windowTokens: tokens,
      promptTokens: tokens.map(() => 8192),
      outcome: tokens.map(() => 'done' as const),
    });
    const rates = [200, 100, 100, 100, 100, 100];
    const mean = 700 / 6;
    const sd = Math.sqrt(rates.reduce((a, r) => a + (r - mean) ** 2, 0) / 5);
    const expected = sd / mean / Math.sqrt(6);
    const spread = sampleCell(8192, 2, { windowSeconds: 30, requests: requests([0, 0], [30, 5], [600, 100]) });
    expect(relativeNoise(spread)).toBeCloseTo(expected, 9);
    // The short stream's 100 tokens all at 2 s: the same slice, the same noise.
    const instant = sampleCell(8192, 2, { windowSeconds: 30, requests: requests([0, 2], [30, 2], [600, 100]) });
    expect(relativeNoise(instant)).toBeCloseTo(expected, 9);
    // A window that delivered no tokens says nothing about noise.
    const empty = sampleCell(8192, 1, { windowSeconds: 30, requests: requests([0], [30], [0]) });
    expect(relativeNoise(empty)).toBeNull();
  });

  it('widens the band by the noise of either side', () => {
    const swinging = windowCell(4, 520, [0.7, 1.3, 0.7, 1.3, 1.0]);
    expect(tieBand(windowCell(4, 520), swinging)).toBe(tieBand(swinging, windowCell(4, 520)));
    expect(tieBand(windowCell(4, 520), swinging)).toBeGreaterThan(0.1);
  });

  it('uses Welch’s test from two repetitions on each side', () => {
    const two = (a: number, b: number) => repeatedCell(8192, 1, [a, b]);
    expect(cellDifference(two(1000, 1010), two(1500, 1490))).toMatchObject({ method: 'welch', verdict: 'faster' });
  });

  it('uses the band, not Welch, when only one side has two or more repetitions', () => {
    const a = repeatedSession({ '8192x1': [1000, 1010, 990] }).cells[0];
    const once = repeatedSession({ '8192x1': [1500] }).cells[0];
    expect(cellDifference(a, once)).toMatchObject({ method: 'band', verdict: 'faster' });
    expect(cellDifference(once, a)).toMatchObject({ method: 'band', verdict: 'slower' });
  });

  it('calls B slower when only one of its three repetitions has a figure and it is 30% below A’s three', () => {
    const a = repeatedSession({ '8192x1': [1000, 1010, 990] }).cells[0];
    let b: DecodeCell | undefined;
    [700, null, null].forEach((t, i) => {
      const measured = sampleCell(8192, 1, {
        totalTokensPerSecond: t,
        ...(t === null ? { status: 'error' as const } : {}),
      });
      b = foldRepetition(b, measured, i + 1, 3);
    });
    expect(b!.totalTokensPerSecond).toBe(700);
    const d = cellDifference(a, b!)!;
    expect(d).toMatchObject({ method: 'band', verdict: 'slower' });
    expect(d.change).toBeCloseTo(-0.3, 12);
    expect(cellDifference(b!, a)).toMatchObject({ method: 'band', verdict: 'faster' });
  });
});

describe('same or different for prefill', () => {
  /** An 8K prefill at `tps` prompt tok/s, as one cold measurement. */
  const prefill = (tps: number, extra: Partial<PrefillResult> = {}): PrefillResult => ({
    context: 8192,
    status: 'valid',
    reason: null,
    promptTokens: 8192,
    ttftSeconds: 8192 / tps,
    tokensPerSecond: tps,
    measuredAt: null,
    ...extra,
  });

  it('gives one cold measurement a side the ±5% floor: 0.80× is slower, 0.96× the same', () => {
    expect(prefillBand(prefill(10_000), prefill(8_000))).toBe(BAND_FLOOR);
    expect(prefillDifference(prefill(10_000), prefill(8_000))).toMatchObject({ verdict: 'slower', ratio: 0.8 });
    expect(prefillDifference(prefill(10_000), prefill(9_600))?.verdict).toBe('same');
    expect(prefillDifference(prefill(10_000), prefill(10_500))).toMatchObject({ verdict: 'same', change: 0.05 });
    expect(prefillDifference(prefill(10_000), prefill(10_600))?.verdict).toBe('faster');
  });

  it('widens the band by each side’s --precision interval, combined as the interval of a difference', () => {
    const within = (h: number, n = 3) =>
      ({ precision: { measurements: n, halfWidthRelative: h, stopReason: 'max-measurements' } }) as const;
    // ±9% and ±12%: the difference's interval is ±15%.
    expect(prefillBand(prefill(10_000, within(0.09)), prefill(8_800, within(0.12, 2)))).toBeCloseTo(0.15, 12);
    expect(prefillDifference(prefill(10_000, within(0.09)), prefill(8_600, within(0.12)))?.verdict).toBe('same');
    expect(prefillDifference(prefill(10_000, within(0.09)), prefill(8_400, within(0.12)))?.verdict).toBe('slower');
    // One measurement has no interval, whatever it records: the floor.
    expect(prefillBand(prefill(10_000, within(0.5, 1)), prefill(8_000))).toBe(BAND_FLOOR);
  });

  it('widens the band by the share of each TTFT the client’s own machine delayed, whole', () => {
    // A 1 s TTFT the client delayed by 0.18 s may read 18% low: 0.80× is then within 5% + 18% of the same.
    const delayed = prefill(4_096, { ttftSeconds: 2, clientDelay: { seconds: 0.36, retakes: 3 } });
    expect(prefillBand(prefill(5_120), delayed)).toBeCloseTo(0.23, 12);
    expect(prefillBand(delayed, delayed)).toBeCloseTo(0.41, 12);
    expect(prefillDifference(prefill(5_120), delayed)).toMatchObject({ verdict: 'same', method: 'band' });
    expect(prefillDifference(prefill(5_120), { ...delayed, clientDelay: { seconds: 0.01, retakes: 0 } })?.verdict).toBe(
      'slower',
    );
  });

  it('has no verdict without prompt tok/s on both sides or against a zero A', () => {
    expect(prefillDifference(prefill(10_000), { ...prefill(1), tokensPerSecond: null })).toBeNull();
    expect(prefillDifference({ ...prefill(1), tokensPerSecond: null }, prefill(10_000))).toBeNull();
    expect(prefillDifference({ ...prefill(1), tokensPerSecond: 0 }, prefill(10_000))).toBeNull();
  });

  it('says "same" beside a prefill ratio within the band in the comparison’s prefill table', () => {
    const withPrefill = (tps: number) => ({ ...sampleSession(), prefill: [prefill(tps)] });
    const m = compareSessions([withPrefill(10_000), withPrefill(9_700), withPrefill(8_000)]);
    expect(m.prefill[0]).toMatchObject({ ratios: [null, 0.97, 0.8], verdicts: [null, 'same', 'slower'] });
    expect(prefillTable(m).rows[0].slice(4, 6)).toEqual(['0.97× same', '0.80×']);
  });
});
