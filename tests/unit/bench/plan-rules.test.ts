/**
 * The plan's rules one at a time (docs/method.md): the defaults a run gets, what a resume still runs,
 * where a simulator's clock speed comes from, which running limit counts, and what the ETA adds up.
 */
import { describe, expect, it } from 'vitest';
import {
  K,
  estimateSeconds,
  nothingToRun,
  pendingSteps,
  planRun,
  plannedMaxModelLen,
  progressUnit,
  queuedCellSeconds,
  resolveConfig,
  runningCap,
  simSpeedFromTarget,
  type PlanTarget,
} from '../../../src-main/engine/bench/plan';
import { expectedPrefillSeconds } from '../../../src-main/engine/bench/scout-deadline';
import { READINESS_STEADY_SECONDS, readinessTimeoutSeconds } from '../../../src-main/engine/bench/readiness';
import type { PlanStep } from '../../../src-main/engine/bench/types';

const unknownBudget = { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null };
const server = (maxModelLen: number | null, extra: Partial<PlanTarget> = {}): PlanTarget => ({
  maxModelLen,
  kvBudget: { ...unknownBudget, source: 'unknown' },
  ...extra,
});
const launch = (argv: string[], display = argv.join(' ')) => ({
  kind: 'simulator' as const,
  url: null,
  argv,
  env: {},
  display,
  model: null,
  servedModel: null,
  revision: null,
  maxModelLen: null,
});

const W: PlanStep = { kind: 'warmup' };
const P = (context: number, measured: boolean): PlanStep => ({ kind: 'prefill', context, measured });
const D = (context: number, concurrency: number, repetition = 1): PlanStep => ({
  kind: 'decode',
  context,
  concurrency,
  repetition,
});

describe('the run config a plan resolves', () => {
  it('sorts and de-duplicates the contexts, concurrencies and prefill contexts a person gives, and drops a 0 prefill', () => {
    const config = resolveConfig(
      { contexts: [16 * K, 0, 8 * K, 16 * K], concurrency: [8, 1, 8, 2], prefillContexts: [32 * K, 0, 8 * K, 8 * K] },
      server(null),
    );
    expect(config.contexts).toEqual([0, 8 * K, 16 * K]);
    expect(config.concurrency).toEqual([1, 2, 8]);
    expect(config.prefillContexts).toEqual([8 * K, 32 * K]);
  });

  it('defaults the contexts up to the largest that fits, and adds that largest one', () => {
    // 16K max_model_len, 4,096 output: the largest useful context is 16,384 - 4,096 - 64 = 12,224.
    expect(resolveConfig({}, server(16 * K)).contexts).toEqual([0, 8 * K, 12_224]);
    // A largest context that is one of the defaults is not listed twice.
    expect(resolveConfig({ maxOutputTokens: 8 * K - 64 }, server(16 * K)).contexts).toEqual([0, 8 * K]);
    // Nothing fits: no context at all, not a negative one.
    expect(resolveConfig({}, server(4096)).contexts).toEqual([]);
    // max_model_len unknown: every default.
    expect(resolveConfig({}, server(null)).contexts).toEqual([0, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K]);
  });

  it('adds 256 and 512 requests at once to the default matrix only where the KV budget holds them and no cap is below', () => {
    const budget = (tokens: number) => ({ ...unknownBudget, tokens, source: 'user' as const });
    const levels = (tokens: number | null, extra: Partial<PlanTarget> = {}, input = {}) =>
      resolveConfig(input, {
        ...server(null),
        kvBudget: tokens === null ? server(null).kvBudget : budget(tokens),
        ...extra,
      }).concurrency;
    const base = [1, 2, 4, 8, 16, 32, 64, 128];
    // The smallest default context with a prompt is 8K: C x (8K + 4,096 output) tokens.
    expect(levels(256 * 12 * K - 1)).toEqual(base);
    expect(levels(256 * 12 * K)).toEqual([...base, 256]);
    expect(levels(512 * 12 * K - 1)).toEqual([...base, 256]);
    expect(levels(512 * 12 * K)).toEqual([...base, 256, 512]);
    // Only the 0 row asked for: from it.
    expect(levels(256 * 4096, {}, { contexts: [0] })).toEqual([...base, 256]);
    expect(levels(256 * 4096 - 1, {}, { contexts: [0] })).toEqual(base);
    expect(levels(null)).toEqual(base);
    // From the smallest context asked for, with the run's own output.
    expect(levels(512 * (8 * K + 1024), {}, { contexts: [32 * K, 8 * K], maxOutputTokens: 1024 })).toEqual([
      ...base,
      256,
      512,
    ]);
    expect(levels(512 * (8 * K + 1024) - 1, {}, { contexts: [32 * K, 8 * K], maxOutputTokens: 1024 })).toEqual([
      ...base,
      256,
    ]);
    // A running cap below a level would only queue it.
    expect(levels(1e9, { maxRunningRequests: 256 })).toEqual([...base, 256]);
    expect(levels(1e9, { maxRunningRequests: 255 })).toEqual(base);
    // Levels given are run as given.
    expect(levels(1e9, {}, { concurrency: [4, 2] })).toEqual([2, 4]);
  });

  it('adds the 256K prefill to the default matrix only when the server takes 256K', () => {
    expect(resolveConfig({}, server(256 * K)).prefillContexts).toContain(256 * K);
    expect(resolveConfig({}, server(256 * K - 1)).prefillContexts).not.toContain(256 * K);
    expect(resolveConfig({}, server(null)).prefillContexts).toEqual([8 * K, 16 * K, 32 * K, 64 * K, 128 * K]);
    // Contexts the person picked: prefill where decode is, nothing added.
    expect(resolveConfig({ contexts: [8 * K] }, server(512 * K)).prefillContexts).toEqual([8 * K]);
  });

  it('fills the defaults a run is documented with, and keeps what the person gave', () => {
    const defaults = resolveConfig({}, server(null));
    expect(defaults).toMatchObject({
      warmup: true,
      stallSeconds: 30,
      repeat: 1,
      precision: null,
      minSecondsPerMeasurement: 5,
      simSpeed: 1,
      kvBudget: { source: 'unknown' },
    });
    const given = resolveConfig(
      {
        warmup: false,
        stallSeconds: 12,
        repeat: 3,
        tokenTargeting: 'estimate',
        simSpeed: 4,
        runTag: 'abc123',
        secondsPerMeasurement: 3,
      },
      server(null),
    );
    expect(given).toMatchObject({
      warmup: false,
      stallSeconds: 12,
      repeat: 3,
      tokenTargeting: 'estimate',
      simSpeed: 4,
      runTag: 'abc123',
    });
    // The shortest window is never longer than the window itself.
    expect(given.minSecondsPerMeasurement).toBe(3);
  });

  it('a KV budget the person gives replaces the server’s and says it came from the user', () => {
    const stated = {
      tokens: 500_000,
      source: 'metrics-cache-config' as const,
      detail: 'x',
      maxConcurrency: 3,
      tokensPerRequest: 9,
    };
    expect(resolveConfig({ kvBudgetTokens: 1000 }, server(null, { kvBudget: stated })).kvBudget).toEqual({
      tokens: 1000,
      source: 'user',
      detail: 'given by the user',
      maxConcurrency: null,
      tokensPerRequest: null,
    });
    expect(resolveConfig({}, server(null, { kvBudget: stated })).kvBudget).toEqual(stated);
  });
});

describe("a simulator's clock speed", () => {
  const sim = (argv: string[], simSpeed?: number) =>
    server(null, { simulated: true, launch: launch(argv), ...(simSpeed === undefined ? {} : { simSpeed }) });

  it('is read from --sim-speed X and --sim-speed=X in its command', () => {
    expect(simSpeedFromTarget(sim(['sim', '--sim-speed', '25']))).toBe(25);
    expect(simSpeedFromTarget(sim(['sim', '--sim-speed=2.5']))).toBe(2.5);
  });

  it('skips a value that is not a positive number and falls back to what the simulator reported, else 1', () => {
    expect(simSpeedFromTarget(sim(['sim', '--sim-speed', 'fast'], 7))).toBe(7);
    expect(simSpeedFromTarget(sim(['sim', '--sim-speed=0'], 7))).toBe(7);
    expect(simSpeedFromTarget(sim(['sim', '--sim-speed', '-3']))).toBe(1);
    expect(simSpeedFromTarget(sim(['sim', '--sim-speed']))).toBe(1);
    expect(simSpeedFromTarget(sim(['sim', '--speed', '9']))).toBe(1);
    expect(simSpeedFromTarget(server(null, { simulated: true, simSpeed: 6 }))).toBe(6);
  });

  it('is 1 for a real server, whatever its command says', () => {
    expect(simSpeedFromTarget(server(null, { launch: launch(['vllm', '--sim-speed', '25']), simSpeed: 9 }))).toBe(1);
  });
});

describe('what the server allows, from its own report or its launch', () => {
  const vllm = (argv: string[], display?: string) => server(null, { launch: launch(argv, display) });

  it('the smaller running limit counts, and names its flag; a limit that is not a positive whole number is none', () => {
    expect(runningCap(vllm(['vllm', '--max-num-seqs', '8', '--max-num-batched-tokens', '16']))).toEqual({
      limit: 8,
      what: '--max-num-seqs',
    });
    expect(runningCap(vllm(['vllm', '--max-num-seqs', '8', '--max-num-batched-tokens', '8']))?.what).toBe(
      '--max-num-seqs',
    );
    expect(runningCap(vllm(['vllm', '--max-num-seqs', '0', '--max-num-batched-tokens', '2.5']))).toBeNull();
    expect(runningCap(vllm(['vllm']))).toBeNull();
    expect(runningCap(server(null))).toBeNull();
    expect(
      runningCap(server(null, { maxRunningRequests: 3, launch: launch(['vllm', '--max-num-seqs', '2']) })),
    ).toEqual({
      limit: 3,
      what: "the engine's max_running_requests",
    });
  });

  it('max_model_len from the launch line as shown when the argv was not kept', () => {
    expect(plannedMaxModelLen(vllm([], 'vllm serve m --max-model-len 9000'))).toBe(9000);
    expect(plannedMaxModelLen(vllm([], 'vllm serve m'))).toBeNull();
    expect(plannedMaxModelLen(server(null))).toBeNull();
  });
});

describe('the plan’s cells and steps', () => {
  const budget = (tokens: number) => ({ ...unknownBudget, tokens, source: 'metrics-cache-config' as const });

  it('a cell left out by the person stays Skipped even when it is also too long or over capacity', () => {
    const plan = planRun(
      { contexts: [30_000], concurrency: [1, 64], skip: [{ context: 30_000, concurrency: 1 }], maxOutputTokens: 4096 },
      server(32 * K, { kvBudget: budget(100_000) }),
    );
    expect(plan.cells.map((c) => [c.action, c.reason])).toEqual([
      ['skipped', 'left out by the user'],
      ['too-long', '29K context + 4,096 output tokens exceeds max_model_len 32,768'],
    ]);
    expect(plan.counts).toMatchObject({ cells: 2, toRun: 0, skipped: 1, tooLong: 1, overCapacity: 0 });
  });

  it('only a cell that runs is expected to queue, and the warning comes only when one does', () => {
    const capped = server(64 * K, { kvBudget: budget(40 * K), maxRunningRequests: 2 });
    const plan = planRun({ contexts: [4 * K], concurrency: [1, 4, 16], prefillContexts: [] }, capped);
    expect(plan.cells.map((c) => [c.action, c.expectQueued !== undefined])).toEqual([
      ['run', false],
      ['run', true],
      ['over-capacity', false],
    ]);
    expect(plan.warnings.some((w) => w.includes('at most 2 requests at once'))).toBe(true);
    const under = planRun({ contexts: [4 * K], concurrency: [1, 2], prefillContexts: [] }, capped);
    expect(under.warnings.some((w) => w.includes('requests at once'))).toBe(false);
    expect(under.steps.some((s) => s.kind === 'decode' && s.queued)).toBe(false);
  });

  it('warns once for each limit it does not know, and not for one it knows', () => {
    expect(planRun({ contexts: [0], concurrency: [1] }, server(null)).warnings).toHaveLength(2);
    const known = planRun({ contexts: [0], concurrency: [1] }, server(8 * K, { kvBudget: budget(1e6) }));
    expect(known.warnings).toEqual([]);
  });

  it('a prefill longer than max_model_len is Too long; one exactly at it runs, trimmed to fit', () => {
    const plan = planRun(
      { contexts: [8 * K], concurrency: [1], prefillContexts: [8 * K, 16 * K, 16 * K + 1] },
      server(16 * K),
    );
    expect(plan.prefill.map((p) => [p.context, p.action, p.withDecode])).toEqual([
      [8 * K, 'run', true],
      [16 * K, 'run', false],
      [16 * K + 1, 'too-long', false],
    ]);
    expect(plan.prefill[2]).toMatchObject({ reason: '16K exceeds max_model_len 16,384', expectedSeconds: null });
    expect(plan.prefill[0].expectedSeconds).toBe(expectedPrefillSeconds(8 * K, []));
    expect(plan.counts.prefill).toBe(2);
  });

  it('a row whose first column cannot run gets no scout before it, and the warm-up can be left out', () => {
    const plan = planRun(
      {
        contexts: [0, 8 * K],
        concurrency: [1, 2],
        prefillContexts: [],
        skip: [{ context: 8 * K, concurrency: 1 }],
        warmup: false,
      },
      server(64 * K),
    );
    expect(plan.steps).toEqual([D(0, 1), D(0, 2), P(8 * K, false), D(8 * K, 2)]);
  });

  it('progress counts measurements when a cell is measured more than once, else cells', () => {
    expect(progressUnit(planRun({ contexts: [0], concurrency: [1] }, server(8 * K)))).toBe('cell');
    expect(progressUnit(planRun({ contexts: [0], concurrency: [1], repeat: 2 }, server(8 * K)))).toBe('measurement');
  });

  it('a plan with nothing to measure names each reason, or that none can run', () => {
    const plan = planRun(
      {
        contexts: [8 * K],
        concurrency: [1, 4],
        prefillContexts: [],
        skip: [{ context: 8 * K, concurrency: 1 }],
        kvBudgetTokens: 20_000,
      },
      server(64 * K),
    );
    expect(nothingToRun(plan)).toBe(
      'nothing to measure: of 2 cells, 1 over the KV cache budget, 1 left out, and no prefill context fits. Choose smaller contexts, fewer requests at once or a smaller max output.',
    );
    expect(nothingToRun(planRun({}, server(4096)))).toMatch(/^nothing to measure: of 0 cells, none can run, and/);
  });
});

describe('what a resumed run still does', () => {
  const steps = [
    W,
    P(8 * K, true),
    D(8 * K, 1),
    P(16 * K, false),
    D(16 * K, 1),
    P(8 * K, false),
    D(8 * K, 2),
    D(8 * K, 4),
  ];

  it('the warm-up always, and every decode cell not yet measured', () => {
    expect(pendingSteps(steps, new Set(['8192x1', '16384x1', '8192x2', '8192x4']), new Set([8 * K]))).toEqual([W]);
    expect(pendingSteps(steps, new Set(['8192x1', '16384x1', '8192x4']), new Set([8 * K]))).toEqual([
      W,
      P(8 * K, false),
      D(8 * K, 2),
    ]);
  });

  it('a measured prefill not yet done, even when the decode after it is', () => {
    expect(pendingSteps(steps, new Set(['8192x1', '16384x1', '8192x2', '8192x4']), new Set())).toEqual([
      W,
      P(8 * K, true),
    ]);
  });

  it('a scout only where a pending decode of its context follows it directly', () => {
    // 16K's decode is pending: its scout stays. 8K's first decode is done: its measured prefill, done too, goes,
    // though a later 8K decode is pending (it has its own re-warm scout).
    expect(pendingSteps(steps, new Set(['8192x1', '8192x2']), new Set([8 * K]))).toEqual([
      W,
      P(16 * K, false),
      D(16 * K, 1),
      P(8 * K, false),
      D(8 * K, 4),
    ]);
  });

  it('tells the passes of a repeated cell apart', () => {
    const repeated = [P(8 * K, false), D(8 * K, 1, 1), P(8 * K, false), D(8 * K, 1, 2)];
    expect(pendingSteps(repeated, new Set(['8192x1']), new Set())).toEqual([P(8 * K, false), D(8 * K, 1, 2)]);
    expect(pendingSteps(repeated, new Set(['8192x1#2']), new Set())).toEqual([P(8 * K, false), D(8 * K, 1, 1)]);
  });
});

describe('the ETA, by the method’s phases', () => {
  const config = { secondsPerMeasurement: 30, precision: null, minSecondsPerMeasurement: 5, simSpeed: 1 };
  const eta = (steps: PlanStep[], c = config) => estimateSeconds(steps, c);

  it('a decode cell is its first tokens, the steady readiness gate, the window and the cool-down', () => {
    const cell = eta([D(0, 1)]);
    expect(eta([D(0, 1)], { ...config, secondsPerMeasurement: 10 })).toBeCloseTo(cell - 20, 9);
    expect(cell).toBeGreaterThan(30 + READINESS_STEADY_SECONDS);
    expect(cell).toBeLessThan(30 + READINESS_STEADY_SECONDS + 3);
    expect(eta([D(0, 1), D(0, 2)])).toBeCloseTo(2 * cell, 9);
  });

  it('a queued cell waits out its readiness deadline instead of the gate', () => {
    const queued: PlanStep = { kind: 'decode', context: 64 * K, concurrency: 8, repetition: 1, queued: true };
    // Instead of about 1 s of first tokens and the steady gate (as plan-engine-limits.test.ts: 60 - 4).
    expect(eta([queued]) - eta([D(64 * K, 8)])).toBeCloseTo(
      readinessTimeoutSeconds(64 * K) - 1 - READINESS_STEADY_SECONDS,
      9,
    );
    expect(eta([queued])).toBe(queuedCellSeconds(64 * K, config));
    expect(queuedCellSeconds(128 * K, config) - queuedCellSeconds(8 * K, config)).toBe(
      readinessTimeoutSeconds(128 * K) - readinessTimeoutSeconds(8 * K),
    );
  });

  it('a later scout of a context already scouted costs only its overhead, not the prefill again', () => {
    const prefill = expectedPrefillSeconds(32 * K, []) ?? 0;
    expect(prefill).toBeGreaterThan(0);
    const once = eta([P(32 * K, true)]);
    const overhead = once - prefill;
    expect(overhead).toBeGreaterThan(0);
    expect(eta([P(32 * K, true), P(32 * K, false)])).toBeCloseTo(once + overhead, 9);
    expect(eta([P(32 * K, true), P(64 * K, false)])).toBeCloseTo(
      once + overhead + (expectedPrefillSeconds(64 * K, []) ?? 0),
      9,
    );
  });

  it('the warm-up costs a fixed time, and everything runs simSpeed times faster on a simulator', () => {
    const warm = eta([W]);
    expect(warm).toBeGreaterThan(0);
    expect(eta([W, D(0, 1)])).toBeCloseTo(warm + eta([D(0, 1)]), 9);
    expect(eta([W, D(0, 1), P(8 * K, true)], { ...config, simSpeed: 4 })).toBeCloseTo(
      eta([W, D(0, 1), P(8 * K, true)]) / 4,
      9,
    );
  });
});
