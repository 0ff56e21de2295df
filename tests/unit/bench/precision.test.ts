import { describe, expect, it } from 'vitest';
import {
  BATCHES,
  batchMeansInterval,
  correlationFactor,
  type PrecisionTarget,
  type RateInterval,
  stopDecision,
  type TokenTick,
} from '../../../src-main/engine/bench/precision';
import { rng } from '../../../src-main/engine/sim/text';

/** Ticks every `dt` seconds whose per-tick rates are `rates` (tokens/s). */
function ticksOf(rates: readonly number[], dt = 1): TokenTick[] {
  const out: TokenTick[] = [{ t: 0, tokens: 0 }];
  for (const r of rates) {
    const last = out[out.length - 1];
    out.push({ t: last.t + dt, tokens: last.tokens + r * dt });
  }
  return out;
}

const interval = (relative: number): RateInterval => ({
  rate: 100,
  halfWidth: relative * 100,
  relative,
  batches: BATCHES,
  batchSeconds: 1,
});

describe('the batch-means interval of a window’s total rate', () => {
  it('waits for one tick per batch and a window that starts at its opening', () => {
    expect(batchMeansInterval(ticksOf(new Array(BATCHES - 1).fill(100)))).toBeNull();
    expect(batchMeansInterval(ticksOf(new Array(BATCHES).fill(100)))).not.toBeNull();
    const late = ticksOf(new Array(BATCHES + 2).fill(100)).slice(1);
    expect(batchMeansInterval(late)).toBeNull();
  });

  it('is centred on the window’s own total rate: tokens over seconds', () => {
    const ci = batchMeansInterval(ticksOf([100, 120, 80, 100, 90, 110, 100, 105, 95, 100, 130, 70]))!;
    // 1,200 tokens in 12 s; 10 batches of 1.2 s.
    expect(ci.rate).toBeCloseTo(100, 9);
    expect(ci.batches).toBe(10);
    expect(ci.batchSeconds).toBeCloseTo(1.2, 12);
  });

  it('gives Student’s t half-width of the batch rates: 2.262 × sd / √10', () => {
    const ci = batchMeansInterval(ticksOf([90, 110, 90, 110, 90, 110, 90, 110, 90, 110]))!;
    const sd = Math.sqrt((10 * 10 ** 2) / 9);
    expect(ci.halfWidth).toBeCloseTo((2.262 * sd) / Math.sqrt(10), 6);
    expect(ci.relative).toBeCloseTo(ci.halfWidth / 100, 12);
  });

  it('reads a batch boundary between two ticks on the line through them', () => {
    // 15 ticks of 1 s, batches of 1.5 s: each batch's rate mixes the ticks it covers.
    const rates = [100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 400];
    const ci = batchMeansInterval(ticksOf(rates))!;
    // The last batch covers 13.5..15 s: 0.5 s at 100 and 1 s at 400, so 300 tok/s; the others 100.
    const batchRates = [...new Array(9).fill(100), 300];
    const mean = batchRates.reduce((a, b) => a + b) / 10;
    const sd = Math.sqrt(batchRates.reduce((a, b) => a + (b - mean) ** 2, 0) / 9);
    expect(ci.rate).toBeCloseTo(mean, 9);
    expect(ci.halfWidth).toBeCloseTo((2.262 * sd) / Math.sqrt(10), 6);
  });

  it('has no width at a steady rate, and an unbounded relative width at zero', () => {
    expect(batchMeansInterval(ticksOf(new Array(40).fill(250), 0.25))!.halfWidth).toBeCloseTo(0, 9);
    expect(batchMeansInterval(ticksOf(new Array(20).fill(0)))!.relative).toBe(Number.POSITIVE_INFINITY);
  });

  it('stays honest for correlated samples where a per-tick interval would not', () => {
    // AR(1) rates around 100 with a correlation of 0.9 from one tick to the next: neighbouring ticks are alike.
    const uniform = rng(7);
    const gaussian = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, uniform()))) * Math.cos(2 * Math.PI * uniform());
    const coverage = (batches: number): number => {
      let held = 0;
      const trials = 400;
      for (let k = 0; k < trials; k++) {
        let x = gaussian();
        const rates: number[] = [];
        for (let i = 0; i < 400; i++) {
          x = 0.9 * x + Math.sqrt(1 - 0.81) * gaussian();
          rates.push(100 + 10 * x);
        }
        const ci = batchMeansInterval(ticksOf(rates), batches)!;
        if (Math.abs(ci.rate - 100) <= ci.halfWidth) held++;
      }
      return held / trials;
    };
    expect(coverage(BATCHES)).toBeGreaterThanOrEqual(0.9);
    // One batch per tick treats the samples as independent: the interval is too narrow, even with the
    // correlation correction (which caps the lag-1 correlation it believes at 0.8; these ticks have 0.9).
    expect(coverage(400)).toBeLessThan(0.9);
  });

  it('widens the interval when neighbouring batch rates are alike, never narrows it', () => {
    // Batches that drift together (each like the one before) hold less information than independent ones.
    const drifting = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109];
    const alternating = [100, 110, 100, 110, 100, 110, 100, 110, 100, 110];
    expect(correlationFactor(drifting)).toBeGreaterThan(1.8);
    expect(correlationFactor(drifting)).toBeLessThanOrEqual(3);
    expect(correlationFactor(alternating)).toBe(1);
    const ci = batchMeansInterval(ticksOf(drifting))!;
    const plain = 2.262 * (Math.sqrt(drifting.reduce((s, r) => s + (r - 104.5) ** 2, 0) / 9) / Math.sqrt(10));
    expect(ci.halfWidth / plain).toBeCloseTo(correlationFactor(drifting), 6);
    // The relative width (what the stopping rule and the stored interval read) is widened alike.
    expect(ci.relative).toBeCloseTo(ci.halfWidth / ci.rate, 12);
  });
});

describe('when an adaptive window closes', () => {
  const target: PrecisionTarget = { relative: 0.01, minSeconds: 5, maxSeconds: 30 };

  it('never before the shortest window, however narrow the interval', () => {
    expect(stopDecision(4.99, interval(0), target)).toBeNull();
    expect(stopDecision(5, interval(0.01), target)).toBe('precision');
  });

  it('once the interval is within the target, not while it is wider', () => {
    expect(stopDecision(12, interval(0.0101), target)).toBeNull();
    expect(stopDecision(12, interval(0.0099), target)).toBe('precision');
    expect(stopDecision(12, null, target)).toBeNull();
  });

  it('at the maximum whatever the interval, and says it was the maximum', () => {
    expect(stopDecision(30, interval(0.5), target)).toBe('max-duration');
    expect(stopDecision(30, null, target)).toBe('max-duration');
    expect(stopDecision(30, interval(0.001), target)).toBe('max-duration');
    expect(stopDecision(29.9, interval(0.5), target)).toBeNull();
  });
});
