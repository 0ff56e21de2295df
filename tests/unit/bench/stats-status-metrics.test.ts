import { describe, expect, it } from 'vitest';
import type { QueueEvidence } from '#shared/session/schema';
import { metricValue, queueSample } from '../../../src-main/engine/bench/metrics';
import { latencyStats, percentile } from '../../../src-main/engine/bench/stats';
import { decideStatus, queueEvidence, referenceDifference, tooManyFailed } from '../../../src-main/engine/bench/status';

describe('latency stats', () => {
  it('interpolates percentiles and computes the mean', () => {
    const xs = Array.from({ length: 101 }, (_, i) => i / 100);
    expect(percentile(xs, 0.5)).toBeCloseTo(0.5);
    expect(percentile(xs, 0.99)).toBeCloseTo(0.99);
    expect(latencyStats([0.3, 0.1, 0.2])).toEqual({
      p50: 0.2,
      p90: expect.closeTo(0.28, 9),
      p95: expect.closeTo(0.29, 9),
      p99: expect.closeTo(0.298, 9),
      mean: expect.closeTo(0.2, 9),
      count: 3,
    });
    expect(latencyStats([])).toBeNull();
  });

  it('leaves out values that are not finite and clamps negative noise to zero', () => {
    expect(latencyStats([0.2, Number.NaN, Number.POSITIVE_INFINITY, -0.1])).toMatchObject({ p50: 0.1, count: 2 });
    expect(latencyStats([Number.NaN])).toBeNull();
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('status rules', () => {
  const none = { windowRequests: 40, failed: 0, firstError: null };
  const calm = { scrapes: 10, waitingShare: 0, longestWaitingRun: 0, avgRunning: 16 };
  const base = {
    cancelled: false,
    fatalError: null,
    failures: none,
    looped: false,
    concurrency: 16,
    avgActiveRequests: 16,
    queue: calm,
    readinessTimedOut: false,
    stall: null,
    stepSeconds: null,
  };
  it('Valid when none of the rules fire', () => expect(decideStatus(base)).toEqual({ status: 'valid', reason: null }));
  it('Requests queued: average active < 0.95 C, waiting in two scrapes in a row, or a readiness timeout', () => {
    expect(decideStatus({ ...base, avgActiveRequests: 15.1 }).status).toBe('queued');
    expect(decideStatus({ ...base, avgActiveRequests: 15.2 }).status).toBe('valid');
    expect(decideStatus({ ...base, queue: { ...calm, waitingShare: 0.2, longestWaitingRun: 2 } }).reason).toMatch(
      /waiting in 20% of the once-a-second checks, up to 2 checks in a row/,
    );
    expect(decideStatus({ ...base, readinessTimedOut: true }).reason).toMatch(/readiness/);
  });
  it('a client that kept fewer than C in flight is a client shortfall, said as such and never Requests queued', () => {
    const client = { ...calm, avgRunning: 14.2, clientInFlight: 14.4, clientTurnaroundSeconds: 0.042 };
    const v = decideStatus({ ...base, avgActiveRequests: 14.2, queue: client });
    expect(v.status).toBe('valid');
    expect(v.reason).toBe(
      "client shortfall: the client kept 14.4 of 16 requests in flight on average, 42 ms from a finished request to the next on average; the server ran what it was given, with nothing waiting, so the figure is the server's at about 14 at once",
    );
    expect(decideStatus({ ...base, queue: { ...client, clientTurnaroundSeconds: 0 } }).reason).toBe(
      "client shortfall: the client kept 14.4 of 16 requests in flight on average; the server ran what it was given, with nothing waiting, so the figure is the server's at about 14 at once",
    );
    // A client at 95% of C kept C in flight: the server is judged against all 16.
    expect(decideStatus({ ...base, avgActiveRequests: 14.5, queue: { ...calm, clientInFlight: 15.2 } })).toEqual({
      status: 'queued',
      reason: 'average active requests 14.5 is below 95% of 16',
    });
    expect(decideStatus({ ...base, queue: { ...calm, clientInFlight: 15.2 } })).toEqual({
      status: 'valid',
      reason: null,
    });
    // Without /metrics or a client count there is nothing to judge: Valid, nothing said.
    expect(decideStatus({ ...base, avgActiveRequests: null, queue: null })).toEqual({ status: 'valid', reason: null });
    // The same server with a client that kept all 16 in flight: nothing to say.
    expect(decideStatus({ ...base, queue: { ...calm, clientInFlight: 15.9 } })).toEqual({
      status: 'valid',
      reason: null,
    });
  });
  it('the server running fewer than the client had in flight is queueing; a server capped below C stays Requests queued', () => {
    const behind = decideStatus({
      ...base,
      avgActiveRequests: 12,
      queue: { ...calm, avgRunning: 12, clientInFlight: 14.5 },
    });
    expect(behind).toEqual({
      status: 'queued',
      reason: 'the server ran 12.0 requests on average of the 14.5 the client had in flight (below 95%)',
    });
    const capped = { ...calm, avgRunning: 4, waitingShare: 1, longestWaitingRun: 10, clientInFlight: 16 };
    expect(decideStatus({ ...base, avgActiveRequests: 4, queue: capped })).toMatchObject({
      status: 'queued',
      reason: expect.stringMatching(/^average active requests 4.0 is below 95% of 16; requests were waiting in 100%/),
    });
  });
  it('a request waiting in single scrapes (request turnover) is not queueing', () => {
    expect(decideStatus({ ...base, queue: { ...calm, waitingShare: 0.3, longestWaitingRun: 1 } }).status).toBe('valid');
  });
  it("waiting seen in scrapes in a row is not queueing when vLLM's queue time says each request was scheduled within a step", () => {
    // Short outputs: a request finishes every few steps, so a scrape often sees its successor waiting.
    const waiting = { ...calm, waitingShare: 0.6, longestWaitingRun: 4, scheduledRequests: 480, preemptions: 0 };
    const step = { ...base, stepSeconds: 0.012 };
    expect(decideStatus({ ...step, queue: { ...waiting, meanQueueSeconds: 0.008 } })).toEqual({
      status: 'valid',
      reason: null,
    });
    expect(decideStatus({ ...step, queue: { ...waiting, meanQueueSeconds: 0.012 } }).status).toBe('valid');
    // Waiting longer than a step on average is queueing.
    expect(decideStatus({ ...step, queue: { ...waiting, meanQueueSeconds: 0.013 } })).toMatchObject({
      status: 'queued',
      reason: expect.stringMatching(
        /^requests were waiting in 60% of the once-a-second checks, up to 4 checks in a row$/,
      ),
    });
    // A preempted request waits again after its first scheduling, which the queue time leaves out.
    expect(decideStatus({ ...step, queue: { ...waiting, meanQueueSeconds: 0.008, preemptions: 3 } }).status).toBe(
      'queued',
    );
    // Without the server's queue time, or without a measured step, the scrapes alone decide.
    expect(decideStatus({ ...step, queue: { ...calm, waitingShare: 0.6, longestWaitingRun: 4 } }).status).toBe(
      'queued',
    );
    expect(decideStatus({ ...base, queue: { ...waiting, meanQueueSeconds: 0.008 } }).status).toBe('queued');
    expect(decideStatus({ ...base, queue: { ...waiting, meanQueueSeconds: 0 } }).status).toBe('queued');
  });
  it("a server capped below C stays Requests queued whatever vLLM's queue time says", () => {
    const capped = { ...calm, avgRunning: 12, waitingShare: 1, longestWaitingRun: 10, clientInFlight: 16 };
    const quick = { ...capped, scheduledRequests: 40, meanQueueSeconds: 0.005, preemptions: 0 };
    expect(decideStatus({ ...base, stepSeconds: 0.012, avgActiveRequests: 12, queue: quick })).toMatchObject({
      status: 'queued',
      reason: 'average active requests 12.0 is below 95% of 16',
    });
  });
  it("a mean running count below C is request turnover when a step's wait per request and the scrapes' sampling explain it", () => {
    // Short outputs: 10 scrapes of one request over 9 s, one of which caught its successor before
    // its first step: 0.9 on average, with a standard error of 0.1 (sqrt(0.1 / 10)).
    const short = { scrapes: 10, waitingShare: 0.1, longestWaitingRun: 1, avgRunning: 0.9, maxRunning: 1 };
    const served = {
      ...short,
      avgRunningStdError: 0.1,
      scrapeSpanSeconds: 9,
      clientInFlight: 0.99,
      scheduledRequests: 6,
      meanQueueSeconds: 0,
      preemptions: 0,
    };
    const one = { ...base, concurrency: 1, avgActiveRequests: 0.9, stepSeconds: 0.007 };
    expect(decideStatus({ ...one, queue: served })).toEqual({
      status: 'valid',
      reason:
        "request turnover: the server ran 0.9 of 1 on average, within what a step's wait per request and the once-a-second sampling explain (up to 0.20 requests short: 0.67 requests/s × one 7.0 ms step, plus twice the scrapes' 0.10 standard error); it scheduled its 6 requests after 0 ms on average, so nothing queued",
    });
    // The same evidence whether or not a scrape happened to see the one request running.
    expect(decideStatus({ ...one, queue: { ...served, maxRunning: 0 } })).toEqual(
      decideStatus({ ...one, queue: served }),
    );
    // Waiting longer than a step, a preemption, no measured step, no queue time (older vLLM), no
    // timed scrapes or no standard error: nothing says it was turnover, so queued.
    // Within the allowance, so the reason has no Little's-law time to give.
    const queued = (queue: object, stepSeconds: number | null = 0.007) =>
      decideStatus({ ...one, stepSeconds, queue: queue as typeof served });
    const below = { status: 'queued', reason: 'average active requests 0.9 is below 95% of 1' };
    expect(queued({ ...served, meanQueueSeconds: 0.008 })).toEqual(below);
    expect(queued({ ...served, meanQueueSeconds: 0.007 }).status).toBe('valid');
    expect(queued({ ...served, preemptions: 1 })).toEqual(below);
    expect(queued(served, null)).toEqual(below);
    expect(queued(short)).toEqual(below);
    expect(queued({ ...served, scheduledRequests: undefined })).toEqual(below);
    expect(queued({ ...served, scrapeSpanSeconds: undefined })).toEqual(below);
    expect(queued({ ...served, avgRunningStdError: undefined })).toEqual(below);
    expect(decideStatus({ ...one, queue: null })).toEqual(below);
  });
  // 64 requests scheduled in 8 s (8 a second), a 62.5 ms step: turnover costs 0.5 of a request; a
  // standard error of 0.25 adds 0.5 more. Exact in binary, so the boundary is exact.
  const sampled = {
    ...calm,
    avgRunning: 15,
    avgRunningStdError: 0.25,
    maxRunning: 16,
    scrapeSpanSeconds: 8,
    scheduledRequests: 64,
    meanQueueSeconds: 0.03125,
    preemptions: 0,
  };
  const at = (avgRunning: number, queue: Partial<typeof sampled> = {}) =>
    decideStatus({
      ...base,
      avgActiveRequests: avgRunning,
      stepSeconds: 0.0625,
      queue: { ...sampled, avgRunning, ...queue },
    });
  it('a shortfall up to the rate times one step plus twice the standard error is turnover; beyond it, queued', () => {
    expect(at(15).status).toBe('valid');
    expect(at(15).reason).toMatch(
      /^request turnover: the server ran 15\.0 of 16 on average, .*\(up to 1\.00 requests short: 8\.0 requests\/s × one 62\.5 ms step, plus twice the scrapes' 0\.25 standard error\)/,
    );
    expect(at(15 - 1 / 32)).toEqual({
      status: 'queued',
      reason:
        "average active requests 15.0 is below 95% of 16: each request spent about 129 ms at the server before it ran (Little's law: 1.0 requests short at 8.0 requests/s), more than one 62.5 ms step",
    });
    // Exactly at the allowance but waiting longer than a step by the queue time: queued, with no
    // Little's-law time to give (the shortfall is within a step's).
    expect(at(15, { meanQueueSeconds: 0.07 })).toEqual({
      status: 'queued',
      reason: 'average active requests 15.0 is below 95% of 16',
    });
    // At 95% or more nothing is said, however the rest reads.
    expect(at(15.2)).toEqual({ status: 'valid', reason: null });
    // Twice the standard error, not once: within 2 but beyond 1 is still sampling.
    expect(at(15, { avgRunningStdError: 0.125 }).status).toBe('queued');
    expect(at(15.25, { avgRunningStdError: 0.125 }).status).toBe('valid');
    // The rate counts: half the requests in the same span explain half as much.
    expect(at(15, { scheduledRequests: 32 }).status).toBe('queued');
    expect(at(15.25, { scheduledRequests: 32 }).status).toBe('valid');
  });
  it('whether one scrape saw all C running at once decides nothing', () => {
    for (const avg of [15, 15 - 1 / 32]) {
      const seen = at(avg, { maxRunning: 16 });
      expect(at(avg, { maxRunning: 15 })).toEqual(seen);
      expect(at(avg, { maxRunning: undefined })).toEqual(seen);
    }
    expect(at(15, { maxRunning: 15 }).status).toBe('valid');
  });
  it('a frontend that holds each request longer than a step before the engine runs it is Requests queued, whatever a scrape saw', () => {
    // 64K x 16, 128-token outputs: each replacement spends about 350 ms tokenising its prompt,
    // outside the running count and the queue time. 4 requests a second, a 31 ms step.
    const frontend = {
      ...calm,
      avgRunning: 14.6,
      avgRunningStdError: 0.1,
      maxRunning: 16,
      scrapeSpanSeconds: 29,
      scheduledRequests: 116,
      meanQueueSeconds: 0.01,
      preemptions: 0,
    };
    for (const maxRunning of [16, 15])
      expect(
        decideStatus({
          ...base,
          avgActiveRequests: 14.6,
          stepSeconds: 0.031,
          queue: { ...frontend, maxRunning },
        }),
      ).toEqual({
        status: 'queued',
        reason:
          "average active requests 14.6 is below 95% of 16: each request spent about 350 ms at the server before it ran (Little's law: 1.4 requests short at 4.0 requests/s), more than one 31.0 ms step",
      });
  });
  it('a server capped below C stays Requests queued however quick its queue time, and the client shortfall is said first', () => {
    // Every scrape read 12 of 16: no sampling error, and the shortfall is 4 requests, not a step's wait.
    const capped = { ...sampled, avgRunning: 12, avgRunningStdError: 0, maxRunning: 12, meanQueueSeconds: 0 };
    expect(decideStatus({ ...base, avgActiveRequests: 12, stepSeconds: 0.0625, queue: capped })).toEqual({
      status: 'queued',
      reason:
        "average active requests 12.0 is below 95% of 16: each request spent about 500 ms at the server before it ran (Little's law: 4.0 requests short at 8.0 requests/s), more than one 62.5 ms step",
    });
    // Without a measured step there is no Little's-law time to give.
    expect(decideStatus({ ...base, avgActiveRequests: 12, queue: capped })).toEqual({
      status: 'queued',
      reason: 'average active requests 12.0 is below 95% of 16',
    });
    // The client kept 13 of 16 in flight, the server ran 12.9 of them.
    const client = { ...sampled, avgRunning: 12.9, maxRunning: 13, clientInFlight: 13 };
    expect(decideStatus({ ...base, avgActiveRequests: 12.9, stepSeconds: 0.0625, queue: client }).reason).toMatch(
      /^client shortfall: the client kept 13\.0 of 16/,
    );
    expect(
      decideStatus({
        ...base,
        avgActiveRequests: 12,
        stepSeconds: 0.0625,
        queue: { ...client, avgRunning: 12, avgRunningStdError: 0 },
      }),
    ).toMatchObject({
      status: 'queued',
      reason: expect.stringMatching(
        /^the server ran 12\.0 requests on average of the 13\.0 the client had in flight \(below 95%\): each request spent about 125 ms/,
      ),
    });
  });
  it('failed requests keep the figure up to 10% of the window, Error above', () => {
    expect(decideStatus({ ...base, failures: { windowRequests: 40, failed: 4, firstError: 'HTTP 500' } }).status).toBe(
      'valid',
    );
    const over = decideStatus({ ...base, failures: { windowRequests: 40, failed: 5, firstError: 'HTTP 500: boom' } });
    expect(over).toEqual({
      status: 'error',
      reason: '5 of 40 requests in the window failed (more than 10%); the first: HTTP 500: boom',
    });
    expect(tooManyFailed({ windowRequests: 2, failed: 1, firstError: null })).toBe(true);
    expect(tooManyFailed({ windowRequests: 10, failed: 1, firstError: null })).toBe(false);
  });
  it('a stall inside the window makes the figure suspect, unless queueing explains it', () => {
    const stall = { gapSeconds: 4.2, endedAtSeconds: 27, thresholdSeconds: 2 };
    expect(decideStatus({ ...base, stall }).status).toBe('stalled');
    expect(decideStatus({ ...base, stall }).reason).toMatch(/nothing for 4\.2 s/);
    expect(decideStatus({ ...base, stall, avgActiveRequests: 10 }).status).toBe('queued');
  });
  it('Cancelled beats Error beats Looped beats Requests queued', () => {
    expect(decideStatus({ ...base, cancelled: true, fatalError: 'x', looped: true }).status).toBe('cancelled');
    expect(decideStatus({ ...base, fatalError: 'the server went away', looped: true }).status).toBe('error');
    expect(decideStatus({ ...base, looped: true, avgActiveRequests: 3 })).toEqual({
      status: 'looped',
      reason: 'the model kept repeating the same text',
    });
    expect(decideStatus({ ...base, cancelled: true }).reason).toBe('the run was stopped during this cell');
    expect(decideStatus({ ...base, failures: { windowRequests: 10, failed: 2, firstError: null } }).reason).toBe(
      '2 of 10 requests in the window failed (more than 10%); the first: no message',
    );
  });
});

describe('queue evidence from once-a-second scrapes', () => {
  it('counts the share with waiting, the longest run, the mean and the most running', () => {
    const q = (running: number, waiting: number) => ({ running, waiting });
    expect(queueEvidence([q(16, 0), q(15, 1), q(16, 0), q(14, 2), q(14, 2), q(16, 0)])).toEqual({
      scrapes: 6,
      waitingShare: 0.5,
      longestWaitingRun: 2,
      avgRunning: 91 / 6,
      avgRunningStdError: expect.closeTo(Math.sqrt(29 / 180), 9),
      maxRunning: 16,
    });
    expect(queueEvidence([])).toBeNull();
    expect(queueEvidence([q(16, 0)], { inFlight: 15.5, turnaroundSeconds: 0.02 })).toMatchObject({
      clientInFlight: 15.5,
      clientTurnaroundSeconds: 0.02,
    });
  });
  it("gives the mean running count's standard error (sample deviation over the root of the count) from two scrapes up", () => {
    const q = (running: number) => ({ running, waiting: 0 });
    expect(queueEvidence([q(12), q(12), q(12)])!.avgRunningStdError).toBe(0);
    // Deviations of 1 and -1: sample variance 2 / (2 - 1), over 2 scrapes: a standard error of 1.
    expect(queueEvidence([q(15), q(13)])!.avgRunningStdError).toBe(1);
    expect(queueEvidence([q(15)])).not.toHaveProperty('avgRunningStdError');
  });
  it("keeps the span from the first timed scrape to the last, over which the queue time's requests were counted", () => {
    const q = (atSeconds?: number) => ({ running: 16, waiting: 0, ...(atSeconds === undefined ? {} : { atSeconds }) });
    expect(queueEvidence([q(0.4), q(1.4), q(9.5)])!.scrapeSpanSeconds).toBeCloseTo(9.1, 9);
    for (const samples of [[q(3), q(3)], [q(0.4), q()], [q(), q(2)], [q(1)]])
      expect(queueEvidence(samples)).not.toHaveProperty('scrapeSpanSeconds');
  });
  it("adds vLLM's queue time between the first and the last scrape: requests scheduled, their mean wait, preemptions", () => {
    const q = (waiting: number, count: number, sum: number, preemptions = 0) => ({
      running: 16,
      waiting,
      queueTime: { count, sum, preemptions },
    });
    expect(queueEvidence([q(0, 100, 2), q(1, 140, 2.4), q(0, 200, 3)])).toMatchObject({
      scheduledRequests: 100,
      meanQueueSeconds: expect.closeTo(0.01, 9),
      preemptions: 0,
    });
    expect(queueEvidence([q(0, 100, 2, 1), q(0, 150, 4, 6)])).toMatchObject({ scheduledRequests: 50, preemptions: 5 });
    // Nothing scheduled in the window, counters that went back (a restart), or no queue time: no such evidence.
    // Requests scheduled at once: a mean wait of 0.
    expect(queueEvidence([q(0, 100, 2), q(0, 150, 2)])).toMatchObject({ meanQueueSeconds: 0 });
    for (const samples of [
      [q(1, 100, 2), q(1, 100, 2)],
      [q(0, 100, 2), q(0, 10, 0.1)],
      [q(0, 100, 2), q(0, 150, 1)],
      [q(0, 100, 2, 5), q(0, 150, 3, 1)],
      [q(0, 100, 2), { running: 16, waiting: 0 }],
    ])
      expect(queueEvidence(samples)).not.toHaveProperty('meanQueueSeconds');
  });
});

describe('metrics', () => {
  const vllm = [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    'vllm:num_requests_running{engine="0",model_name="fara"} 12.0',
    'vllm:num_requests_running{engine="1",model_name="fara"} 4.0',
    'vllm:num_requests_waiting{engine="0",model_name="fara"} 1.0',
    'vllm:num_requests_waiting{engine="1",model_name="fara"} 0.0',
    'vllm:num_requests_running_total{engine="0"} 99',
    'vllm:generation_tokens_total{engine="0",model_name="fara"} 1.048576e+06',
  ].join('\n');
  it('sums engines, ignores longer names and comments', () => {
    expect(queueSample(vllm, 'vllm')).toEqual({ running: 16, waiting: 1 });
    expect(metricValue(vllm, 'vllm:generation_tokens_total')).toBe(1_048_576);
  });
  it("reads vLLM's queue time histogram and preemption counter, summed over engines", () => {
    // The lines vLLM's Prometheus logger writes (vllm/v1/metrics/loggers.py): a histogram's _sum and
    // _count beside its buckets, a counter with _total.
    const page = [
      vllm,
      '# HELP vllm:request_queue_time_seconds Histogram of time spent in WAITING phase for request.',
      '# TYPE vllm:request_queue_time_seconds histogram',
      'vllm:request_queue_time_seconds_sum{engine="0",model_name="fara"} 1.5',
      'vllm:request_queue_time_seconds_bucket{engine="0",le="0.3",model_name="fara"} 120.0',
      'vllm:request_queue_time_seconds_count{engine="0",model_name="fara"} 120.0',
      'vllm:request_queue_time_seconds_sum{engine="1",model_name="fara"} 0.5',
      'vllm:request_queue_time_seconds_count{engine="1",model_name="fara"} 40.0',
      'vllm:num_preemptions_total{engine="0",model_name="fara"} 2.0',
      'vllm:num_preemptions_total{engine="1",model_name="fara"} 1.0',
    ].join('\n');
    expect(queueSample(page, 'vllm')).toEqual({
      running: 16,
      waiting: 1,
      queueTime: { sum: 2, count: 160, preemptions: 3 },
    });
    // A version without the histogram, or another engine: the running and waiting counts alone.
    expect(queueSample(page, 'sglang')).toBeNull();
    expect(queueSample(vllm, 'unknown')).toEqual({ running: 16, waiting: 1 });
  });
  it('uses rank 0 only under tensor parallelism', () => {
    const tp = 'vllm:num_requests_running{engine="0",rank="0"} 8\nvllm:num_requests_running{engine="0",rank="1"} 8\n';
    expect(metricValue(tp, 'vllm:num_requests_running')).toBe(8);
  });
  it('reads SGLang, llama.cpp and TGI names, and finds the engine when it is unknown', () => {
    expect(queueSample('sglang:num_running_reqs{name="m"} 3\nsglang:num_queue_reqs{name="m"} 2\n', 'sglang')).toEqual({
      running: 3,
      waiting: 2,
    });
    expect(queueSample('llamacpp:requests_processing 2\nllamacpp:requests_deferred 0\n', 'unknown')).toEqual({
      running: 2,
      waiting: 0,
    });
    expect(queueSample('tgi_batch_current_size 5\ntgi_queue_size 1\n', 'tgi')).toEqual({ running: 5, waiting: 1 });
    expect(queueSample('something_else 1\n', 'unknown')).toBeNull();
  });
});

describe("the reference tool's verdict, kept where this one differs", () => {
  const none = { windowRequests: 100, failed: 0, firstError: null };
  // 64 requests scheduled in 8 s, a 62.5 ms step and a 0.25 standard error: up to 1.0 request short is turnover.
  const queue: QueueEvidence = {
    scrapes: 10,
    waitingShare: 0,
    longestWaitingRun: 0,
    avgRunning: 15,
    avgRunningStdError: 0.25,
    maxRunning: 16,
    scrapeSpanSeconds: 8,
    scheduledRequests: 64,
    meanQueueSeconds: 0.03125,
    preemptions: 0,
  };
  const evidence = { concurrency: 16, avgActiveRequests: 15, queue, readinessTimedOut: false, stepSeconds: 0.0625 };
  const judged = (e: typeof evidence) => {
    const verdict = decideStatus({
      ...e,
      cancelled: false,
      fatalError: null,
      failures: none,
      looped: false,
      stall: null,
    });
    return { verdict, reference: referenceDifference(e, verdict) };
  };

  it("turnover by Little's law below 95% of C: Valid here, Requests queued by the reference's rule, both kept", () => {
    const { verdict, reference } = judged(evidence);
    expect(verdict.status).toBe('valid');
    expect(reference).toEqual({
      status: 'queued',
      says: 'average active requests 15.0 is below 95% of 16',
      differs:
        "by Little's law the shortfall is request turnover: each request waited no longer than the step under way, within the scrapes' sampling",
    });
  });

  it('a client that kept fewer in flight, and waiting a queue time calls turnover, are said as such', () => {
    const client = judged({
      ...evidence,
      avgActiveRequests: 14,
      queue: { ...queue, avgRunning: 14, clientInFlight: 14.2 },
    });
    expect(client.verdict.status).toBe('valid');
    expect(client.reference?.differs).toBe(
      'the client, not the server, kept fewer requests in flight, and a status describes the server',
    );
    const waited = judged({
      ...evidence,
      avgActiveRequests: 16,
      queue: { ...queue, avgRunning: 16, waitingShare: 0.4, longestWaitingRun: 3 },
    });
    expect(waited.verdict.status).toBe('valid');
    expect(waited.reference).toMatchObject({
      says: 'requests were waiting in 3 scrapes in a row',
      differs: expect.stringMatching(
        /^the server's own queue time says each request seen waiting was scheduled within one step/,
      ),
    });
  });

  it('nothing is kept where both agree: all running, or queued by both', () => {
    expect(judged({ ...evidence, avgActiveRequests: 16, queue: { ...queue, avgRunning: 16 } }).reference).toBeNull();
    const beyond = judged({ ...evidence, avgActiveRequests: 14, queue: { ...queue, avgRunning: 14 } });
    expect(beyond.verdict.status).toBe('queued');
    expect(beyond.reference).toBeNull();
    expect(judged({ ...evidence, avgActiveRequests: 16, readinessTimedOut: true }).reference).toBeNull();
  });
});
