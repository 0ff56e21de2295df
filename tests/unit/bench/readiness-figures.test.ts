/** The readiness gate and a cell's figures, judged from plain observations and stream timings. */
import { describe, expect, it } from 'vitest';
import { ServerClock } from '../../../src-main/engine/bench/clock';
import {
  completedInWindow,
  endToEndLatency,
  reasoningOfCell,
  failureCount,
  inWindow,
  ownTimeBetweenTokens,
  perRequestRate,
  stallInWindow,
  type StreamTimes,
  timeBetweenTokens,
  timeToFirstToken,
  windowTokens,
} from '../../../src-main/engine/bench/figures';
import {
  READINESS_START,
  rampStuckReason,
  type ReadinessObservation,
  readinessStep,
  readinessTimeoutSeconds,
} from '../../../src-main/engine/bench/readiness';

const K = 1024;

/** Feeds observations every 0.25 s; returns when the gate opened (or timed out) and how. */
function gate(obsAt: (t: number) => Omit<ReadinessObservation, 't'>, concurrency = 16, timeoutSeconds = 60) {
  let state = READINESS_START;
  for (let i = 0; i < 10_000; i++) {
    const t = i * 0.25;
    const step = readinessStep(state, { t, ...obsAt(t) }, { concurrency, timeoutSeconds });
    state = step.state;
    if (step.decision !== 'wait') return { t, decision: step.decision };
  }
  throw new Error('never decided');
}

describe('readiness gate', () => {
  it('deadlines by context: 60 s below 64K, 120 s from 64K, 180 s from 128K', () => {
    expect(
      [0, 32 * K, 64 * K - 1, 64 * K, 100 * K, 128 * K - 1, 128 * K, 257_984].map(readinessTimeoutSeconds),
    ).toEqual([60, 60, 60, 120, 120, 120, 180, 180]);
  });

  it('opens after 2 s and 3 steady seconds once every worker has a token', () => {
    const r = gate((t) => ({ everyWorkerHasToken: t >= 1, server: { running: 16, waiting: 0 } }));
    expect(r).toEqual({ t: 4, decision: 'open' });
  });

  it('a request waiting one scrape at turnover does not restart the steady time', () => {
    // Every 1.5 s one scrape sees the new request waiting and one fewer running.
    const r = gate((t) => ({
      everyWorkerHasToken: true,
      server: t % 1.5 === 0.5 ? { running: 15, waiting: 1 } : { running: 16, waiting: 0 },
    }));
    expect(r.decision).toBe('open');
    expect(r.t).toBeLessThanOrEqual(3.5);
  });

  it('waiting that persists for a second restarts it, and a server that never runs C times out', () => {
    const persistent = gate((t) => ({
      everyWorkerHasToken: true,
      server: t >= 2 && t < 4 ? { running: 14, waiting: 2 } : { running: 16, waiting: 0 },
    }));
    expect(persistent).toEqual({ t: 7, decision: 'open' }); // steady again from 4 s
    expect(gate(() => ({ everyWorkerHasToken: true, server: { running: 8, waiting: 8 } }), 16, 60)).toEqual({
      t: 60,
      decision: 'timed-out',
    });
  });

  it('a running count held below C by requests in transit, nothing waiting, opens once it stops rising (10 s), not at the deadline', () => {
    // A slow front end: a replacement is outside the running count while it is tokenised.
    const short = gate(
      (t) => ({ everyWorkerHasToken: t >= 5, server: { running: t % 1 === 0.5 ? 14 : 15, waiting: 0 } }),
      16,
      120,
    );
    expect(short).toEqual({ t: 15, decision: 'open' });
    // Still filling: a rise restarts the 10 s.
    const filling = gate(
      (t) => ({ everyWorkerHasToken: t >= 1, server: { running: Math.min(15, 8 + Math.floor(t / 3)), waiting: 0 } }),
      16,
      120,
    );
    expect(filling).toEqual({ t: 31, decision: 'open' });
    // Requests waiting at the server are queueing, not transit: no plateau.
    expect(gate(() => ({ everyWorkerHasToken: true, server: { running: 14, waiting: 2 } }), 16, 120)).toEqual({
      t: 120,
      decision: 'timed-out',
    });
  });

  it('without /metrics the client-side view decides alone', () => {
    expect(gate((t) => ({ everyWorkerHasToken: t >= 2.5, server: null }))).toEqual({ t: 5.5, decision: 'open' });
  });
});

const clock = new ServerClock(1);
/** A window that every stream below falls in. */
const everything = { startMs: -1e9, endMs: 1e9 };
/** A stream of `tokens` tokens at `tbtMs` apart from `first`, with its gap bookkeeping. */
function stream(p: Partial<StreamTimes> & { first: number; tbtMs: number; tokens: number }): StreamTimes {
  return {
    sentAt: p.first - 50,
    firstTokenAt: p.first,
    lastTokenAt: p.first + p.tbtMs * (p.tokens - 1),
    endedAt: -1,
    outcome: 'running',
    error: null,
    tokensAtOpen: 0,
    tokensAtClose: p.tokens,
    longestGapMs: p.tbtMs,
    longestGapEndedAt: p.first + p.tbtMs,
    gapAtCloseMs: 0,
    firstAnswerAt: -1,
    reasoningTokens: 0,
    ...p,
  };
}

describe('figures', () => {
  it("a thinking model's cell has its time to first answer and reasoning tokens; a plain model's has neither", () => {
    const plain = [stream({ first: 1000, tbtMs: 10, tokens: 20 })];
    expect(reasoningOfCell(plain, clock)).toEqual({});
    const thinking = [
      // sent at 950; 100 reasoning tokens, answer from 2,000: 1,050 ms to the first answer
      stream({ first: 1000, tbtMs: 10, tokens: 150, reasoningTokens: 100, firstAnswerAt: 2000 }),
      stream({ first: 1000, tbtMs: 10, tokens: 150, reasoningTokens: 120, firstAnswerAt: 2250 }),
      // still reasoning when the window closed: no answer time, and its partial reasoning is not a request's whole
      stream({ first: 1000, tbtMs: 10, tokens: 40, reasoningTokens: 40 }),
    ];
    const r = reasoningOfCell(thinking, clock);
    expect(r.reasoningTokensPerRequest).toBe(110);
    expect(r.timeToFirstAnswer?.count).toBe(2);
    expect(r.timeToFirstAnswer?.p50).toBeCloseTo(1.175, 6);
    // None reached its answer: the reasoning so far is what there is.
    expect(reasoningOfCell([thinking[2]], clock)).toEqual({ timeToFirstAnswer: null, reasoningTokensPerRequest: 40 });
  });

  it('end-to-end latency is send to last token of the requests that finished, in server seconds', () => {
    const done = (first: number, tbtMs: number) => stream({ first, tbtMs, tokens: 11, outcome: 'done' });
    const streams = [
      done(1000, 10), // sent at 950, last token at 1100: 150 ms
      done(2000, 20), // 250 ms
      stream({ first: 3000, tbtMs: 10, tokens: 11, outcome: 'cancelled' }),
      stream({ first: 4000, tbtMs: 10, tokens: 11, outcome: 'error' }),
      { ...done(5000, 10), lastTokenAt: -1 },
    ];
    expect(endToEndLatency(streams, new ServerClock(1))).toMatchObject({ count: 2, p50: 0.2, mean: 0.2 });
    expect(endToEndLatency(streams, new ServerClock(4))).toMatchObject({ count: 2, mean: 0.8 });
    expect(endToEndLatency([], new ServerClock(1))).toBeNull();
  });

  it('per request tok/s is the median of each request’s own rate, not total / C', () => {
    const streams = [
      stream({ first: 0, tbtMs: 20, tokens: 500 }),
      stream({ first: 0, tbtMs: 25, tokens: 400 }),
      stream({ first: 0, tbtMs: 40, tokens: 250 }),
    ];
    expect(perRequestRate(streams, everything, clock)).toBeCloseTo(40, 6); // 1 / 25 ms
    expect(timeBetweenTokens(streams, clock)?.p50).toBeCloseTo(0.025, 9);
  });

  it('per request tok/s is the median of the rates, not 1 / the median time between tokens', () => {
    // Four requests: rates 50, 40, 25 and 20 tok/s. The median rate is (40 + 25) / 2 = 32.5;
    // 1 / the median time between tokens would be 1 / 32.5 ms = 30.77.
    const streams = [20, 25, 40, 50].map((tbtMs) => stream({ first: 0, tbtMs, tokens: 200 }));
    expect(perRequestRate(streams, everything, clock)).toBeCloseTo(32.5, 9);
    expect(1 / timeBetweenTokens(streams, clock)!.p50).toBeCloseTo(30.77, 2);
  });

  it('per request tok/s counts only the requests in flight during the measurement window', () => {
    const w = { startMs: 10_000, endMs: 40_000 };
    const streams = [
      // Fast requests of the ramp that ended before the window opened: not part of the figure.
      ...[1, 2, 3].map(() => stream({ first: 0, tbtMs: 5, tokens: 1000, endedAt: 5_000, outcome: 'done' })),
      stream({ first: 9_000, tbtMs: 40, tokens: 500 }),
      stream({ first: 9_000, tbtMs: 40, tokens: 500 }),
      // Sent after the window closed.
      stream({ first: 41_000, tbtMs: 5, tokens: 100, sentAt: 40_500 }),
    ];
    expect(perRequestRate(streams, w, clock)).toBeCloseTo(25, 9);
    expect(perRequestRate(streams, everything, clock)).toBeCloseTo(200, 9);
    expect(perRequestRate([], w, clock)).toBeNull();
  });

  it('counts failed requests among the requests in flight during the window', () => {
    const w = { startMs: 10_000, endMs: 40_000 };
    const streams = [
      stream({ first: 0, tbtMs: 20, tokens: 100, endedAt: 5_000, outcome: 'done' }), // ended before the window
      stream({ first: 0, tbtMs: 20, tokens: 100, endedAt: 12_000, outcome: 'error', error: 'HTTP 500 first' }),
      stream({ first: 12_000, tbtMs: 20, tokens: 100, endedAt: 20_000, outcome: 'error', error: 'HTTP 500 second' }),
      stream({ first: 20_000, tbtMs: 20, tokens: 100 }),
      stream({ first: 41_000, tbtMs: 20, tokens: 1, sentAt: 40_500 }), // sent after the window
    ];
    expect(failureCount(streams, w)).toEqual({ windowRequests: 3, failed: 2, firstError: 'HTTP 500 first' });
  });

  it('a gap over 20× the median time between tokens (at least 2 s, and 1 s of wall time) inside the window is a stall; a longer one is a failure, not a stall', () => {
    const w = { startMs: 0, endMs: 30_000 };
    const steady = stream({ first: 0, tbtMs: 10, tokens: 2900 });
    const gap = stream({ first: 0, tbtMs: 10, tokens: 2000, longestGapMs: 4_500, longestGapEndedAt: 26_000 });
    expect(stallInWindow([steady, gap], w, 0.01, 30, clock)).toEqual({
      gapSeconds: 4.5,
      endedAtSeconds: 26,
      thresholdSeconds: 2,
    });
    expect(stallInWindow([steady], w, 0.01, 30, clock)).toBeNull();
    expect(stallInWindow([steady, gap], w, 0.01, 4, clock)).toBeNull();
    // Still silent when the window closed (late in the window).
    const open = stream({ first: 0, tbtMs: 10, tokens: 2600, gapAtCloseMs: 3_200 });
    expect(stallInWindow([steady, open], w, 0.01, 30, clock)).toEqual({
      gapSeconds: 3.2,
      endedAtSeconds: 30,
      thresholdSeconds: 2,
    });
    // 20× the median decides when it is above 2 s.
    expect(stallInWindow([gap], w, 0.3, 30, clock)).toBeNull();
    // Against a simulator at speed 20, 4.5 s of server time is 225 ms of wall time: machine noise, not a stall.
    const fast = new ServerClock(20);
    const blip = stream({ first: 0, tbtMs: 0.5, tokens: 2000, longestGapMs: 225, longestGapEndedAt: 1_300 });
    expect(stallInWindow([blip], { startMs: 0, endMs: 1_500 }, 0.01, 30, fast)).toBeNull();
  });
});

describe('figures at their edges', () => {
  const w = { startMs: 10_000, endMs: 40_000 };

  it('a request is in the window when sent by its end and not ended before its start (edges included)', () => {
    const at = (p: Partial<StreamTimes>) => stream({ first: 0, tbtMs: 10, tokens: 10, ...p });
    const streams = [
      at({ sentAt: 40_000 }), // sent as the window closes: in
      at({ sentAt: 40_001 }), // after: out
      at({ sentAt: 0, endedAt: 10_000, outcome: 'done' }), // ended as it opens: in
      at({ sentAt: 0, endedAt: 9_999, outcome: 'done' }), // before: out
      at({ sentAt: 0, endedAt: -1 }), // still running: in
      at({ sentAt: 0, endedAt: 0, outcome: 'done' }), // ended at the epoch's start, long before: out
    ];
    expect(inWindow(streams, w).map((s) => streams.indexOf(s))).toEqual([0, 2, 4]);
  });

  it('counts window tokens from the count at open to the count at close, or to now for a running stream', () => {
    const s = (tokens: number, tokensAtOpen: number, tokensAtClose: number) =>
      stream({ first: 0, tbtMs: 10, tokens, tokensAtOpen, tokensAtClose });
    expect(windowTokens([s(500, 100, 400)])).toBe(300);
    expect(windowTokens([s(500, 100, -1)])).toBe(400);
    expect(windowTokens([s(50, 100, 80)])).toBe(0);
    expect(windowTokens([s(500, 100, 400), s(500, 0, -1)])).toBe(800);
    expect(windowTokens([s(500, 0, 0)])).toBe(0); // closed before its first token
  });

  it('counts requests completed inside the window, edges included, and only completed ones', () => {
    const ended = (endedAt: number, outcome: StreamTimes['outcome'] = 'done') =>
      stream({ first: 0, tbtMs: 10, tokens: 10, endedAt, outcome });
    const streams = [
      ended(10_000),
      ended(25_000),
      ended(40_000),
      ended(9_999),
      ended(40_001),
      ended(20_000, 'error'),
      ended(-1, 'running'),
    ];
    expect(completedInWindow(streams, w)).toBe(3);
  });

  it("times to first token in server seconds, leaving out requests that have none; a request's own gap needs two tokens", () => {
    const fast = new ServerClock(10);
    const streams = [
      stream({ first: 1_000, tbtMs: 10, tokens: 3, sentAt: 0 }),
      stream({ first: 3_000, tbtMs: 10, tokens: 3, sentAt: 1_000 }),
      stream({ first: -1, tbtMs: 10, tokens: 0, sentAt: 0, lastTokenAt: -1 }),
    ];
    expect(timeToFirstToken(streams, clock)).toMatchObject({ p50: 1.5, mean: 1.5 });
    expect(timeToFirstToken(streams, fast)).toMatchObject({ p50: 15, mean: 15 });
    expect(timeToFirstToken([streams[2]], clock)).toBeNull();
    expect(ownTimeBetweenTokens(stream({ first: 0, tbtMs: 20, tokens: 11 }), clock)).toBeCloseTo(0.02, 12);
    expect(ownTimeBetweenTokens(stream({ first: 0, tbtMs: 20, tokens: 11 }), fast)).toBeCloseTo(0.2, 12);
    expect(ownTimeBetweenTokens(stream({ first: 0, tbtMs: 20, tokens: 1 }), clock)).toBeNull();
    expect(ownTimeBetweenTokens(stream({ first: 0, tbtMs: 20, tokens: 2 }), clock)).toBeCloseTo(0.02, 12);
    // Requests without a gap of their own are left out of the time between tokens and the rate.
    const mixed = [stream({ first: 0, tbtMs: 20, tokens: 2 }), stream({ first: 0, tbtMs: 20, tokens: 1 })];
    expect(timeBetweenTokens(mixed, clock)).toMatchObject({ p50: 0.02, mean: 0.02 });
    expect(perRequestRate(mixed, everything, clock)).toBeCloseTo(50, 9);
    // A first token at the clock's zero still counts.
    expect(timeToFirstToken([stream({ first: 0, tbtMs: 10, tokens: 3 })], clock)?.p50).toBeCloseTo(0.05, 12);
    expect(ownTimeBetweenTokens(stream({ first: 500, tbtMs: 0, tokens: 5 }), clock)).toBeNull();
    expect(timeBetweenTokens([stream({ first: 0, tbtMs: 20, tokens: 1 })], clock)).toBeNull();
  });

  it('names the first failure by when it ended, and none when nothing failed', () => {
    const failed = (endedAt: number, error: string) =>
      stream({ first: 0, tbtMs: 10, tokens: 5, endedAt, outcome: 'error', error });
    expect(failureCount([failed(30_000, 'late'), failed(20_000, 'early')], w)).toEqual({
      windowRequests: 2,
      failed: 2,
      firstError: 'early',
    });
    expect(failureCount([stream({ first: 0, tbtMs: 10, tokens: 5 })], w)).toEqual({
      windowRequests: 1,
      failed: 0,
      firstError: null,
    });
  });

  it('a stall is a gap strictly over the threshold and under the stall limit, at least 1 s of wall time, ended in the window', () => {
    const win = { startMs: 0, endMs: 30_000 };
    const gap = (ms: number, endedAt = 20_000) =>
      stream({ first: 0, tbtMs: 10, tokens: 100, longestGapMs: ms, longestGapEndedAt: endedAt });
    expect(stallInWindow([gap(2_000)], win, 0.01, 30, clock)).toBeNull(); // exactly 2 s: not over
    expect(stallInWindow([gap(2_001)], win, 0.01, 30, clock)?.gapSeconds).toBeCloseTo(2.001, 9);
    expect(stallInWindow([gap(30_000)], win, 0.01, 30, clock)).toBeNull(); // the stall limit: a failure
    expect(stallInWindow([gap(29_999)], win, 0.01, 30, clock)?.gapSeconds).toBeCloseTo(29.999, 9);
    expect(stallInWindow([gap(5_000, 30_001)], win, 0.01, 30, clock)).toBeNull(); // ended after the window
    expect(stallInWindow([gap(5_000, -1)], win, 0.01, 30, clock)).toBeNull();
    expect(stallInWindow([gap(5_000)], win, null, 30, clock)).toBeNull(); // no median: no threshold
    // The worst of several, with the threshold it beat.
    expect(stallInWindow([gap(3_000), gap(6_000, 25_000), gap(4_000)], win, 0.2, 30, clock)).toEqual({
      gapSeconds: 6,
      endedAtSeconds: 25,
      thresholdSeconds: 4,
    });
    expect(stallInWindow([gap(5_000), gap(7_000, 22_000), gap(6_000)], win, 0.01, 30, clock)).toMatchObject({
      gapSeconds: 7,
      endedAtSeconds: 22,
    });
    // Gaps that ended exactly as the window opened or closed are inside it.
    expect(stallInWindow([gap(5_000, 0)], win, 0.01, 30, clock)?.endedAtSeconds).toBe(0);
    expect(stallInWindow([gap(5_000, 30_000)], win, 0.01, 30, clock)?.endedAtSeconds).toBe(30);
    // Exactly 1 s of wall time counts at a fast clock (20 s of server time at speed 20).
    const fast = new ServerClock(20);
    expect(stallInWindow([gap(1_000)], win, 0.01, 30, fast)?.gapSeconds).toBeCloseTo(20, 9);
    expect(stallInWindow([gap(999)], win, 0.01, 30, fast)).toBeNull();
  });
});

describe('a ramp at its deadline: wait on, or fail the cell because no wait can end it', () => {
  it('fails when streams never had a token and the server does not even hold all C requests', () => {
    expect(rampStuckReason(640, 1024, { running: 640, waiting: 0 }, 120)).toBe(
      'only 640 of 1024 streams had a token after the 120 s readiness deadline, and the server held 640 of the 1024 requests (640 running, 0 waiting): the others never reached it, so the ramp could not end',
    );
    expect(rampStuckReason(15, 16, { running: 15, waiting: 1 }, 60)).toBeNull();
    expect(rampStuckReason(15, 16, { running: 14, waiting: 0 }, 60)).toMatch(/held 14 of the 16 requests/);
  });

  it('waits on (measures anyway, flagged) when the server queues them, all started, or nothing tells', () => {
    expect(rampStuckReason(10, 16, { running: 10, waiting: 6 }, 60)).toBeNull();
    expect(rampStuckReason(16, 16, { running: 0, waiting: 0 }, 60)).toBeNull();
    expect(rampStuckReason(10, 16, null, 60)).toBeNull();
  });
});
