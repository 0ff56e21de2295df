/** The simulator's KV budget worked out as vLLM does, against figures computed by hand. */
import { describe, expect, it } from 'vitest';
import {
  availableKvLine,
  kvArithmetic,
  kvBytesPerToken,
  kvLayerBytesPerToken,
  planKv,
} from '../../../src-main/engine/sim/kv-budget';
import { BUILTIN_PROFILES, checkProfile, type Profile } from '../../../src-main/engine/sim/profile';

const GiB = 1024 ** 3;

/**
 * A 24 GiB card with a Qwen3-4B-shaped dense model (36 layers, 8 KV heads of 128, BF16): 6 GiB of weights, 1 GiB
 * peak activation, 0.5 GiB non-torch, 0.5 GiB of CUDA graphs.
 */
function card(over: { vllmVersion?: string; gpu?: Partial<Profile['gpu']>; memory?: Partial<Profile['memory']> } = {}) {
  const p = structuredClone(BUILTIN_PROFILES['h200-8b-bf16']);
  p.vllmVersion = over.vllmVersion ?? '0.11.0';
  p.gpu = { name: 'Test card', memoryGiB: 24, freeGiB: 24, ...over.gpu };
  p.model = {
    ...p.model,
    dtype: 'bfloat16',
    maxModelLen: 32768,
    weightsGiB: 6,
    architecture: { layers: 36, kvHeads: 8, headSize: 128 },
  };
  p.memory = { peakActivationGiB: 1, nonTorchGiB: 0.5, cudaGraphGiB: 0.5, ...over.memory };
  return p;
}

const plan = (
  p: Profile,
  o: { util?: number; dtype?: string; blockSize?: number; len?: number | 'auto'; eager?: boolean },
) => {
  const r = planKv(p, {
    maxModelLen: o.len ?? 32768,
    gpuMemoryUtilization: o.util ?? 0.9,
    kvCacheDtype: o.dtype ?? 'auto',
    blockSize: o.blockSize ?? 16,
    enforceEager: o.eager,
  });
  if (!r.ok) throw new Error(r.error.lines.join('\n'));
  return r.plan;
};

describe('KV bytes per token, per --kv-cache-dtype (vLLM page sizes)', () => {
  // 36 layers x 8 KV heads x 128, K and V.
  it.each([
    ['auto', 147_456], // the model's bfloat16: 36 x 8 x 2 x 128 x 2 B
    ['bfloat16', 147_456],
    ['float16', 147_456],
    ['fp8', 73_728], // 1 B
    ['fp8_e5m2', 73_728],
    ['int8_per_token_head', 76_032], // 36 x 8 x 2 x (128 x 1 B + 4 B float32 scale)
    ['int4_per_token_head', 39_168], // 36 x 8 x 2 x (128 x 0.5 B + 4 B)
    ['nvfp4', 41_472], // 36 x 8 x 2 x (64 B data + 8 B fp8 scales per 16)
    ['turboquant_4bit_nc', 38_592], // 36 x 8 x (64 + 2 norm + 64 + 4 scale/zero = 134)
    ['turboquant_k8v4', 56_448], // 36 x 8 x (128 + 68 = 196)
    ['turboquant_k3v4_nc', 33_984], // 36 x 8 x (48 + 2 + 68 = 118)
    ['turboquant_3bit_nc', 29_376], // 36 x 8 x (50 + 52 = 102)
  ])('%s: %i B', (dtype, bytes) => {
    expect(kvBytesPerToken(card(), dtype)).toBe(bytes);
  });

  it('a hybrid model counts only its full-attention layers; tensor parallelism splits the KV heads', () => {
    const fara = BUILTIN_PROFILES['rtx-pro-6000-fara-4b-bf16'];
    expect(kvBytesPerToken(fara)).toBe(8 * 4 * 2 * 256 * 2);
    expect(kvBytesPerToken(card(), 'auto', 2)).toBe(147_456 / 2);
    // One KV head cannot be split further: each of 16 ranks keeps one of the 8 (vLLM: max(1, heads // tp)).
    expect(kvBytesPerToken(card(), 'auto', 16)).toBe(147_456 / 8);
  });

  it('a dtype vLLM has no layout for has none', () => {
    expect(kvLayerBytesPerToken('q4_k', 8, 128)).toBeUndefined();
    expect(kvLayerBytesPerToken('e4m3_fp8', 8, 128)).toBeUndefined();
  });

  it('auto is the model dtype: a float32 model stores 4 B, and float16 still 2 B', () => {
    const p = card();
    p.model.dtype = 'float32';
    expect(kvBytesPerToken(p)).toBe(294_912);
    expect(kvBytesPerToken(p, 'float16')).toBe(147_456);
  });

  it('a TurboQuant slot is rounded up to an even number of bytes', () => {
    // Head size 104, 3-bit keys and 4-bit values: 39 + 2 B norm + 52 + 4 B scale and zero = 97 -> 98.
    expect(kvLayerBytesPerToken('turboquant_k3v4_nc', 1, 104)).toBe(98);
  });
});

describe('planKv: card x utilization - weights - peak - non-torch (- CUDA graphs), in whole blocks', () => {
  // ceil(24 GiB x 0.9) = 23,192,823,399 B; - 6 - 1 - 0.5 GiB = 15,139,759,719 B available.
  const available = 15_139_759_719;

  it.each([
    ['auto', 16, 6417, 102_672], // / (147,456 x 16) = 6,417.06
    ['fp8', 16, 12_834, 205_344], // / (73,728 x 16) = 12,834.1
    ['int8_per_token_head', 16, 12_445, 199_120],
    ['int4_per_token_head', 16, 24_158, 386_528],
    ['nvfp4', 16, 22_816, 365_056],
    ['turboquant_4bit_nc', 16, 24_518, 392_288],
    ['auto', 32, 3208, 102_656], // / (147,456 x 32) = 3,208.5
    ['fp8', 64, 3208, 205_312],
  ])('at 0.9, %s, block size %i: %i blocks, %i tokens', (dtype, blockSize, blocks, tokens) => {
    const p = plan(card(), { dtype, blockSize });
    expect(p.memory.available).toBe(available);
    expect([p.numGpuBlocks, p.kvCacheTokens]).toEqual([blocks, tokens]);
  });

  it('at 0.8: ceil(24 GiB x 0.8) = 20,615,843,021 B, 12,562,779,341 B available', () => {
    const p = plan(card(), { util: 0.8, blockSize: 32 });
    expect([p.memory.requested, p.memory.available]).toEqual([20_615_843_021, 12_562_779_341]);
    expect([p.numGpuBlocks, p.kvCacheTokens]).toEqual([2662, 85_184]); // / (147,456 x 32) = 2,662.4
  });

  it('vLLM 0.21 and later subtract the CUDA graph memory, except with --enforce-eager', () => {
    const later = plan(card({ vllmVersion: '0.21.0' }), {});
    expect(later.memory.available).toBe(available - 0.5 * GiB);
    expect(later.numGpuBlocks).toBe(6189); // 14,602,888,807 / 2,359,296 = 6,189.6
    expect(plan(card({ vllmVersion: '0.21.0' }), { eager: true }).numGpuBlocks).toBe(6417);
    expect(plan(card({ vllmVersion: '0.20.1' }), {}).numGpuBlocks).toBe(6417);
  });

  it('rounds down to whole blocks: exactly 1,000 blocks, and one byte less is 999', () => {
    // 16 GiB at utilization 1 less 13.802734375 GiB = 2,359,296,000 B = 1,000 blocks of 16 x 147,456 B.
    const exact = card({ gpu: { memoryGiB: 16, freeGiB: 16 }, memory: { peakActivationGiB: 13.802734375 } });
    exact.model.weightsGiB = 0;
    exact.memory.nonTorchGiB = 0;
    expect(plan(exact, { util: 1, len: 16000 }).numGpuBlocks).toBe(1000);
    expect(plan(exact, { util: 1, len: 16000 }).kvCacheTokens).toBe(16_000);
    const short = structuredClone(exact);
    short.memory.peakActivationGiB += 1 / GiB;
    expect(plan(short, { util: 1, len: 15984 }).numGpuBlocks).toBe(999);
    // 999 blocks hold 15,984 tokens; a 15,985-token request needs 1,000 blocks (2.20 GiB) and does not start.
    const tooLong = planKv(short, { maxModelLen: 15985, gpuMemoryUtilization: 1, kvCacheDtype: 'auto', blockSize: 16 });
    expect(!tooLong.ok && tooLong.error.lines[0]).toMatch(
      /\(2\.20 GiB KV cache is needed, which is larger than the available KV cache memory \(2\.20 GiB\)\. .*estimated maximum model length is 15984\./,
    );
  });

  it('less than one block of memory is no memory for the cache; weights above the requested memory are out of memory', () => {
    // One block is 16 x 147,456 = 2,359,296 B: a byte less is none, exactly that is one.
    const tiny = card({ gpu: { memoryGiB: 16, freeGiB: 16 }, memory: { peakActivationGiB: 16 - 2_359_295 / GiB } });
    tiny.model.weightsGiB = 0;
    tiny.memory.nonTorchGiB = 0;
    const none = planKv(tiny, { maxModelLen: 16, gpuMemoryUtilization: 1, kvCacheDtype: 'auto', blockSize: 16 });
    expect(!none.ok && none.error.lines[0]).toMatch(/^ValueError: No available memory for the cache blocks/);
    tiny.memory.peakActivationGiB = 16 - 2_359_296 / GiB;
    expect(plan(tiny, { util: 1, len: 16 }).numGpuBlocks).toBe(1);
    // Weights equal to the requested memory (ceil(24 GiB x 0.9) B) load; 1 GiB more does not.
    const heavy = card();
    heavy.model.weightsGiB = 23_192_823_399 / GiB;
    heavy.memory = { peakActivationGiB: 0, nonTorchGiB: 0 };
    expect(planKv(heavy, { maxModelLen: 16, gpuMemoryUtilization: 0.9, kvCacheDtype: 'auto', blockSize: 16 })).toEqual({
      ok: false,
      error: { lines: [expect.stringMatching(/^ValueError: No available memory/)] },
    });
    heavy.model.weightsGiB = 22.6;
    const oom = planKv(heavy, { maxModelLen: 16, gpuMemoryUtilization: 0.9, kvCacheDtype: 'auto', blockSize: 16 });
    expect(!oom.ok && oom.error.lines[0]).toBe(
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 24.00 GiB of which 2.40 GiB is free. Including non-PyTorch memory, this process has 21.60 GiB memory in use.',
    );
  });

  it('--max-model-len auto is the model’s derived length', () => {
    expect(plan(card(), { len: 'auto' }).maxModelLen).toBe(32768);
  });

  it('"GPU KV cache size" and the concurrency: blocks x block size before 0.21, int(concurrency x length) after', () => {
    const exact = card({ gpu: { memoryGiB: 16, freeGiB: 16 }, memory: { peakActivationGiB: 13.802734375 } });
    exact.model.weightsGiB = 0;
    exact.memory.nonTorchGiB = 0;
    // 1,000 blocks; a 1,000-token request needs ceil(1000 / 16) = 63 of them: 15.873x.
    const old = plan(exact, { util: 1, len: 1000 });
    expect([old.kvCacheTokens, old.maxConcurrency]).toEqual([16_000, 1000 / 63]);
    exact.vllmVersion = '0.21.0';
    exact.memory.cudaGraphGiB = 0;
    expect(plan(exact, { util: 1, len: 1000 }).kvCacheTokens).toBe(15_873);
  });

  it('the "Available KV cache memory" line prints like the release: %.2f before 0.15, format_gib after', () => {
    const p = plan(card(), {});
    expect(availableKvLine(p, '0.11.0')).toBe('Available KV cache memory: 14.10 GiB');
    expect(availableKvLine(p, '0.15.0')).toBe('Available KV cache memory: 14.1 GiB');
    const fara = BUILTIN_PROFILES['rtx-pro-6000-fara-4b-bf16'];
    const f = planKv(fara, { maxModelLen: 262144, gpuMemoryUtilization: 0.83, kvCacheDtype: 'auto', blockSize: 16 });
    expect(f.ok && availableKvLine(f.plan, fara.vllmVersion)).toBe('Available KV cache memory: 67.0 GiB');
  });
});

describe('the shipped profiles', () => {
  /** Each profile's calibrated flags (the real run's where there is one). */
  const FLAGS: Record<string, { util: number; dtype: string; len: number | 'auto' }> = {
    'rtx-pro-6000-fara-4b-bf16': { util: 0.83, dtype: 'auto', len: 262144 },
    'consumer-12gb-4b-int4': { util: 0.94, dtype: 'int4_per_token_head', len: 262144 },
    'h200-8b-bf16': { util: 0.9, dtype: 'auto', len: 'auto' },
    firehose: { util: 0.9, dtype: 'auto', len: 'auto' },
  };

  it.each(Object.keys(FLAGS))('%s: its notes show the arithmetic of its budget', (name) => {
    const p = BUILTIN_PROFILES[name];
    const f = FLAGS[name];
    const r = planKv(p, { maxModelLen: f.len, gpuMemoryUtilization: f.util, kvCacheDtype: f.dtype, blockSize: 16 });
    if (!r.ok) throw new Error(r.error.lines.join('\n'));
    expect(p.notes?.some((n) => n.endsWith(kvArithmetic(p, r.plan, f.util)))).toBe(true);
  });

  it('a packed dtype shows its bytes per head', () => {
    const c = card();
    expect(kvArithmetic(c, plan(c, { dtype: 'nvfp4' }), 0.9)).toBe(
      '24.0 GiB x 0.9 = 21.6 GiB; - 6.0 GiB weights - 1.0 GiB peak activation - 0.5 GiB non-torch = 14.1 GiB; / 41,472 B per token (36 attention layers x 8 KV heads x 144 B per head, nvfp4) = 365,059 tokens -> 22,816 blocks of 16 = 365,056 tokens',
    );
  });

  it('the 4B BF16 profile shows its arithmetic by hand', () => {
    const p = BUILTIN_PROFILES['rtx-pro-6000-fara-4b-bf16'];
    const r = planKv(p, { maxModelLen: 262144, gpuMemoryUtilization: 0.83, kvCacheDtype: 'auto', blockSize: 16 });
    expect(r.ok && kvArithmetic(p, r.plan, 0.83)).toBe(
      '95.59 GiB x 0.83 = 79.34 GiB; - 9.0 GiB weights - 1.8 GiB peak activation - 0.6 GiB non-torch - 0.94 GiB CUDA graphs = 67.0 GiB; / 32,768 B per token (8 attention layers x 4 KV heads x 2 x 256 x 2 B) = 2,195,446 tokens -> 137,215 blocks of 16 = 2,195,440 tokens',
    );
  });

  it('the consumer card at its real launch flags holds 16 x (32K + 8,192) tokens and not 64 x (8K + 4,096)', () => {
    const p = BUILTIN_PROFILES['consumer-12gb-4b-int4'];
    const r = planKv(p, {
      maxModelLen: 262144,
      gpuMemoryUtilization: 0.94,
      kvCacheDtype: 'int4_per_token_head',
      blockSize: 16,
    });
    if (!r.ok) throw new Error(r.error.lines.join('\n'));
    // The fitted budget it replaces (653,600 tokens) was 0.27% short of 655,360.
    expect(r.plan.kvCacheTokens).toBeGreaterThanOrEqual(16 * (32768 + 8192));
    expect(r.plan.kvCacheTokens).toBeLessThan(64 * (8192 + 4096));
    expect(r.plan.kvCacheTokens).toBe(721_920);
  });

  it('a profile without an architecture, or with more attention layers than layers, is refused by field', () => {
    const bad = structuredClone(BUILTIN_PROFILES['h200-8b-bf16']) as unknown as { model: Record<string, unknown> };
    delete bad.model.architecture;
    expect(checkProfile(bad, 'old.json')).toEqual({
      ok: false,
      error: expect.stringMatching(/field model\.architecture\.layers/),
    });
    const hybrid = structuredClone(BUILTIN_PROFILES['h200-8b-bf16']);
    hybrid.model.architecture.attentionLayers = 33;
    expect(checkProfile(hybrid, 'h.json')).toEqual({
      ok: false,
      error: expect.stringMatching(/field model\.architecture\.attentionLayers/),
    });
    const noPeak = structuredClone(BUILTIN_PROFILES['h200-8b-bf16']) as unknown as { memory: Record<string, unknown> };
    delete noPeak.memory.peakActivationGiB;
    expect(checkProfile(noPeak, 'm.json')).toEqual({
      ok: false,
      error: expect.stringMatching(/field memory\.peakActivationGiB/),
    });
  });
});
