import { describe, expect, it } from 'vitest';
import {
  logKvBudget,
  parseLog,
  parseLogLine,
  parsePythonDict,
  stripAnsi,
} from '../../../src-main/engine/server/log-parse';
import { RECENT_LINES } from './vllm-strings';

const P = '\x1b[1;36m(EngineCore_DP0 pid=4242)\x1b[0;0m INFO 08-19 14:58:41 [kv_cache_utils.py:849] ';
const A = '\x1b[1;36m(APIServer pid=1234)\x1b[0;0m INFO 08-19 14:58:41 [api_server.py:1639] ';

describe('log lines', () => {
  it('strips ANSI colour codes and trailing CR', () => {
    expect(stripAnsi(`${A}hello\r`)).toBe('(APIServer pid=1234) INFO 08-19 14:58:41 [api_server.py:1639] hello');
  });

  it('reads version, non-default args and max model len', () => {
    const f = parseLog([
      `${A}vLLM API server version 0.10.1.1`,
      `${A}non-default args: {'model': 'Qwen/Qwen3-8B', 'max_model_len': 8192, 'enable_prefix_caching': False, 'block_size': 32, 'limit_mm_per_prompt': {'image': 0}, 'served_model_name': ['q'], 'x': None}`,
      `${P}Using max model len 8192`,
    ]);
    expect(f.version).toBe('0.10.1.1');
    expect(f.nonDefaultArgs).toEqual({
      model: 'Qwen/Qwen3-8B',
      max_model_len: 8192,
      enable_prefix_caching: false,
      block_size: 32,
      limit_mm_per_prompt: { image: 0 },
      served_model_name: ['q'],
      x: null,
    });
    expect(f.maxModelLen).toBe(8192);
  });

  it("--max-model-len auto: the reduced length, also after the model's full length was stated", () => {
    const f = parseLog([`${A}Using max model len 262144`, RECENT_LINES.autoFitReduced]);
    expect(f.maxModelLen).toBe(262144);
    expect(f.autoFitMaxModelLen).toBe(98304);
    const fits = parseLog([RECENT_LINES.autoFitFits]);
    expect(fits.autoFitMaxModelLen).toBeNull();
  });

  it('python dict with tuples and quotes inside strings', () => {
    expect(parsePythonDict(`{'a': (1, 2), 'b': "it's", 'c': 'True story'}`)).toEqual({
      a: [1, 2],
      b: "it's",
      c: 'True story',
    });
    expect(parsePythonDict('{not a dict')).toBeNull();
  });

  it('KV shape 1: GPU blocks then max concurrency (x block size 16, or --block-size)', () => {
    const f = parseLog([
      `${P}# GPU blocks: 1381, # CPU blocks: 512`,
      `${P}Maximum concurrency for 2048 tokens per request: 10.79x`,
    ]);
    expect(logKvBudget(f)).toEqual({
      tokens: 22096,
      detail: 'startup log "# GPU blocks: 1381" x block size 16',
      maxConcurrency: 10.79,
      tokensPerRequest: 2048,
      engines: 1,
    });
    const g = parseLog([`${A}non-default args: {'block_size': 32}`, `${P}# GPU blocks: 1381`]);
    expect(logKvBudget(g)?.tokens).toBe(1381 * 32);
  });

  it('KV shape 2: two lines with thousands separators (printed twice with several engines)', () => {
    const f = parseLog([
      `${P}GPU KV cache size: 1,587,648 tokens`,
      `${P}Maximum concurrency for 2,048 tokens per request: 775.22x`,
      `${P}GPU KV cache size: 1,587,648 tokens`,
      `${P}Maximum concurrency for 2,048 tokens per request: 775.22x`,
    ]);
    expect(logKvBudget(f)).toMatchObject({ tokens: 1587648, maxConcurrency: 775.22, tokensPerRequest: 2048 });
  });

  it('KV shape 3: one line', () => {
    const events = parseLogLine(
      `${P}GPU KV cache size: 302,945 tokens, Maximum concurrency for 262,144 tokens per request: 1.16x`,
    );
    expect(events).toEqual([
      { kind: 'kv-cache-size', tokens: 302945, engine: '0' },
      { kind: 'max-concurrency', tokensPerRequest: 262144, concurrency: 1.16 },
    ]);
    expect(
      logKvBudget(
        parseLog([`${P}GPU KV cache size: 302,945 tokens, Maximum concurrency for 262,144 tokens per request: 1.16x`]),
      ),
    ).toEqual({
      tokens: 302945,
      detail: 'startup log "GPU KV cache size: 302,945 tokens"',
      maxConcurrency: 1.16,
      tokensPerRequest: 262144,
      engines: 1,
    });
  });

  it('no KV line -> null', () => {
    expect(logKvBudget(parseLog([`${A}vLLM API server version 0.9.0`]))).toBeNull();
  });

  it('startup complete, server URL (both spellings) and phases', () => {
    const f = parseLog([
      `${P}Model loading took 2.05 GiB memory and 27.2 seconds`,
      `${P}Available KV cache memory: 33.31 GiB`,
      `${A}Starting vLLM API server 0 on http://0.0.0.0:8000`,
      'INFO:     Started server process [1234]',
      'INFO:     Waiting for application startup.',
      'INFO:     Application startup complete.',
    ]);
    expect(f.startupComplete).toBe(true);
    expect(f.serverUrl).toBe('http://0.0.0.0:8000');
    expect(f.availableKvGib).toBe(33.31);
    expect(f.phase).toBe('waiting for /health');
    expect(parseLog([`${A}Starting vLLM server on http://127.0.0.1:9000`]).serverUrl).toBe('http://127.0.0.1:9000');
    expect(parseLog([`${P}Loading safetensors checkpoint shards:  50% Completed | 1/2`]).phase).toBe(
      'loading model weights',
    );
  });

  it('periodic stats lines, newer and older wording', () => {
    const [e] = parseLogLine(
      `${A}Engine 000: Avg prompt throughput: 512.3 tokens/s, Avg generation throughput: 1,180.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 4.2%, Prefix cache hit rate: 0.0%`,
    );
    expect(e).toEqual({
      kind: 'stats',
      stats: {
        promptTokensPerSecond: 512.3,
        generationTokensPerSecond: 1180,
        running: 3,
        waiting: 0,
        kvCacheUsage: 0.042,
        prefixCacheHitRate: 0,
        preemptions: null,
        deferred: null,
      },
    });
    const [old] = parseLogLine(
      'INFO 05-01 10:00:00 metrics.py:455] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 44.9 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.',
    );
    expect(old).toMatchObject({
      kind: 'stats',
      stats: { generationTokensPerSecond: 44.9, running: 1, waiting: 2, kvCacheUsage: 0.001 },
    });
  });

  it('ignores unrelated lines', () => {
    expect(parseLogLine('some random output')).toEqual([]);
  });
});

describe('engine config line', () => {
  it('dtype, quantization and KV cache dtype from "Initializing a V1 LLM engine ... with config:"', () => {
    const f = parseLog([
      "(EngineCore_DP0 pid=7) INFO 11-30 00:19:27 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='Qwen/Qwen3-8B-FP8', speculative_config=None, tokenizer='Qwen/Qwen3-8B-FP8', dtype=torch.bfloat16, max_seq_len=32768, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda",
    ]);
    expect([f.engineDtype, f.engineQuantization]).toEqual(['bfloat16', 'fp8']);
    const g = parseLog([
      "INFO [llm_engine.py:234] Initializing an LLM engine (v0.6.3) with config: model='m', dtype=torch.float16, quantization=None, kv_cache_dtype=auto",
    ]);
    expect([g.engineDtype, g.engineQuantization]).toEqual(['float16', null]);
  });
});
