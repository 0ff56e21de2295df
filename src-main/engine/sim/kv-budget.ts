/**
 * The KV cache budget worked out as vLLM does at startup, from the profile's architecture and memory terms:
 * `determine_available_memory` (vllm/v1/worker/gpu_worker.py), page sizes (vllm/v1/kv_cache_interface.py) and
 * blocks (vllm/v1/core/kv_cache_utils.py). The formula is in ../README.md ("KV cache budget").
 */
import { olderThan } from '../server/flag-versions';
import { thousands } from './logs';
import type { Profile } from './profile';

const GiB = 1024 ** 3;

/** Per-token-head quantization keeps one float32 scale per token and KV head, for K and for V. */
const SCALE_BYTES = 4;

/** TurboQuant's key and value bits (vllm/model_executor/layers/quantization/turboquant/config.py). */
const TURBOQUANT_BITS: Record<string, [number, number]> = {
  turboquant_k8v4: [8, 4],
  turboquant_4bit_nc: [4, 4],
  turboquant_k3v4_nc: [3, 4],
  turboquant_3bit_nc: [3, 3],
};

/** Bits of one stored element for a dtype name: 16 for bfloat16, 8 for fp8* and int8*, 4 for int4*. */
function elementBits(dtype: string): number | undefined {
  if (dtype === 'bfloat16' || dtype === 'float16') return 16;
  if (dtype === 'float32') return 32;
  const m = /^(?:fp|int|mxfp)(\d+)/.exec(dtype);
  return m ? Number(m[1]) : undefined;
}

/** TurboQuant slot: packed key (fp8, or MSE indices + fp16 norm) + packed value + fp16 scale and zero, even. */
function turboquantSlotBytes(keyBits: number, valueBits: number, headSize: number): number {
  const key = keyBits === 8 ? headSize : Math.ceil((headSize * keyBits) / 8) + 2;
  const slot = key + Math.ceil((headSize * valueBits) / 8) + 4;
  return slot + (slot % 2);
}

/**
 * Bytes one token's K and V take in one attention layer with `kvHeads` heads of `headSize` (vLLM's page size
 * over its block size). Per-token-head dtypes add their scales (int4_per_token_head, newer than the vLLM read
 * here, is taken like int8_per_token_head with 4-bit elements); undefined for a dtype vLLM has no layout for.
 */
export function kvLayerBytesPerToken(dtype: string, kvHeads: number, headSize: number): number | undefined {
  const tq = TURBOQUANT_BITS[dtype];
  if (tq) return kvHeads * turboquantSlotBytes(tq[0], tq[1], headSize);
  // NVFP4: 4-bit data plus one fp8 scale per 16 elements (nvfp4_kv_cache_full_dim).
  if (dtype === 'nvfp4') return 2 * kvHeads * (Math.floor(headSize / 2) + Math.floor(headSize / 16));
  const bits = elementBits(dtype);
  if (bits === undefined) return undefined;
  const scales = dtype.endsWith('_per_token_head') ? 2 * kvHeads * SCALE_BYTES : 0;
  return (2 * kvHeads * headSize * bits) / 8 + scales;
}

/** What `--kv-cache-dtype` stores: `auto` is the model's dtype, as in vLLM. */
export const resolveKvDtype = (profile: Profile, kvCacheDtype: string): string =>
  kvCacheDtype === 'auto' ? profile.model.dtype : kvCacheDtype;

/**
 * Bytes of KV cache per token over all attention layers with `--kv-cache-dtype` (what a decode step reads per
 * token held). With tensor parallelism each rank holds max(1, KV heads / N) heads of it.
 */
export function kvBytesPerToken(profile: Profile, kvCacheDtype = 'auto', tensorParallelSize = 1): number {
  const a = profile.model.architecture;
  const heads = Math.max(1, Math.floor(a.kvHeads / tensorParallelSize));
  const dtype = resolveKvDtype(profile, kvCacheDtype);
  const perLayer =
    kvLayerBytesPerToken(dtype, heads, a.headSize) ?? kvLayerBytesPerToken(profile.model.dtype, heads, a.headSize)!;
  return (a.attentionLayers ?? a.layers) * perLayer;
}

interface KvPlanInput {
  maxModelLen: number | 'auto';
  gpuMemoryUtilization: number;
  kvCacheDtype: string;
  blockSize: number;
  /** -tp: that many GPUs of the profile's kind, each with its share of weights and KV heads. Default 1. */
  tensorParallelSize?: number;
  /** --enforce-eager: no CUDA graphs, so none of their memory is reserved. */
  enforceEager?: boolean;
}

/** The memory terms of one GPU, in bytes, as `determine_available_memory` takes them. */
interface KvMemory {
  total: number;
  /** ceil(total x --gpu-memory-utilization). */
  requested: number;
  weights: number;
  peakActivation: number;
  nonTorch: number;
  /** 0 where the vLLM release does not reserve it (before 0.21) or with --enforce-eager. */
  cudaGraph: number;
  /** requested - weights - peak activation - non-torch - CUDA graphs. */
  available: number;
}

export interface KvPlan {
  maxModelLen: number;
  cacheDtype: string;
  /** KV bytes per token over all attention layers, whole model (the decode KV read). */
  bytesPerToken: number;
  /** KV bytes per token on one GPU (its share of the KV heads). */
  rankBytesPerToken: number;
  memory: KvMemory;
  numGpuBlocks: number;
  blockSize: number;
  /** vLLM's "GPU KV cache size" tokens (num_gpu_blocks x block_size for full attention). */
  kvCacheTokens: number;
  /** num_gpu_blocks / blocks one request of max model len needs. */
  maxConcurrency: number;
}

/** A startup failure, in vLLM's words: `lines` are printed, then the engine gives up. */
interface KvPlanError {
  lines: string[];
}

const fmtGiB = (bytes: number): string => (bytes / GiB).toFixed(2);

/** vLLM 0.21 and later subtract the profiled CUDA graph memory (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, on by default). */
const reservesCudaGraphs = (version: string): boolean => !olderThan(version, '0.21.0');

function kvMemory(profile: Profile, input: KvPlanInput): KvMemory {
  const tp = input.tensorParallelSize ?? 1;
  const bytes = (gib: number) => Math.round(gib * GiB);
  const m = profile.memory;
  const total = bytes(profile.gpu.memoryGiB);
  const requested = Math.ceil(total * input.gpuMemoryUtilization);
  const weights = Math.round(bytes(profile.model.weightsGiB) / tp);
  const cudaGraph = reservesCudaGraphs(profile.vllmVersion) && !input.enforceEager ? bytes(m.cudaGraphGiB ?? 0) : 0;
  const [peakActivation, nonTorch] = [bytes(m.peakActivationGiB), bytes(m.nonTorchGiB)];
  const available = requested - weights - peakActivation - nonTorch - cudaGraph;
  return { total, requested, weights, peakActivation, nonTorch, cudaGraph, available };
}

/** vLLM's "GPU KV cache size": blocks x block size, from 0.21 int(max concurrency x max model len). */
const kvCacheTokens = (version: string, blocks: number, blockSize: number, concurrency: number, len: number) =>
  olderThan(version, '0.21.0') ? blocks * blockSize : Math.floor(concurrency * len);

/** Work out the KV cache the way vLLM does (per GPU), or the error vLLM would print. */
export function planKv(
  profile: Profile,
  input: KvPlanInput,
): { ok: true; plan: KvPlan } | { ok: false; error: KvPlanError } {
  const derived = profile.model.maxModelLen;
  const maxModelLen = input.maxModelLen === 'auto' ? derived : input.maxModelLen;
  const err = (...lines: string[]) => ({ ok: false as const, error: { lines } });
  if (maxModelLen > derived) {
    return err(
      `ValueError: User-specified max_model_len (${maxModelLen}) is greater than the derived max_model_len (max_position_embeddings=${derived} or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution.`,
    );
  }
  const tp = input.tensorParallelSize ?? 1;
  const mem = kvMemory(profile, input);
  const free = Math.round(profile.gpu.freeGiB * GiB);
  if (mem.requested > free) {
    return err(
      `ValueError: Free memory on device (${fmtGiB(free)}/${fmtGiB(mem.total)} GiB) on startup is less than desired GPU memory utilization (${input.gpuMemoryUtilization}, ${fmtGiB(mem.requested)} GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.`,
    );
  }
  if (mem.weights > mem.requested) {
    return err(
      `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ${fmtGiB(mem.weights - mem.requested)} GiB. GPU 0 has a total capacity of ${fmtGiB(mem.total)} GiB of which ${fmtGiB(free - mem.requested)} GiB is free. Including non-PyTorch memory, this process has ${fmtGiB(mem.requested)} GiB memory in use.`,
    );
  }
  const rankBytesPerToken = kvBytesPerToken(profile, input.kvCacheDtype, tp);
  const numGpuBlocks = Math.max(0, Math.floor(mem.available / (rankBytesPerToken * input.blockSize)));
  if (numGpuBlocks === 0) {
    return err(
      'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.',
    );
  }
  const blocksPerRequest = Math.ceil(maxModelLen / input.blockSize);
  if (blocksPerRequest * input.blockSize * rankBytesPerToken > mem.available) {
    const needGiB = fmtGiB(blocksPerRequest * input.blockSize * rankBytesPerToken);
    return err(
      `ValueError: To serve at least one request with the models's max seq len (${maxModelLen}), (${needGiB} GiB KV cache is needed, which is larger than the available KV cache memory (${fmtGiB(mem.available)} GiB). Based on the available memory, the estimated maximum model length is ${numGpuBlocks * input.blockSize}. Try increasing \`gpu_memory_utilization\` or decreasing \`max_model_len\` when initializing the engine.`,
    );
  }
  const maxConcurrency = numGpuBlocks / blocksPerRequest;
  return {
    ok: true,
    plan: {
      maxModelLen,
      cacheDtype: input.kvCacheDtype,
      bytesPerToken: kvBytesPerToken(profile, input.kvCacheDtype),
      rankBytesPerToken,
      memory: mem,
      numGpuBlocks,
      blockSize: input.blockSize,
      kvCacheTokens: kvCacheTokens(profile.vllmVersion, numGpuBlocks, input.blockSize, maxConcurrency, maxModelLen),
      maxConcurrency,
    },
  };
}

/** GiB as vLLM's format_gib prints them: Python's str(round(x, 2)), so "67.0" and "7.48". */
export function formatGib(bytes: number): string {
  const r = Math.round((bytes / GiB) * 100) / 100;
  return Number.isInteger(r) ? r.toFixed(1) : String(r);
}

/** vLLM's "Available KV cache memory" line: "%.2f" before 0.15 (January 2026), format_gib's "%s" after. */
export function availableKvLine(plan: KvPlan, version: string): string {
  const gib = olderThan(version, '0.15.0') ? fmtGiB(plan.memory.available) : formatGib(plan.memory.available);
  return `Available KV cache memory: ${gib} GiB`;
}

/** How one token's bytes come about, for the notes: "8 attention layers x 4 KV heads x 2 x 256 x 2 B" (K and V). */
function bytesPerTokenWords(profile: Profile, dtype: string): string {
  const a = profile.model.architecture;
  const n = a.attentionLayers ?? a.layers;
  const layers = `${n} attention layer${n === 1 ? '' : 's'} x ${a.kvHeads} KV head${a.kvHeads === 1 ? '' : 's'}`;
  const bits = elementBits(dtype);
  // Packed layouts (nvfp4, turboquant_*) have no plain element size.
  if (bits === undefined) {
    return `${layers} x ${kvLayerBytesPerToken(dtype, 1, a.headSize)} B per head, ${dtype}`;
  }
  const element = `${a.headSize} x ${bits / 8} B`;
  return dtype.endsWith('_per_token_head')
    ? `${layers} x 2 x (${element} + ${SCALE_BYTES} B scale)`
    : `${layers} x 2 x ${element}`;
}

/**
 * The arithmetic of a plan in words, as the profiles' notes show it: "95.59 GiB x 0.83 = 79.34 GiB; - 9.0 GiB
 * weights - ... = 67.0 GiB; / 32,768 B per token (...) = 2,195,454 tokens -> 137,215 blocks of 16 = 2,195,440 tokens".
 */
export function kvArithmetic(profile: Profile, plan: KvPlan, gpuMemoryUtilization: number): string {
  const m = plan.memory;
  const terms: Array<[number, string]> = [
    [m.weights, 'weights'],
    [m.peakActivation, 'peak activation'],
    [m.nonTorch, 'non-torch'],
    [m.cudaGraph, 'CUDA graphs'],
  ];
  const minus = terms
    .filter(([b]) => b > 0)
    .map(([b, what]) => `- ${formatGib(b)} GiB ${what}`)
    .join(' ');
  const dtype = resolveKvDtype(profile, plan.cacheDtype);
  const tokens = Math.floor(m.available / plan.rankBytesPerToken);
  return (
    `${formatGib(m.total)} GiB x ${gpuMemoryUtilization} = ${formatGib(m.requested)} GiB; ${minus} = ${formatGib(m.available)} GiB; ` +
    `/ ${thousands(plan.rankBytesPerToken)} B per token (${bytesPerTokenWords(profile, dtype)}) = ${thousands(tokens)} tokens ` +
    `-> ${thousands(plan.numGpuBlocks)} blocks of ${plan.blockSize} = ${thousands(plan.kvCacheTokens)} tokens`
  );
}
