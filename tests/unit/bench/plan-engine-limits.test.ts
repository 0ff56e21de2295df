/** The plan from what the server states: its KV budget's source, context parallelism, and SGLang's running limit. */
import { describe, expect, it } from 'vitest';
import { K, planRun, type PlanTarget } from '../../../src-main/bench/plan';
import { kvFromCacheConfigBlocks, parsePrometheus } from '../../../src-main/server/metrics-parse';
import { contextParallelOf } from '../../../src-main/server/probe';

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
      'The engine runs at most 16 requests at once (max_running_requests): cells above that concurrency will be Requests queued.',
    );
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
      /exceeds the KV cache budget of 1048576 tokens \(metrics-cache-config: vllm:cache_config_info num_gpu_blocks 2048 x block_size 64 x context parallel -dcp 8\)/,
    );
    expect(plan.config.kvBudget.detail).toMatch(/-dcp 8$/);
  });
});
