/** The plan from what the server states: its KV budget's source, context parallelism, and SGLang's running limit. */
import { describe, expect, it } from 'vitest';
import { K, planRun, type PlanTarget } from '../../../src-main/engine/bench/plan';
import { kvFromCacheConfigBlocks, parsePrometheus } from '../../../src-main/engine/server/metrics-parse';
import { contextParallelOf } from '../../../src-main/engine/server/probe';

/** A vLLM server started with `argv`, as its session block records it; `maxModelLen` as the server reports it. */
const launched = (argv: string[], maxModelLen: number | null = 32_768): PlanTarget => ({
  maxModelLen,
  kvBudget: { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null },
  launch: {
    kind: 'vllm-native',
    url: null,
    argv,
    env: {},
    display: argv.join(' '),
    model: 'm',
    servedModel: null,
    revision: null,
    maxModelLen: null,
  },
});

describe('plan from the engine limits', () => {
  it('SGLang: concurrency above max_running_requests is planned as Requests queued, and the plan says why', () => {
    const target: PlanTarget = {
      maxModelLen: 40_960,
      kvBudget: {
        tokens: 612_345,
        source: 'engine-info',
        detail: 'SGLang /get_server_info max_total_num_tokens',
        maxConcurrency: null,
        tokensPerRequest: null,
      },
      maxRunningRequests: 16,
    };
    const plan = planRun({ contexts: [8 * K], concurrency: [8, 16, 32, 64] }, target);
    expect(plan.cells.map((c) => [c.concurrency, c.action, c.expectQueued !== undefined])).toEqual([
      [8, 'run', false],
      [16, 'run', false],
      [32, 'run', true],
      [64, 'over-capacity', false],
    ]);
    expect(plan.cells[2].expectQueued).toBe(
      "32 requests at once is above the engine's max_running_requests of 16: the rest wait, so the cell will be Requests queued",
    );
    expect(plan.warnings).toContain(
      "The server runs at most 16 requests at once (the engine's max_running_requests): cells above that concurrency will be Requests queued, each waiting out its readiness deadline.",
    );
  });

  it('vLLM: reads --max-num-seqs and --max-num-batched-tokens from the launch, and the ETA counts the readiness deadline of a queued cell', () => {
    const input = {
      contexts: [8 * K],
      concurrency: [4, 16],
      secondsPerMeasurement: 10,
      warmup: false,
      prefillContexts: [],
    };
    const capped = planRun(input, launched(['vllm', 'serve', 'm', '--max-num-seqs', '4']));
    expect(capped.cells.map((c) => c.expectQueued ?? null)).toEqual([
      null,
      '16 requests at once is above --max-num-seqs of 4: the rest wait, so the cell will be Requests queued',
    ]);
    expect(
      capped.steps.filter((s) => s.kind === 'decode').map((s) => s.kind === 'decode' && s.queued === true),
    ).toEqual([false, true]);
    const open = planRun(input, launched(['vllm', 'serve', 'm', '--max-num-seqs=64']));
    expect(open.cells.every((c) => c.expectQueued === undefined)).toBe(true);
    // The queued cell waits out 60 s of readiness instead of about 4 s of first tokens and steady streams.
    expect(capped.etaSeconds - open.etaSeconds).toBeCloseTo(60 - 4, 5);
    const batched = planRun(
      input,
      launched(['vllm', 'serve', 'm', '--max-num-batched-tokens', '8', '--max-num-seqs', '64']),
    );
    expect(batched.cells[1].expectQueued).toMatch(/^16 requests at once is above --max-num-batched-tokens of 8/);
    // Given as the person typed it, when only the display line was kept.
    const shown = planRun(input, {
      ...launched([]),
      launch: { ...launched([]).launch!, display: 'vllm serve m --max-num-seqs 4' },
    });
    expect(shown.cells[1].expectQueued).toBeDefined();
  });

  it('vLLM: reads --max-model-len from the launch when the server has not said it, as vLLM reads it (32k, 32K, auto)', () => {
    const input = { contexts: [0, 8 * K, 32 * K], concurrency: [1], maxOutputTokens: 1024, prefillContexts: [] };
    const actions = (t: PlanTarget) => planRun(input, t).cells.map((c) => c.action);
    // 32k is 32,000 tokens: 32K + 1,024 does not fit; 8K + 1,024 does.
    const decimal = planRun(input, launched(['vllm', 'serve', 'm', '--max-model-len', '32k'], null));
    expect(decimal.cells.map((c) => c.action)).toEqual(['run', 'run', 'too-long']);
    expect(decimal.cells[2].reason).toBe('32K context + 1,024 output tokens exceeds max_model_len 32,000');
    expect(decimal.warnings.join(' ')).not.toMatch(/did not report max_model_len/);
    expect(actions(launched(['vllm', 'serve', 'm', '--max-model-len=9000'], null))).toEqual([
      'run',
      'too-long',
      'too-long',
    ]);
    // 34K = 34,816 fits 32K + 1,024 + the margin.
    expect(actions(launched(['vllm', 'serve', 'm', '--max-model-len', '34K'], null))).toEqual(['run', 'run', 'run']);
    // Fitted to memory: unknown until the server says it.
    const auto = planRun(input, launched(['vllm', 'serve', 'm', '--max-model-len', 'auto'], null));
    expect(auto.cells.map((c) => c.action)).toEqual(['run', 'run', 'run']);
    expect(auto.warnings.join(' ')).toMatch(/did not report max_model_len/);
    // What the server reports wins over its command line.
    expect(actions(launched(['vllm', 'serve', 'm', '--max-model-len', '4096'], 65_536))).toEqual(['run', 'run', 'run']);
  });

  it('decode context parallelism: the block count times -dcp, and Over capacity names that source', () => {
    const samples = parsePrometheus('vllm:cache_config_info{block_size="64",engine="0",num_gpu_blocks="2048"} 1.0');
    const kv = kvFromCacheConfigBlocks(
      samples,
      contextParallelOf(['vllm', 'serve', 'deepseek-ai/DeepSeek-V3.2', '-tp', '8', '-dcp', '8'], null),
    )!;
    const target: PlanTarget = {
      maxModelLen: 163_840,
      kvBudget: {
        tokens: kv.tokens,
        source: 'metrics-cache-config',
        detail: kv.detail,
        maxConcurrency: null,
        tokensPerRequest: null,
      },
    };
    expect(target.kvBudget.tokens).toBe(2048 * 64 * 8);
    const plan = planRun({ contexts: [64 * K], concurrency: [8, 16], maxOutputTokens: 4096 }, target);
    expect(plan.cells.map((c) => c.action)).toEqual(['run', 'over-capacity']);
    expect(plan.cells[1].reason).toMatch(
      /exceeds the KV cache budget of 1,048,576 tokens \(vllm:cache_config_info num_gpu_blocks 2048 x block_size 64 x context parallel -dcp 8\)/,
    );
    expect(plan.config.kvBudget.detail).toMatch(/-dcp 8$/);
  });
});
