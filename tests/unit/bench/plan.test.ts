import { describe, expect, it } from 'vitest';
import {
  K,
  largestContext,
  nothingToRun,
  planRun,
  tooLongReason,
  WORKER_START_WALL_SECONDS,
} from '../../../src-main/engine/bench/plan';
import type { PlanTarget } from '../../../src-main/engine/bench/plan';

// The reference report's server: max_model_len 262144; its KV budget lies between the largest
// cell that ran (128K x 16 = 2,162,688 tokens) and the smallest Over capacity one (64K x 32 = 2,228,224).
const reference: PlanTarget = {
  maxModelLen: 262_144,
  kvBudget: {
    tokens: 2_200_000,
    source: 'metrics-cache-config',
    detail: 'kv_cache_size_tokens',
    maxConcurrency: null,
    tokensPerRequest: null,
  },
};

describe('planRun', () => {
  it('fills METHOD.md defaults: contexts, concurrency, prefill contexts, 30 s, 4096, exact', () => {
    const plan = planRun({}, reference);
    expect(plan.config.contexts).toEqual([0, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K, 257_984]);
    expect(largestContext(262_144, 4096)).toBe(257_984);
    expect(plan.config.concurrency).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
    expect(plan.config.prefillContexts).toEqual([8 * K, 16 * K, 32 * K, 64 * K, 128 * K, 257_984, 256 * K]);
    expect(plan.config.secondsPerMeasurement).toBe(30);
    expect(plan.config.maxOutputTokens).toBe(4096);
    expect(plan.config.tokenTargeting).toBe('exact');
    expect(plan.config.runTag).toMatch(/^[0-9a-f]{6}$/);
  });

  it("marks exactly the reference report's Over capacity cells from the KV budget", () => {
    const plan = planRun({ contexts: [8 * K, 16 * K, 32 * K, 64 * K, 128 * K, 257_984] }, reference);
    const over = plan.cells
      .filter((c) => c.action === 'over-capacity')
      .map((c) => `${c.context / K}Kx${c.concurrency}`);
    expect(over).toEqual([
      '16Kx128',
      '32Kx64',
      '32Kx128',
      '64Kx32',
      '64Kx64',
      '64Kx128',
      '128Kx32',
      '128Kx64',
      '128Kx128',
      `${257_984 / K}Kx16`,
      `${257_984 / K}Kx32`,
      `${257_984 / K}Kx64`,
      `${257_984 / K}Kx128`,
    ]);
    const cell = plan.cells.find((c) => c.context === 16 * K && c.concurrency === 128);
    expect(cell?.kvTokensNeeded).toBe(128 * (16 * K + 4096));
    expect(cell?.reason).toContain('2,200,000 tokens');
    expect(plan.counts.overCapacity).toBe(13);
    expect(plan.counts.toRun).toBe(48 - 13);
  });

  it('Over capacity only when C × (context + max output) is more than the budget, not when it equals it', () => {
    const budgetOf = (tokens: number): PlanTarget => ({
      maxModelLen: 32_768,
      kvBudget: { ...reference.kvBudget, tokens },
    });
    const actionAt = (tokens: number) =>
      planRun({ contexts: [8 * K], concurrency: [2], maxOutputTokens: 4096 }, budgetOf(tokens)).cells[0].action;
    // 2 × (8192 + 4096) = 24,576 tokens.
    expect(actionAt(24_576)).toBe('run');
    expect(actionAt(24_575)).toBe('over-capacity');
  });

  it("a user's KV budget decides Over capacity, above or below the one the server stated", () => {
    const input = { contexts: [8 * K], concurrency: [1, 4, 16], maxOutputTokens: 4096 };
    const overAt = (kvBudgetTokens: number, target: PlanTarget) =>
      planRun({ ...input, kvBudgetTokens }, target)
        .cells.filter((c) => c.action === 'over-capacity')
        .map((c) => c.concurrency);
    // Needs: 12,288, 49,152 and 196,608 tokens. The server states 2,200,000: nothing over.
    expect(planRun(input, reference).counts.overCapacity).toBe(0);
    expect(overAt(50_000, reference)).toEqual([16]);
    expect(overAt(12_288, reference)).toEqual([4, 16]);
    const small: PlanTarget = { ...reference, kvBudget: { ...reference.kvBudget, tokens: 12_288 } };
    expect(overAt(1_000_000, small)).toEqual([]);
    const plan = planRun({ ...input, kvBudgetTokens: 50_000 }, reference);
    expect(plan.cells[2].reason).toBe(
      '16 × (8K + 4,096) = 196,608 tokens exceeds the KV cache budget of 50,000 tokens (given by the user)',
    );
  });

  it('marks too-long cells, skipped cells and a user KV budget', () => {
    const plan = planRun(
      {
        contexts: [1000, 30_000],
        concurrency: [1, 4],
        maxOutputTokens: 4096,
        skip: [{ context: 1000, concurrency: 4 }],
        kvBudgetTokens: 10_000,
      },
      {
        maxModelLen: 32_768,
        kvBudget: { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null },
      },
    );
    const byKey = Object.fromEntries(plan.cells.map((c) => [`${c.context}x${c.concurrency}`, c.action]));
    expect(byKey).toEqual({ '1000x1': 'run', '1000x4': 'skipped', '30000x1': 'too-long', '30000x4': 'too-long' });
    expect(plan.config.kvBudget.source).toBe('user');
  });

  it('orders prefill scouts and the C=1 column first, then row by row, with re-warm scouts', () => {
    const plan = planRun(
      { contexts: [0, 8 * K, 16 * K], concurrency: [1, 2, 4], prefillContexts: [8 * K, 16 * K, 32 * K] },
      reference,
    );
    const steps = plan.steps.map((s) =>
      s.kind === 'warmup'
        ? 'W'
        : s.kind === 'prefill'
          ? `P${s.context / K}${s.measured ? '' : 'r'}`
          : `D${s.context / K}x${s.concurrency}`,
    );
    expect(steps).toEqual([
      'W',
      'D0x1',
      'P8',
      'D8x1',
      'P16',
      'D16x1',
      'P32',
      'D0x2',
      'D0x4',
      'P8r',
      'D8x2',
      'D8x4',
      'P16r',
      'D16x2',
      'D16x4',
    ]);
  });

  it('measures prefill only at the contexts the person picked, unless they choose prefill contexts', () => {
    const picked = planRun({ contexts: [8 * K, 32 * K], concurrency: [1, 8] }, reference);
    expect(picked.config.prefillContexts).toEqual([8 * K, 32 * K]);
    expect(
      picked.steps.filter((s) => s.kind === 'prefill' && s.measured).map((s) => (s as { context: number }).context),
    ).toEqual([8 * K, 32 * K]);
    const chosen = planRun(
      { contexts: [8 * K, 32 * K], concurrency: [1, 8], prefillContexts: [8 * K, 128 * K] },
      reference,
    );
    expect(chosen.config.prefillContexts).toEqual([8 * K, 128 * K]);
    expect(chosen.counts.prefill).toBe(2);
  });

  it('gives an ETA that scales with the window and the simulator speed', () => {
    const a = planRun({ contexts: [8 * K], concurrency: [1, 2], secondsPerMeasurement: 30 }, reference);
    const b = planRun({ contexts: [8 * K], concurrency: [1, 2], secondsPerMeasurement: 30, simSpeed: 10 }, reference);
    expect(a.etaSeconds).toBeGreaterThan(60);
    // The simulator's clock scales the server's time; starting the worker takes wall time either way.
    expect(b.etaSeconds - WORKER_START_WALL_SECONDS).toBeCloseTo((a.etaSeconds - WORKER_START_WALL_SECONDS) / 10, 5);
  });

  it('reads --sim-speed from a simulator launch and warns when the budget is unknown', () => {
    const plan = planRun(
      {},
      {
        maxModelLen: null,
        kvBudget: { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null },
        simulated: true,
        launch: {
          kind: 'simulator',
          url: null,
          argv: ['node', 'sim', 'serve', '--sim-speed', '25'],
          env: {},
          display: '',
          model: null,
          servedModel: null,
          revision: null,
          maxModelLen: null,
        },
      },
    );
    expect(plan.config.simSpeed).toBe(25);
    expect(plan.warnings.join(' ')).toMatch(/KV cache budget is unknown/);
    expect(plan.counts.overCapacity).toBe(0);
  });
});

describe('Too long', () => {
  it('is judged with the run’s max output, not a fixed 4096', () => {
    expect(tooLongReason(250 * K, 4096, 262_144)).toBeNull();
    expect(tooLongReason(250 * K, 20_000, 262_144)).toBe(
      '250K context + 20,000 output tokens exceeds max_model_len 262,144',
    );
    expect(tooLongReason(250 * K, 20_000, null)).toBeNull();
    const plan = planRun(
      { contexts: [8 * K, 250 * K], concurrency: [1], prefillContexts: [], maxOutputTokens: 20_000 },
      reference,
    );
    expect(plan.cells.map((c) => c.action)).toEqual(['run', 'too-long']);
  });

  it('a plan where nothing can run says why; one with something to run says nothing', () => {
    const none = planRun(
      { contexts: [250 * K], concurrency: [1, 2], prefillContexts: [], maxOutputTokens: 20_000 },
      reference,
    );
    expect(nothingToRun(none)).toMatch(
      /^nothing to measure: of 2 cells, 2 too long for max_model_len 262144 with 20000 output tokens/,
    );
    expect(nothingToRun(planRun({ contexts: [8 * K], concurrency: [1] }, reference))).toBeNull();
    // Prefill alone is something to measure.
    expect(
      nothingToRun(
        planRun(
          { contexts: [250 * K], concurrency: [1], prefillContexts: [8 * K], maxOutputTokens: 20_000 },
          reference,
        ),
      ),
    ).toBeNull();
  });
});
