/**
 * The regression gate on load sessions (load-gate.ts): each later session's passes against the
 * first's at the same offered rate, figure by figure, beyond the limit and the ±5% floor; and the
 * refusal when a session shares no offered rate with the first.
 */
import { describe, expect, it } from 'vitest';
import { fmtLoadRegression, loadGateRefusal, loadRegressions } from '#shared/report/load-gate';
import type { LoadRateResult, LoadRun } from '#shared/session/schema-load';

const stats = (p99: number) => ({ p50: p99 / 2, p90: p99 * 0.9, p99, mean: p99 / 2, count: 40 });

/** A pass at `rate` req/s (null: the sweep's `pass`) with these figures; latencies in seconds. */
function pass(
  rate: number | null,
  f: { achieved?: number; output?: number; ttft?: number | null; tbt?: number | null; e2e?: number | null } = {},
  kind: LoadRateResult['pass'] = 'rate',
): LoadRateResult {
  const at = (v: number | null | undefined, d: number) => (v === null ? null : stats(v ?? d));
  return {
    pass: kind,
    targetRate: rate,
    offeredRate: rate ?? 1,
    achievedRate: f.achieved ?? rate ?? 1,
    outputTokensPerSecond: f.output ?? 500,
    totalTokensPerSecond: 5000,
    ttft: at(f.ttft, 0.1),
    timeBetweenTokens: at(f.tbt, 0.01),
    e2e: at(f.e2e, 1),
  } as LoadRateResult;
}

const run = (...results: LoadRateResult[]) => ({ config: {}, results, bestRateWithinSlo: null }) as unknown as LoadRun;

describe('the regression gate on load sessions', () => {
  it('fails each figure slower than the first session’s at the same rate: throughputs lower, latencies higher', () => {
    const a = run(pass(2), pass(8));
    const b = run(pass(2), pass(8, { achieved: 4, output: 250, ttft: 5, tbt: 0.01, e2e: 2 }));
    const gated = loadRegressions([a, b], ['A', 'B'], 0.05);
    expect(gated.map((g) => [g.pass, g.figure, g.ratio])).toEqual([
      ['8.0 req/s', 'achieved req/s', 0.5],
      ['8.0 req/s', 'output tok/s', 0.5],
      ['8.0 req/s', 'TTFT p99', 0.02],
      ['8.0 req/s', 'end-to-end p99', 0.5],
    ]);
    expect(gated.map(fmtLoadRegression)).toEqual([
      'B / A at 8.0 req/s: achieved req/s 0.50× (50% slower: 4.0 vs 8.0)',
      'B / A at 8.0 req/s: output tok/s 0.50× (50% slower: 250.0 vs 500.0)',
      'B / A at 8.0 req/s: TTFT p99 0.02× (98% slower: 5,000 ms vs 100 ms)',
      'B / A at 8.0 req/s: end-to-end p99 0.50× (50% slower: 2,000 ms vs 1,000 ms)',
    ]);
    expect(loadRegressions([a, run(pass(2), pass(8, { tbt: 0.02 }))], ['A', 'B'], 0.05).map(fmtLoadRegression)).toEqual(
      ['B / A at 8.0 req/s: time between tokens p99 0.50× (50% slower: 20 ms vs 10 ms)'],
    );
    // Faster, or latencies lower, is never a regression.
    expect(loadRegressions([b, a], ['B', 'A'], 0.05)).toEqual([]);
  });

  it('needs a figure slower by more than the limit and by more than the ±5% floor', () => {
    const a = run(pass(4, { output: 1000 }));
    const at = (output: number, limit: number) =>
      loadRegressions([a, run(pass(4, { output }))], ['A', 'B'], limit).length;
    expect([at(960, 0), at(940, 0)]).toEqual([0, 1]);
    expect([at(850, 0.2), at(800, 0.2), at(790, 0.2)]).toEqual([0, 0, 1]);
    // Latencies by the same rule, read as A / B: 1,000 ms against 1,100 ms is 0.91×.
    const slowEnd = (e2e: number) => loadRegressions([a, run(pass(4, { output: 1000, e2e }))], ['A', 'B'], 0.05);
    expect(slowEnd(1.05)).toEqual([]);
    expect(slowEnd(1.1).map((g) => g.figure)).toEqual(['end-to-end p99']);
  });

  it('skips a figure either side lacks or the first has at zero; a latency of zero is no slowdown', () => {
    const a = run(pass(4, { ttft: null, tbt: 0, achieved: 0 }));
    const b = run(pass(4, { ttft: 9, tbt: 9, achieved: 0, e2e: null }));
    expect(loadRegressions([a, b], ['A', 'B'], 0.05)).toEqual([]);
    expect(loadRegressions([run(pass(4)), run(pass(4, { ttft: 0 }))], ['A', 'B'], 0.05)).toEqual([]);
  });

  it('matches passes by what was offered, the sweep’s passes by kind, and checks every later session', () => {
    const a = run(pass(null, {}, 'synchronous'), pass(2), pass(null, { output: 900 }, 'throughput'));
    const b = run(pass(2), pass(16, { output: 1 }), pass(null, { output: 400 }, 'throughput'));
    const c = run(pass(null, { output: 100 }, 'synchronous'));
    const gated = loadRegressions([a, b, c], ['A', 'B', 'C'], 0.05);
    expect(gated.map((g) => `${g.label} ${g.pass} ${g.figure}`)).toEqual([
      'B / A throughput output tok/s',
      'C / A synchronous output tok/s',
    ]);
  });

  it('refuses sessions that share no offered rate with the first, saying what each offered', () => {
    const a = run(pass(1), pass(2));
    expect(loadGateRefusal([a, run(pass(2), pass(4))], ['A', 'B'])).toBeNull();
    expect(
      loadGateRefusal([a, run(pass(2)), run(pass(4), pass(null, {}, 'throughput')), run()], ['A', 'B', 'C', 'D']),
    ).toBe(
      "the regression gate compares passes at the same offered rate, and C offered 4.0 req/s, throughput; D offered nothing against A's 1.0 req/s, 2.0 req/s. Run them at the same --rates (or both as a --sweep).",
    );
  });
});
