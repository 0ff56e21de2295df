/**
 * The figures of a load pass from request records: rates inside the window, tokens counted where
 * they fall, percentiles with their counts, the kept-up verdict with its evidence, goodput, and
 * the largest rate within the targets; and the sweep's rates between its two passes.
 */
import { describe, expect, it } from 'vitest';
import { ServerClock } from '../../../src-main/engine/bench/clock';
import {
  achievedRate,
  bestRateWithinSlo,
  countedStats,
  keptUp,
  loadFigures,
  queueOver,
  tokensInside,
  prefixCacheOver,
} from '../../../src-main/engine/bench/load-figures';
import type { LoadRecord, QueueReading } from '../../../src-main/engine/bench/load-rate';
import { sweepRates } from '../../../src-main/engine/bench/load-run';
import type { LoadRateResult } from '#shared/session/schema-load';
import { passDetails } from '#shared/report/load-model';

/** A request sent at `at` seconds: first token 100 ms later, then `tokens` tokens 10 ms apart. */
function request(at: number, tokens = 11, extra: Partial<LoadRecord> = {}): LoadRecord {
  const sent = at * 1000;
  const first = sent + 100;
  const last = first + (tokens - 1) * 10;
  return {
    dueAt: sent,
    sentAt: sent,
    firstTokenAt: first,
    lastTokenAt: last,
    endedAt: last + 1,
    outputTokens: tokens,
    inputTokens: 500,
    firstAnswerAt: -1,
    reasoningTokens: 0,
    turn: 0,
    outcome: 'done',
    error: null,
    held: false,
    ...extra,
  };
}

const clock = new ServerClock(1);
const figuresInput = (records: LoadRecord[], targetRate: number | null = 2, readings: QueueReading[] = []) => ({
  pass: 'rate' as const,
  targetRate,
  output: { records, windowStartMs: 10_000, windowEndMs: 20_000, readings },
  clock,
  slo: { ttftSeconds: 0.15, e2eSeconds: 0.25 },
  startedAt: '2026-12-01T00:00:00Z',
});
const figures = (records: LoadRecord[], targetRate: number | null = 2, readings: QueueReading[] = []) =>
  loadFigures(figuresInput(records, targetRate, readings));
const steady = Array.from({ length: 40 }, (_, i) => request(5 + i / 2));

describe('tokens inside a window', () => {
  it('counts a request’s tokens in the share of its decode that falls inside', () => {
    const r = request(0, 11); // tokens at 100..200 ms
    expect(tokensInside(r, 0, 1000)).toBe(11);
    expect(tokensInside(r, 150, 1000)).toBeCloseTo(5, 6);
    expect(tokensInside(r, 300, 1000)).toBe(0);
  });
});

describe('a pass’s figures', () => {
  // Two requests a second from 5 s to 25 s (steady): the window [10 s, 20 s] holds 20 sends and 20 completions.

  it('offered and achieved rates, tok/s and latencies with their counts, from the window only', () => {
    const f = figures(steady);
    expect(f.offeredRate).toBe(2);
    expect(f.achievedRate).toBe(2);
    expect(f.outputTokensPerSecond).toBeCloseTo(22, 6);
    expect(f.ttft).toMatchObject({ p50: 0.1, count: 20 });
    expect(f.timeBetweenTokens?.p99).toBeCloseTo(0.01, 9);
    expect(f.e2e?.p50).toBeCloseTo(0.201, 9);
    expect(f.keptUp).toBe(true);
    expect(f.goodput).toBe(2);
    expect(f.sloShare).toBe(1);
  });

  it('errors and unfinished requests count apart, and only finished requests meet the targets', () => {
    const records = steady.map((r, i) =>
      i === 12
        ? { ...r, outcome: 'error' as const, error: 'HTTP 500' }
        : i === 13
          ? { ...r, outcome: 'cancelled' as const }
          : r,
    );
    const f = figures(records);
    expect([f.requests, f.completed, f.errors, f.unfinished, f.firstError]).toEqual([20, 18, 1, 1, 'HTTP 500']);
    expect(f.sloShare).toBeCloseTo(18 / 20, 9);
  });

  it('a rate completed well below what was asked is not kept up, and says so with the figures', () => {
    const f = figures(steady, 4);
    expect(f.keptUp).toBe(false);
    expect(f.keptUpReason).toBe('completed 2.0 req/s of 4.0 offered');
  });

  it('a waiting queue that grows over the window is evidence, with its size', () => {
    const readings = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({
      at: 10_000 + i * 1250,
      waiting: i * 2,
      queueSum: i * 3,
      queueCount: i * 2,
    }));
    const q = queueOver(readings, 10_000, 20_000);
    expect(q).toMatchObject({ scrapes: 9, maxWaiting: 16, waitingGrowth: 12, meanQueueSeconds: 1.5 });
    expect(keptUp(2, 2, 0, q)).toEqual({
      keptUp: false,
      reason: "the server's waiting queue grew by 12.0 over the window (up to 16)",
    });
    expect(keptUp(2, 2, 3, null).reason).toBe('3 arrivals waited for the in-flight cap');
  });

  it('keeps up at exactly 90% of the rate, a queue grown by exactly one, and no arrival held; says every reason', () => {
    const q = (waitingGrowth: number) => ({
      scrapes: 3,
      meanWaiting: 1,
      maxWaiting: 4,
      waitingGrowth,
      meanQueueSeconds: null,
    });
    expect(keptUp(10, 9, 0, q(1))).toEqual({ keptUp: true, reason: null });
    expect(keptUp(10, 8.99, 0, null).keptUp).toBe(false);
    expect(keptUp(10, 10, 0, q(1.01)).keptUp).toBe(false);
    expect(keptUp(10, 10, 1, null).keptUp).toBe(false);
    // Without a rate asked for (the sweep's passes) only the queue and the cap can say it fell behind.
    expect(keptUp(null, 0.1, 0, null)).toEqual({ keptUp: true, reason: null });
    expect(keptUp(10, 5, 2, q(3)).reason).toBe(
      "completed 5.0 req/s of 10.0 offered; the server's waiting queue grew by 3.0 over the window (up to 4); 2 arrivals waited for the in-flight cap",
    );
  });

  it('counts the prompt tokens of the requests whose first token came inside the window in total tok/s', () => {
    // 20 first tokens inside the window, 500 prompt tokens each, over 10 s: 1,000 tok/s on top of the output's 22.
    const f = figures(steady);
    expect(f.totalTokensPerSecond - f.outputTokensPerSecond).toBeCloseTo(1000, 6);
    // A request sent inside but answered after the window adds its output share, not its prompt.
    const late = [...steady, request(19.95, 11, { firstTokenAt: 20_050, lastTokenAt: 20_150, endedAt: 20_151 })];
    expect(figures(late).totalTokensPerSecond - figures(late).outputTokensPerSecond).toBeCloseTo(1000, 6);
  });

  it('meets the time-between-tokens target per request; a one-token answer has no gaps to miss it', () => {
    const slow = request(12, 11, { lastTokenAt: 12_100 + 10 * 30, endedAt: 12_401 });
    const one = request(13, 1);
    const records = [...steady.filter((r) => r.dueAt !== 12_000 && r.dueAt !== 13_000), slow, one];
    const f = loadFigures({
      pass: 'rate',
      targetRate: 2,
      output: { records, windowStartMs: 10_000, windowEndMs: 20_000, readings: [] },
      clock,
      slo: { tbtSeconds: 0.02 },
      startedAt: '2026-12-01T00:00:00Z',
    });
    // 30 ms between the slow request's tokens misses 20 ms; the rest (10 ms, or none) meet it.
    expect(f.sloShare).toBeCloseTo(19 / 20, 9);
    expect(f.goodput).toBeCloseTo((f.achievedRate * 19) / 20, 9);
    expect(f.timeBetweenTokens?.count).toBe(19);
  });

  it('counts the most requests open at once: one that ends as another starts is not open with it, one never ended stays open', () => {
    const back = (at: number, end: number): LoadRecord =>
      request(at, 1, { firstTokenAt: at * 1000 + 1, lastTokenAt: at * 1000 + 1, endedAt: end });
    // Three in a row, each ending the moment the next is sent: one at a time.
    expect(figures([back(10, 11_000), back(11, 12_000), back(12, 13_000)]).maxInFlight).toBe(1);
    // Two overlapping and one that never ended: three at once from 12 s.
    expect(figures([back(10, 13_000), back(11, 14_000), back(12, -1)]).maxInFlight).toBe(3);
    expect(figures([back(10, 10_500), back(11, 11_500), back(12, -1)]).maxInFlight).toBe(1);
  });
});

describe('the achieved rate', () => {
  // The arrivals the seeded Poisson schedule draws at 2 req/s (seed 0): six in a 1 s warm-up, thirteen
  // in the 6 s window after it; each request takes 1.2 s.
  const warmup = [0, 0.15, 0.16, 0.28, 0.36, 0.68];
  const window = [1.07, 1.55, 2.07, 2.37, 2.81, 2.95, 3.0, 4.17, 4.43, 5.07, 5.61, 6.43, 6.92];
  const short = (records: LoadRecord[]) =>
    loadFigures({
      pass: 'rate',
      targetRate: 2,
      output: { records, windowStartMs: 1000, windowEndMs: 7000, readings: [] },
      clock,
      slo: null,
      startedAt: '2026-12-01T00:00:00Z',
    });

  it('counts the window’s own requests, not the warm-up’s that finish inside it: never above the offered rate', () => {
    const f = short([...warmup, ...window].map((at) => request(at, 111)));
    // Finishes inside the window: all six warm-up requests and eleven of the window's, 2.8 req/s.
    expect(f.offeredRate).toBeCloseTo(13 / 6, 9);
    expect(f.achievedRate).toBeCloseTo(13 / 6, 9);
    expect(f.keptUp).toBe(true);
    // Without targets there is no goodput and no share within them.
    expect([f.goodput, f.sloShare]).toEqual([null, null]);
  });

  it('reads the wait stretch by due time, whatever order the records come in', () => {
    const records = Array.from({ length: 28 }, (_, i) => {
      const first = i * 1000 + 100;
      return { ...request(i / 4), firstTokenAt: first, lastTokenAt: first + 100, endedAt: first + 101 };
    });
    const inOrder = short(records).achievedRate;
    expect(short([...records].reverse()).achievedRate).toBe(inOrder);
    expect(short([records[10], ...records.slice(0, 10), ...records.slice(11)]).achievedRate).toBe(inOrder);
  });

  it('a finished request without a first token (an empty answer) stretches nothing', () => {
    const records = [...warmup, ...window].map((at) => request(at, 111));
    records[6] = { ...records[6], firstTokenAt: -1, lastTokenAt: -1, outputTokens: 0 };
    expect(short(records).achievedRate).toBeCloseTo(13 / 6, 9);
  });

  it('a warm-up shorter than a request does not read as falling behind', () => {
    // Evenly 2 req/s, each request taking 3 s: the window's last six finish after it and only two warm-up
    // requests take their place, 1.3 req/s finishing inside.
    const f = short(Array.from({ length: 14 }, (_, i) => request(i / 2, 291)));
    expect(f.achievedRate).toBe(2);
    expect(f.keptUp).toBe(true);
  });

  it('a server behind its arrivals is credited with the pace it took them up, not the pace they came', () => {
    // 4 req/s arrive from 0 s; the server starts one a second, so each waits 0.75 s longer than the one before.
    const records = Array.from({ length: 28 }, (_, i) => {
      const due = i * 250;
      const first = i * 1000 + 100;
      return { ...request(due / 1000), firstTokenAt: first, lastTokenAt: first + 100, endedAt: first + 101 };
    });
    const f = loadFigures({
      pass: 'rate',
      targetRate: 2,
      output: { records, windowStartMs: 1000, windowEndMs: 7000, readings: [] },
      clock,
      slo: { ttftSeconds: 10 },
      startedAt: '2026-12-01T00:00:00Z',
    });
    expect(f.offeredRate).toBe(4);
    // The window's 24 requests: the last waited 17.25 s longer than the first, so they took 6 + 17.25 s to take up.
    expect(f.achievedRate).toBeCloseTo(24 / 23.25, 9);
    expect(f.keptUpReason).toBe('completed 1.0 req/s of 2.0 offered');
    // Goodput is the achieved rate of those within the targets (the 10 with a first token within 10 s), never above it.
    expect(f.goodput).toBeCloseTo((f.achievedRate * 10) / 24, 9);
  });
});

describe('the answer and the sweep', () => {
  const at = (rate: number, keptUp: boolean, sloShare: number) =>
    ({ pass: 'rate', targetRate: rate, offeredRate: rate, keptUp, sloShare }) as LoadRateResult;

  it('the largest rate that kept up with 99% of requests within the targets', () => {
    expect(bestRateWithinSlo([at(1, true, 1), at(2, true, 0.995), at(4, true, 0.9), at(8, false, 1)])).toBe(2);
    expect(bestRateWithinSlo([at(4, true, 0.5)])).toBeNull();
  });

  it('never a rate that did not keep up, however many of its requests met the targets', () => {
    expect(bestRateWithinSlo([at(1, true, 1), at(8, false, 1)])).toBe(1);
    expect(bestRateWithinSlo([at(8, false, 1)])).toBeNull();
  });

  it('exactly 99% within the targets is enough; the sweep’s passes and a run without targets never answer', () => {
    expect(bestRateWithinSlo([at(3, true, 0.99), at(4, true, 0.989)])).toBe(3);
    const sync = { ...at(5, true, 1), pass: 'synchronous', targetRate: null } as LoadRateResult;
    expect(bestRateWithinSlo([at(1, true, 1), sync])).toBe(1);
    expect(bestRateWithinSlo([{ ...at(2, true, 1), sloShare: null }])).toBeNull();
    // A rate pass without a target rate (an imported one) answers with what it offered.
    expect(bestRateWithinSlo([{ ...at(2, true, 1), targetRate: null, offeredRate: 2.5 }])).toBe(2.5);
  });

  it('sweep rates are spread evenly strictly between the synchronous and the throughput rate', () => {
    expect(sweepRates(1, 11, 4)).toEqual([3, 5, 7, 9]);
  });
});

describe('the rules at their edges', () => {
  it('counts tokens at the window’s edges, an answer whose tokens came at once, and nothing of one that never answered', () => {
    const r = request(0, 11); // tokens at 100..200 ms
    expect(tokensInside(r, 100, 1000)).toBe(11);
    expect(tokensInside(r, 0, 100)).toBe(1);
    expect(tokensInside(request(0, 1), 0, 100)).toBe(1);
    expect(tokensInside(request(0, 1), 101, 1000)).toBe(0);
    // Five tokens in one instant (a burst): all of them where that instant falls, none elsewhere.
    const burst = request(0, 5, { lastTokenAt: 100 });
    expect([tokensInside(burst, 100, 100), tokensInside(burst, 0, 99), tokensInside(burst, 101, 200)]).toEqual([
      5, 0, 0,
    ]);
    expect(tokensInside(request(0, 0, { lastTokenAt: 100 }), 0, 1000)).toBe(0);
    expect(tokensInside(request(0, 5, { firstTokenAt: -1 }), 0, 1000)).toBe(0);
    // A first token at the clock's zero is a first token.
    expect(tokensInside(request(0, 2, { sentAt: 0, firstTokenAt: 0, lastTokenAt: 10 }), 0, 1000)).toBe(2);
  });

  it('reads no time between tokens for an answer of one token or of tokens that came at once', () => {
    const two = request(11, 2); // 10 ms between its two tokens
    const atOnce = request(12, 3, { lastTokenAt: 12_100 });
    const f = figures([two, atOnce, request(13, 1)]);
    expect(f.timeBetweenTokens).toMatchObject({ count: 1, p50: expect.closeTo(0.01, 12) });
    expect(countedStats([1, Number.NaN, 3])).toMatchObject({ count: 2, p50: 2 });
    expect(countedStats([Number.NaN])).toBeNull();
  });

  it('achieves nothing in an empty window or without a finished request; two requests stretch the window by their waits', () => {
    expect(achievedRate([request(1)], 0, clock)).toBe(0);
    expect(achievedRate([], 1000, clock)).toBe(0);
    expect(achievedRate([request(1)], 1000, clock)).toBe(1);
    // Finished, but none with a first token to say how long it waited: nothing stretches.
    expect(achievedRate([request(1, 0, { firstTokenAt: -1, lastTokenAt: -1 })], 1000, clock)).toBe(1);
    // The second waited 1 s longer for its first token than the first: 2 requests over 2 + 1 s.
    const late = request(2, 11, { firstTokenAt: 3100, lastTokenAt: 3200, endedAt: 3201 });
    expect(achievedRate([request(1), late], 2000, clock)).toBeCloseTo(2 / 3, 12);
    // A sped-up clock counts server seconds: the same requests at 4x took a quarter of the time.
    expect(achievedRate([request(1), late], 2000, new ServerClock(4))).toBeCloseTo(2 / 12, 12);
  });

  it('reads the queue over the window and the 1.5 s after it, against the last reading before it', () => {
    const at = (t: number, waiting: number, count: number | null, sum: number | null = null) => ({
      at: t,
      waiting,
      queueCount: count,
      queueSum: sum,
    });
    const readings = [
      at(8_000, 50, 1, 1),
      at(9_000, 0, 2, 2),
      at(10_500, 2, 4, 6),
      at(21_500, 4, 6, 12),
      at(21_501, 90, 99, 99),
    ];
    const q = queueOver(readings, 10_000, 20_000)!;
    // From the reading at 9 s (4 more requests, 10 s of queueing more) to the one at 21.5 s.
    expect(q).toEqual({ scrapes: 2, meanWaiting: 3, maxWaiting: 4, waitingGrowth: 2, meanQueueSeconds: 2.5 });
    // Without a reading before the window, from its first one.
    expect(queueOver(readings.slice(2), 10_000, 20_000)?.meanQueueSeconds).toBe(3);
    expect(queueOver([at(10_000, 1, null), at(12_000, 1, null)], 10_000, 20_000)?.meanQueueSeconds).toBeNull();
    expect(queueOver([at(10_000, 1, 5, 5), at(12_000, 1, 5, 9)], 10_000, 20_000)?.meanQueueSeconds).toBeNull();
    expect(queueOver([at(5_000, 1, 5, 5)], 10_000, 20_000)).toBeNull();
    // A reading exactly at the window's start is inside it, and the one the window is read against.
    expect(queueOver([at(9_000, 0, 0, 0), at(10_000, 7, 1, 1), at(11_000, 7, 3, 5)], 10_000, 20_000)).toMatchObject({
      scrapes: 2,
      meanQueueSeconds: 2,
    });
  });

  it('meets a target exactly at it, and counts prompt tokens and held arrivals of the window', () => {
    // request(): first token 100 ms after sending, ended 201 ms after for 11 tokens.
    const f = loadFigures({
      pass: 'rate',
      targetRate: 2,
      output: {
        records: steady.map((r, i) => ({ ...r, held: i % 10 === 0 })),
        windowStartMs: 10_000,
        windowEndMs: 20_000,
        readings: [],
      },
      clock,
      slo: { ttftSeconds: 0.1, e2eSeconds: 0.201, tbtSeconds: 0.01 },
      startedAt: '2026-12-01T00:00:00Z',
    });
    expect(f.sloShare).toBe(1);
    expect(f.heldBack).toBe(2);
    expect(f.meanInputTokens).toBe(500);
    expect(f.meanOutputTokens).toBe(11);
    const tight = loadFigures({ ...figuresInput(steady), slo: { e2eSeconds: 0.2 } });
    expect(tight.sloShare).toBe(0);
    // First tokens exactly at the window's start and end bring their prompts.
    const edges = [request(9.9), request(19.9)];
    expect(figures(edges).totalTokensPerSecond - figures(edges).outputTokensPerSecond).toBeCloseTo(100, 9);
  });

  it('names the error that ended first, and reads no rate, goodput or share where nothing was sent or finished', () => {
    const errors = [
      request(12, 11, { outcome: 'error', error: 'late', endedAt: 15_000 }),
      request(13, 11, { outcome: 'error', error: 'early', endedAt: 13_500 }),
    ];
    expect(figures(errors).firstError).toBe('early');
    expect(figures(errors)).toMatchObject({ goodput: 0, completed: 0 });
    const empty = loadFigures({
      ...figuresInput([]),
      output: { records: [], windowStartMs: 10_000, windowEndMs: 10_000, readings: [] },
    });
    expect(empty).toMatchObject({ offeredRate: 0, outputTokensPerSecond: 0, sloShare: 0, goodput: 0 });
  });

  it('counts a request that ends as another starts as not open with it, whatever order the records are in', () => {
    const back = (at: number, end: number): LoadRecord =>
      request(at, 1, { firstTokenAt: at * 1000 + 1, lastTokenAt: at * 1000 + 1, endedAt: end });
    expect(figures([back(11, 12_000), back(10, 11_000)]).maxInFlight).toBe(1);
  });
});

describe('what a pass adds for traces, conversations and thinking models', () => {
  it('arrival lag: how long after its due time each request of the window left (early timers count as on time)', () => {
    const late = steady.map((r, i) => ({ ...r, sentAt: r.dueAt + (i % 2 ? 20 : 0) - (i % 5 === 0 ? 0.3 : 0) }));
    const f = figures(late);
    expect(f.arrivalLag?.count).toBe(f.requests);
    expect(f.arrivalLag?.p99).toBeCloseTo(0.02, 9);
    expect(f.arrivalLag?.p50).toBeGreaterThanOrEqual(0);
  });

  it("a thinking model's requests: time to the first answer token and reasoning tokens; none without reasoning", () => {
    expect(figures(steady)).not.toHaveProperty('timeToFirstAnswer');
    const thinking = steady.map((r, i) => ({ ...r, reasoningTokens: 8 + (i % 2) * 2, firstAnswerAt: r.sentAt + 500 }));
    const f = figures(thinking);
    expect(f.timeToFirstAnswer?.p50).toBeCloseTo(0.5, 9);
    expect(f.timeToFirstAnswer?.count).toBe(f.completed);
    expect(f.meanReasoningTokens).toBe(9);
  });

  it("the prefix cache's lookups and hits over the pass, from its counters before and after", () => {
    const at = (q: number, h: number): QueueReading => ({
      at: 0,
      waiting: 0,
      queueSum: null,
      queueCount: null,
      prefixQueries: q,
      prefixHits: h,
    });
    const output = { records: [], windowStartMs: 0, windowEndMs: 1, readings: [] };
    expect(prefixCacheOver({ ...output, prefixCache: { before: at(1000, 200), after: at(9000, 5200) } })).toEqual({
      queriedTokens: 8000,
      hitTokens: 5000,
    });
    expect(prefixCacheOver({ ...output, prefixCache: null })).toBeNull();
    expect(prefixCacheOver(output)).toBeNull();
  });

  it('TTFT per conversation turn, in turn order, from the finished requests of each turn', () => {
    const turns = steady.map((r, i) => ({
      ...r,
      turn: (i % 3) + 1,
      firstTokenAt: r.sentAt + [300, 100, 50][i % 3],
    }));
    const byTurn = figures(turns).ttftByTurn!;
    expect(byTurn.map((t) => t.turn)).toEqual([1, 2, 3]);
    expect(byTurn.map((t) => t.ttft.p50)).toEqual([0.3, 0.1, 0.05]);
    expect(figures(steady)).not.toHaveProperty('ttftByTurn');
  });

  it('the report says each of those in a sentence, only when measured', () => {
    const r = figures(
      steady.map((q, i) => ({ ...q, turn: (i % 2) + 1, reasoningTokens: 4, firstAnswerAt: q.sentAt + 400 })),
    );
    const lines = passDetails({ ...r, prefixCache: { queriedTokens: 4000, hitTokens: 1000 } });
    expect(lines).toEqual([
      expect.stringMatching(/^2\.0 req\/s: requests left 0 ms \(p50\), 0 ms \(p99\) after their scheduled arrival\.$/),
      expect.stringMatching(
        /^2\.0 req\/s: time to first answer token, after reasoning: 400 ms .*; 4\.0 reasoning tokens per request\.$/,
      ),
      "2.0 req/s: the server's prefix cache found 25% of 4,000 prompt tokens (1,000 cached).",
      '2.0 req/s: TTFT p50 by conversation turn: turn 1 100 ms, turn 2 100 ms.',
    ]);
    expect(passDetails({ ...figures(steady), arrivalLag: null, prefixCache: null })).toEqual([]);
  });
});
