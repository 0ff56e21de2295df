/** A prefill scout's deadline scales with the prefill speed measured at smaller contexts, within a floor and a cap. */
import { describe, expect, it } from 'vitest';
import { planRun } from '../../../src-main/engine/bench/plan';
import { runConfigFrom } from '../../../src-main/workflows/inputs/run-input';
import {
  DEFAULT_SCOUT_DEADLINE,
  expectedPrefillSeconds,
  scoutDeadline,
  type PrefillPoint,
} from '../../../src-main/engine/bench/scout-deadline';
import { predict } from '../../../src-main/engine/sim/model';
import { BUILTIN_PROFILES } from '../../../src-main/engine/sim/profile';

const K = 1024;
/** What a run measures on a simulated card: the cold TTFT of a lone prompt of each size. */
const measuredOn = (profile: string, contexts: number[]): PrefillPoint[] =>
  contexts.map((tokens) => ({ tokens, seconds: predict(BUILTIN_PROFILES[profile], tokens, 1).ttftSeconds }));

describe('scoutDeadline', () => {
  it('a 12 GB card: the 256K scout is expected to take many minutes, and the deadline leaves room for it', () => {
    const points = measuredOn('consumer-12gb-4b-int4', [2 * K, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K]);
    const truth = predict(BUILTIN_PROFILES['consumer-12gb-4b-int4'], 256 * K, 1).ttftSeconds;
    expect(truth).toBeGreaterThan(360); // the old fixed deadline gave up on it
    const { expectedSeconds, deadlineSeconds } = scoutDeadline(256 * K, points);
    expect(Math.abs(expectedSeconds! - truth) / truth).toBeLessThan(0.15);
    expect(deadlineSeconds).toBeCloseTo(2 * expectedSeconds!, 6);
    expect(deadlineSeconds).toBeGreaterThan(truth * 1.5);
  });

  it('extrapolates from the two largest smaller prefills only: a 64K scout from 16K and 32K', () => {
    const points = measuredOn('consumer-12gb-4b-int4', [16 * K, 32 * K, 128 * K]);
    const truth = predict(BUILTIN_PROFILES['consumer-12gb-4b-int4'], 64 * K, 1).ttftSeconds;
    expect(Math.abs(expectedPrefillSeconds(64 * K, points)! - truth) / truth).toBeLessThan(0.25);
  });

  it('fits through well-separated prompts: a warm-up and a scout of almost one size do not swing the estimate', () => {
    // What a run on the 12 GB card had measured before its 256K prefill: each decode cell's cold scout, and the
    // warm-up at the largest context, 69 tokens from that cell's scout (prompt tokens, server seconds).
    const points: PrefillPoint[] = [
      { tokens: 8160, seconds: 3.477 },
      { tokens: 16346, seconds: 7.853 },
      { tokens: 32683, seconds: 19.225 },
      { tokens: 65370, seconds: 59.339 },
      { tokens: 130744, seconds: 217.467 },
      { tokens: 257338, seconds: 767.021 },
      { tokens: 257407, seconds: 767.482 },
    ];
    const truth = predict(BUILTIN_PROFILES['consumer-12gb-4b-int4'], 261481, 1).ttftSeconds;
    expect(Math.abs(expectedPrefillSeconds(256 * K, points)! - truth) / truth).toBeLessThan(0.05);
  });

  it('a fast card keeps the floor; a card slower than the cap allows stops at the cap', () => {
    const fast = measuredOn('rtx-pro-6000-fara-4b-bf16', [8 * K, 16 * K, 128 * K]);
    expect(scoutDeadline(256 * K, fast).deadlineSeconds).toBe(DEFAULT_SCOUT_DEADLINE.floorSeconds);
    const glacial: PrefillPoint[] = [
      { tokens: 8 * K, seconds: 100 },
      { tokens: 16 * K, seconds: 400 },
    ];
    expect(scoutDeadline(256 * K, glacial).deadlineSeconds).toBe(DEFAULT_SCOUT_DEADLINE.capSeconds);
  });

  it('the user’s floor and cap are honoured', () => {
    const points = measuredOn('consumer-12gb-4b-int4', [64 * K, 128 * K]);
    expect(scoutDeadline(256 * K, points, { floorSeconds: 60, capSeconds: 900 }).deadlineSeconds).toBe(900);
    expect(
      scoutDeadline(8 * K, measuredOn('consumer-12gb-4b-int4', [2 * K]), { floorSeconds: 600, capSeconds: 3600 })
        .deadlineSeconds,
    ).toBe(600);
    // A floor above the cap wins: the user asked for at least that long.
    expect(scoutDeadline(256 * K, points, { floorSeconds: 1200, capSeconds: 900 }).deadlineSeconds).toBe(1200);
  });

  it('with one smaller prefill the time is taken to grow with the square of the context (never too short)', () => {
    const points = measuredOn('consumer-12gb-4b-int4', [16 * K]);
    const truth = predict(BUILTIN_PROFILES['consumer-12gb-4b-int4'], 64 * K, 1).ttftSeconds;
    expect(expectedPrefillSeconds(64 * K, points)!).toBeGreaterThan(truth);
  });

  it('with nothing measured below it, the deadline is the cap and nothing is expected', () => {
    expect(scoutDeadline(8 * K, [])).toEqual({
      expectedSeconds: null,
      deadlineSeconds: DEFAULT_SCOUT_DEADLINE.capSeconds,
    });
    expect(scoutDeadline(8 * K, measuredOn('consumer-12gb-4b-int4', [16 * K]))).toEqual({
      expectedSeconds: null,
      deadlineSeconds: DEFAULT_SCOUT_DEADLINE.capSeconds,
    });
  });
});

describe('the plan', () => {
  const target = {
    maxModelLen: 262144,
    kvBudget: { tokens: 653_600, source: 'user' as const, detail: null, maxConcurrency: null, tokensPerRequest: null },
  };
  it('takes the scout deadline limits from the run config, with defaults', () => {
    expect(planRun({}, target).config.scoutDeadline).toEqual(DEFAULT_SCOUT_DEADLINE);
    expect(planRun({ scoutDeadline: { capSeconds: 7200 } }, target).config.scoutDeadline).toEqual({
      floorSeconds: 120,
      capSeconds: 7200,
    });
  });
  it('the CLI sets the floor and the cap; a bad value is a usage error naming the flag', () => {
    expect(runConfigFrom({ scoutDeadlineFloor: '60', scoutDeadlineCap: '7200' }).scoutDeadline).toEqual({
      floorSeconds: 60,
      capSeconds: 7200,
    });
    expect(() => runConfigFrom({ scoutDeadlineCap: 'soon' })).toThrow(/--scout-deadline-cap must be a positive number/);
  });
  it('shows each scout’s expected time, longer for longer prompts', () => {
    const plan = planRun(
      { contexts: [8 * K, 64 * K], concurrency: [1], prefillContexts: [8 * K, 64 * K, 256 * K] },
      target,
    );
    const byContext = new Map(plan.prefill.map((p) => [p.context, p.expectedSeconds]));
    expect(byContext.get(8 * K)).toBeGreaterThan(0);
    expect(byContext.get(256 * K)).toBeGreaterThan(byContext.get(64 * K)!);
  });
});
