/**
 * vLLM's own strings, from v0.8 to the newest source read, replayed through the log parser, the
 * failure recogniser and the KV budget reader (the lines and where each comes from are in vllm-strings.ts).
 */
import { describe, expect, it } from 'vitest';
import { recognizeStartupFailure } from '../../../src-main/engine/server/failures';
import { logKvBudget, parseLog, parseLogLine } from '../../../src-main/engine/server/log-parse';
import {
  kvFromCacheConfigBlocks,
  kvFromCacheConfigTokens,
  parsePrometheus,
} from '../../../src-main/engine/server/metrics-parse';
import { launchOptionsFromCommand } from '../../../src-main/engine/server/command-line';
import { contextParallelOf } from '../../../src-main/engine/server/probe';
import { CACHE_CONFIG_INFO, FAILURE_LINES, KV_LINES, STATS_LINES, VERSION_LINES } from './vllm-strings';

describe('the version and served model, every way vLLM has logged them', () => {
  it('"vLLM API server version X" (v0.8 to January 2026)', () => {
    expect(parseLog([VERSION_LINES.apiServer]).version).toBe('0.11.0');
  });

  it('"vLLM server version X, serving model M" (from January 2026)', () => {
    const f = parseLog([VERSION_LINES.serverServing]);
    expect(f.version).toBe('0.21.0');
    expect(f.servedModel).toBe('Qwen/Qwen3-8B');
  });

  it("the logo's version and model rows, in colour", () => {
    const f = parseLog(VERSION_LINES.logo);
    expect(f.version).toBe('0.21.0');
    expect(f.servedModel).toBe('Qwen/Qwen3-8B');
  });

  it('"Initializing a V1 LLM engine (vX)" when the API server line is missing; the API server line wins when both are there', () => {
    expect(parseLog([VERSION_LINES.engineV1]).version).toBe('0.21.0');
    expect(parseLog([VERSION_LINES.apiServer, VERSION_LINES.engineV1]).version).toBe('0.11.0');
  });
});

describe('the KV capacity lines', () => {
  it('V0 "# cuda blocks: N, # CPU blocks: M" times the block size', () => {
    const f = parseLog([KV_LINES.v0Blocks, KV_LINES.v0Concurrency]);
    expect(logKvBudget(f)).toMatchObject({ tokens: 1381 * 16, maxConcurrency: 0.67, tokensPerRequest: 32768 });
  });

  it('V1 with two data parallel engines: each engine core prints its own pool, and they add up', () => {
    const f = parseLog([
      KV_LINES.v1Size(0, '1,000,000'),
      KV_LINES.v1Concurrency(0),
      KV_LINES.v1Size(1, '1,000,000'),
      KV_LINES.v1Concurrency(1),
    ]);
    expect(logKvBudget(f)).toMatchObject({
      tokens: 2_000_000,
      detail: 'startup log "GPU KV cache size: 1,000,000 tokens", summed over 2 data parallel engines',
    });
  });

  it('before v0.10.2 ("EngineCore_N" prefixes) two data parallel engines are two engines, and they add up', () => {
    const f = parseLog([KV_LINES.v1SizeBefore0102(0, '1,000,000'), KV_LINES.v1SizeBefore0102(1, '1,000,000')]);
    expect(logKvBudget(f)).toMatchObject({ tokens: 2_000_000, engines: 2 });
  });

  it('V1 with context parallelism: the log figure is already multiplied, and is taken as it is', () => {
    const f = parseLog([KV_LINES.cpMultiplied, KV_LINES.v1Size(0, '4,000,000')]);
    expect(logKvBudget(f)?.tokens).toBe(4_000_000);
  });
});

describe('the periodic stats line as Key: value pairs', () => {
  it('V0: Swapped and Pending', () => {
    expect(parseLogLine(STATS_LINES.v0)[0]).toMatchObject({
      kind: 'stats',
      stats: { running: 1, waiting: 2, kvCacheUsage: 0.001, prefixCacheHitRate: null },
    });
  });

  it('V1 before engine prefixes', () => {
    expect(parseLogLine(STATS_LINES.v1Early)[0]).toMatchObject({
      stats: { generationTokensPerSecond: 1180, running: 3, waiting: 0, kvCacheUsage: 0.042, prefixCacheHitRate: 0 },
    });
  });

  it('"Preemptions: N" under pressure does not hide KV usage and the prefix cache hit rate', () => {
    expect(parseLogLine(STATS_LINES.preemptions)[0]).toEqual({
      kind: 'stats',
      stats: {
        promptTokensPerSecond: 0,
        generationTokensPerSecond: 2310.4,
        running: 96,
        waiting: 32,
        kvCacheUsage: 0.996,
        prefixCacheHitRate: 0.875,
        preemptions: 7,
        deferred: null,
      },
    });
  });

  it('"Deferred: N reqs" and fields after the hit rate, aggregated over engines', () => {
    expect(parseLogLine(STATS_LINES.deferred)[0]).toEqual({
      kind: 'stats',
      stats: {
        promptTokensPerSecond: 12.5,
        generationTokensPerSecond: 2310.4,
        running: 96,
        waiting: 40,
        kvCacheUsage: 0.981,
        prefixCacheHitRate: 0.91,
        preemptions: 3,
        deferred: 8,
      },
    });
  });
});

describe('the KV budget from vllm:cache_config_info', () => {
  it('data parallel: every engine label repeats the front end total, so it is read once, not summed', () => {
    const s = parsePrometheus(CACHE_CONFIG_INFO.dataParallel);
    expect(kvFromCacheConfigTokens(s)).toBeNull();
    expect(kvFromCacheConfigBlocks(s)?.tokens).toBe(60000 * 16);
  });

  it('decode and prefill context parallelism multiply the block count, and the detail says so', () => {
    const s = parsePrometheus(CACHE_CONFIG_INFO.hybrid);
    const cp = contextParallelOf(['vllm', 'serve', 'm', '-dcp', '4'], null);
    expect(cp).toEqual({ decode: 4, prefill: 1 });
    expect(kvFromCacheConfigBlocks(s, cp)).toEqual({
      tokens: 3000 * 16 * 4,
      detail: 'vllm:cache_config_info num_gpu_blocks 3000 x block_size 16 x context parallel -dcp 4',
      maxConcurrency: null,
    });
    expect(
      contextParallelOf(['--decode-context-parallel-size=2', '--prefill-context-parallel-size', '2'], null),
    ).toEqual({ decode: 2, prefill: 2 });
    expect(contextParallelOf([], { decode_context_parallel_size: 8 })).toEqual({ decode: 8, prefill: 1 });
  });
});

describe('startup failures in the words of each vLLM version', () => {
  it('free memory below the utilization: without the device (to December 2025) and with it (after)', () => {
    const old = recognizeStartupFailure([FAILURE_LINES.freeMemoryOld]);
    expect(old).toMatchObject({
      kind: 'free-memory-below-utilization',
      message: 'Only 37.95 of 79.25 GiB GPU memory is free, but --gpu-memory-utilization 0.9 asks for 71.33 GiB.',
    });
    const now = recognizeStartupFailure([FAILURE_LINES.freeMemoryDevice]);
    expect(now).toMatchObject({
      kind: 'free-memory-below-utilization',
      message:
        'Only 85.92 of 121.69 GiB GPU memory on cuda:0 is free, but --gpu-memory-utilization 0.92 asks for 111.96 GiB.',
    });
    expect(now.advice).toMatch(/lower --gpu-memory-utilization to at most 0.7\b/);
  });

  it('max_model_len above the model: any config key, also inside pydantic\'s "Value error, ..."', () => {
    expect(recognizeStartupFailure([FAILURE_LINES.maxModelLenOld]).advice).toMatch(/at most 131072/);
    const f = recognizeStartupFailure(FAILURE_LINES.maxModelLenPydantic);
    expect(f).toMatchObject({
      kind: 'max-model-len-above-model-limit',
      message: "--max-model-len 65536 is above the model's own limit of 32768 tokens.",
    });
    expect(f.rootCauseLines[0]).toMatch(/^Value error, User-specified/);
  });

  it('an unknown pydantic "Value error, ..." is the root cause, before the ValidationError header', () => {
    const f = recognizeStartupFailure([
      'pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig',
      '  Value error, Tensor parallel size (3) must divide the number of attention heads (32). [type=value_error]',
      '    For further information visit https://errors.pydantic.dev/2.11/v/value_error',
    ]);
    expect(f.kind).toBe('exited-before-ready');
    expect(f.rootCauseLines).toEqual([
      'Value error, Tensor parallel size (3) must divide the number of attention heads (32). [type=value_error]',
    ]);
  });

  it('V0\'s "max seq len (N) is larger than the maximum number of tokens that can be stored in KV cache (M)": lower to M', () => {
    const f = recognizeStartupFailure([FAILURE_LINES.v0MaxSeqLen]);
    expect(f).toMatchObject({
      kind: 'max-seq-len-exceeds-kv',
      message: "The KV cache cannot hold even one request at the model's max length (131072 tokens).",
      advice: 'Lower --max-model-len to at most 98304 or raise --gpu-memory-utilization.',
    });
  });

  it('"CUDA error: out of memory" as RuntimeError (torch before 2.8) and torch.AcceleratorError (2.8 on) is out of memory', () => {
    for (const lines of [FAILURE_LINES.cudaErrorRuntime, FAILURE_LINES.cudaErrorAccelerator]) {
      const f = recognizeStartupFailure(lines);
      expect(f.kind).toBe('cuda-out-of-memory');
      expect(f.rootCauseLines).toEqual([lines[0]]);
    }
  });

  it('"Cannot auto-fit max_model_len" (--max-model-len auto)', () => {
    const f = recognizeStartupFailure([FAILURE_LINES.autoFit], { gpuMemoryUtilization: 0.5 });
    expect(f).toMatchObject({
      kind: 'no-kv-memory',
      advice: expect.stringMatching(/Raise --gpu-memory-utilization \(now 0.5\)/),
    });
  });

  it('"are not supported for now": the architecture', () => {
    expect(recognizeStartupFailure([FAILURE_LINES.architecture])).toMatchObject({
      kind: 'unsupported-architecture',
      message: "This vLLM does not support the model's architecture ['Glm4MoeLiteForCausalLM'].",
    });
  });

  it('a gated model re-raised as "Invalid repository ID" is a gated model, with the gated advice', () => {
    const f = recognizeStartupFailure(FAILURE_LINES.gated, { model: 'meta-llama/Llama-3.1-8B-Instruct' });
    expect(f.kind).toBe('gated-model');
    expect(f.advice).toMatch(/https:\/\/huggingface\.co\/meta-llama\/Llama-3\.1-8B-Instruct/);
    expect(f.advice).toMatch(/HF_TOKEN=/);
    expect(f.rootCauseLines[0]).toMatch(/GatedRepoError|Cannot access gated repo/);
  });

  it("argparse: the old image's module entrypoint rejects the positional model", () => {
    const f = recognizeStartupFailure(
      ['usage: api_server.py [-h] [--host HOST] [--port PORT]', FAILURE_LINES.unrecognizedPositional],
      { engineKind: 'custom' },
    );
    expect(f).toMatchObject({ kind: 'bad-arguments', message: 'This vLLM does not know the argument Qwen/Qwen3-8B.' });
    expect(f.advice).toMatch(/--entrypoint vllm IMAGE serve MODEL/);
  });

  it('argparse: a flag this vLLM does not have, and a value that is not a choice', () => {
    expect(recognizeStartupFailure([FAILURE_LINES.unrecognizedFlag], { engineKind: 'vllm-native' })).toMatchObject({
      kind: 'bad-arguments',
      advice: 'Remove --attention-backend FLASHINFER, or use a vLLM version that has them (see vllm serve --help).',
    });
    const c = recognizeStartupFailure([FAILURE_LINES.invalidChoice]);
    expect(c).toMatchObject({ kind: 'bad-arguments', message: 'This vLLM does not accept --kv-cache-dtype int4.' });
    expect(c.advice).toMatch(/^Use one of: auto, float16, .*fp8_per_token_head, nvfp4\.$/);
  });
});

describe('a typed command', () => {
  it('docker with --entrypoint vllm IMAGE serve MODEL: the model after serve, --max-model-len 32k as 32,000 tokens', () => {
    const o = launchOptionsFromCommand(
      [
        'docker',
        'run',
        '--gpus',
        'all',
        '-p',
        '8000:8000',
        '-v',
        '/h:/root/.cache/huggingface',
        '--entrypoint',
        'vllm',
        'vllm/vllm-openai:v0.10.1',
        'serve',
        'Qwen/Qwen3-8B',
        '--max-model-len',
        '32k',
      ],
      {},
    );
    expect(o).toMatchObject({ engineKind: 'custom', model: 'Qwen/Qwen3-8B', port: 8000, maxModelLen: 32000 });
  });
});
