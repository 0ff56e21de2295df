import { describe, expect, it } from 'vitest';
import { expectedWindowSeconds, planRun, type PlanTarget } from '../../../src-main/engine/bench/plan';
import { EtaTracker } from '../../../src-main/engine/bench/progress';
import { runConfigFrom } from '../../../src-main/workflows/inputs/run-input';
import { prefillStop, PREFILL_MAX_MEASUREMENTS } from '../../../src-main/engine/bench/precision';
import type { DecodeCell } from '#shared/session/schema';

const target: PlanTarget = {
  maxModelLen: 262_144,
  kvBudget: { tokens: 10_000_000, source: 'user', detail: 'given', maxConcurrency: null, tokensPerRequest: null },
};

describe('--precision and --min-duration', () => {
  it('read a percentage as a share and keep --duration as the longest window', () => {
    expect(runConfigFrom({ precision: '1%', duration: '20' })).toMatchObject({
      precision: 0.01,
      secondsPerMeasurement: 20,
    });
    expect(runConfigFrom({ precision: '0.5' }).precision).toBe(0.005);
    expect(runConfigFrom({ precision: '2 %', minDuration: '8' })).toMatchObject({
      precision: 0.02,
      minSecondsPerMeasurement: 8,
    });
    expect(runConfigFrom({})).not.toHaveProperty('precision');
  });

  it('refuse what cannot be meant, naming the flag', () => {
    expect(() => runConfigFrom({ precision: '0%' })).toThrow(/--precision must be a percentage/);
    expect(() => runConfigFrom({ precision: 'tight' })).toThrow(/--precision must be a percentage/);
    expect(() => runConfigFrom({ precision: '100' })).toThrow(/--precision/);
    expect(() => runConfigFrom({ minDuration: '5' })).toThrow(/--min-duration only applies with --precision/);
    expect(() => runConfigFrom({ precision: '1%', minDuration: '40', duration: '30' })).toThrow(
      /--min-duration \(40 s\) is longer than --duration \(30 s\)/,
    );
  });

  it('reach the plan with the 5 s default shortest window, never longer than the longest', () => {
    expect(planRun({ contexts: [0], concurrency: [1], precision: 0.01 }, target).config).toMatchObject({
      precision: 0.01,
      minSecondsPerMeasurement: 5,
      secondsPerMeasurement: 30,
    });
    expect(planRun({ contexts: [0], concurrency: [1], secondsPerMeasurement: 3 }, target).config).toMatchObject({
      precision: null,
      minSecondsPerMeasurement: 3,
    });
  });
});

describe('the expected window of an adaptive run', () => {
  const fixed = { secondsPerMeasurement: 30, precision: null, minSecondsPerMeasurement: 5 };
  const adaptive = { ...fixed, precision: 0.01 };

  it('is the fixed length without a precision, whatever was measured', () => {
    expect(expectedWindowSeconds(fixed, [7, 8])).toBe(30);
  });

  it('is √(shortest × longest) before any cell, then the mean of the measured windows', () => {
    expect(expectedWindowSeconds(adaptive)).toBeCloseTo(Math.sqrt(150), 12);
    expect(expectedWindowSeconds(adaptive, [6, 8, 13])).toBe(9);
  });

  it('shortens the plan’s ETA, and the countdown follows the windows measured', () => {
    const input = { contexts: [0], concurrency: [1, 2, 4, 8], prefillContexts: [], warmup: false, simSpeed: 1 };
    const slow = planRun(input, target);
    const quick = planRun({ ...input, precision: 0.01 }, target);
    // Four cells of 30 s against four of √150 s.
    expect(slow.etaSeconds - quick.etaSeconds).toBeCloseTo(4 * (30 - Math.sqrt(150)), 6);
    const eta = new EtaTracker(quick, { cells: [], prefill: [] }, 0);
    eta.push({ type: 'phase', phase: 'idle-gate', message: '' }, 0);
    const before = eta.seconds(0);
    const cell = { context: 0, concurrency: 1, windowSeconds: 5, status: 'valid' } as DecodeCell;
    eta.push({ type: 'cell-done', cell, index: 1, total: 4, etaSeconds: 0 }, 0);
    // Three cells left, now expected at 5 s windows each (at the measured pace, bounded by the tracker's limits).
    expect(eta.seconds(0)).toBeLessThan(before * 0.75);
  });
});

describe('when a prefill has been measured often enough', () => {
  /** Measurements of 8K prompts at these rates (tok/s), each with its time to first token. */
  const at = (...rates: number[]) => rates.map((r) => ({ tokensPerSecond: r, ttftSeconds: 8192 / r }));
  const LONG = 30;

  it('never on one measurement; on two that agree within the precision', () => {
    expect(prefillStop([], 0.01, LONG)).toBeNull();
    expect(prefillStop(at(10_000), 0.01, LONG)).toBeNull();
    expect(prefillStop(at(10_000, 10_000), 0.01, LONG)).toEqual({
      measurements: 2,
      halfWidthRelative: 0,
      stopReason: 'precision',
    });
  });

  it('stops at an interval exactly as wide as the precision, and reads no interval around a zero mean', () => {
    expect(prefillStop(at(10_000, 10_000), 0, LONG)?.stopReason).toBe('precision');
    // 12.706 × 70.7 / √2 = 635.3 tok/s around 10,000: ±6.35%, within 6.4%, not within 6.3%.
    expect(prefillStop(at(10_050, 9_950), 0.064, LONG)?.stopReason).toBe('precision');
    expect(prefillStop(at(10_050, 9_950), 0.063, LONG)).toBeNull();
    const zero = [0, 0].map(() => ({ tokensPerSecond: 0, ttftSeconds: 1 }));
    expect(prefillStop(zero, 0.01, LONG)).toBeNull();
    expect(prefillStop([...zero, ...zero], 0.01, LONG, 4)).toEqual({
      measurements: 4,
      halfWidthRelative: null,
      stopReason: 'max-measurements',
    });
  });

  it('measures on while the interval is wider, and stops at the cap saying so', () => {
    // Two measurements 1% apart: 12.706 × 70.7 / √2 ≈ 635 tok/s, ±6.3%.
    expect(prefillStop(at(10_050, 9_950), 0.01, LONG)).toBeNull();
    const many = at(10_000, 10_400, 9_600);
    expect(many.length).toBe(PREFILL_MAX_MEASUREMENTS);
    expect(prefillStop(many.slice(0, 2), 0.01, LONG)).toBeNull();
    const stop = prefillStop(many, 0.01, LONG)!;
    expect(stop.stopReason).toBe('max-measurements');
    expect(stop.measurements).toBe(3);
    // 4.303 × 400 / √3 ≈ 994 tok/s: ±9.9%.
    expect(stop.halfWidthRelative).toBeCloseTo((4.303 * 400) / Math.sqrt(3) / 10_000, 4);
    expect(prefillStop(many, 0.1, LONG)!.stopReason).toBe('precision');
  });

  it('starts no repeat that would take the repeats past the shortest decode window in all', () => {
    // The first is the scout. A 128K prompt of 6.9 s: a repeat would take 6.9 s, past 5 s.
    const long = [{ tokensPerSecond: 19_000, ttftSeconds: 6.9 }];
    expect(prefillStop(long, 0.01, 5)).toEqual({
      measurements: 1,
      halfWidthRelative: null,
      stopReason: 'max-duration',
    });
    expect(prefillStop(long, 0.01, 6.9)).toBeNull();
    // 2.5 s each: the first repeat fits in 5 s, a second would end the repeats at exactly 5 s (within), at 2.6 s not.
    const of = (t: number) => ({ tokensPerSecond: 65_536 / t, ttftSeconds: t });
    expect(prefillStop([of(2.5)], 0.01, 5)).toBeNull();
    expect(prefillStop([of(2.5), { ...of(2.5), tokensPerSecond: 20_000 }], 0.01, 5)).toBeNull();
    expect(prefillStop([of(2.6), { ...of(2.6), tokensPerSecond: 20_000 }], 0.01, 5)?.stopReason).toBe('max-duration');
    // The first measurement does not count against the repeats: a 4 s scout still gets a 4 s repeat under 5 s.
    expect(prefillStop([of(4)], 0.01, 5)).toBeNull();
    // The precision, when reached, is said first; the cap of measurements before the time.
    expect(prefillStop([of(20), of(20)], 0.01, 5)?.stopReason).toBe('precision');
    expect(prefillStop(at(10_000, 10_400, 9_600), 0.01, 0)?.stopReason).toBe('max-measurements');
  });
});
