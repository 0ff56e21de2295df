/**
 * Profiles: data files (profiles/*.json, documented in ../README.md) describing one GPU + model.
 * Built-in ones are imported statically so they travel inside the bundle; a path loads a user's file.
 */
import { existsSync } from 'node:fs';
import { fail, ok, type Result } from '#shared/result';
import { readTextFileSync } from '../../platform/runtime/text';
import consumer from './profiles/consumer-12gb-4b-int4.json';
import firehose from './profiles/firehose.json';
import h200 from './profiles/h200-8b-bf16.json';
import fara from './profiles/rtx-pro-6000-fara-4b-bf16.json';
import thinking from './profiles/h200-qwen3-8b-thinking.json';

export interface Profile {
  name: string;
  description: string;
  vllmVersion: string;
  /** `memoryBandwidthBytesPerSecond`: peak device memory bandwidth in bytes per second, for the KV read of a decode step. */
  gpu: { name: string; memoryGiB: number; freeGiB: number; memoryBandwidthBytesPerSecond?: number };
  model: {
    name: string;
    dtype: string;
    /** The model's own (derived) maximum: what `--max-model-len auto` means. */
    maxModelLen: number;
    /** Memory of the weights (vLLM's "Model loading took X GiB"), split over -tp GPUs. */
    weightsGiB: number;
    /** What the KV cache is made of; `--kv-cache-dtype auto` stores the model's `dtype`, as in vLLM. */
    architecture: ModelArchitecture;
  };
  /** The terms vLLM's memory profiling subtracts besides the weights, per GPU, in GiB (see kv-budget.ts). */
  memory: {
    /** Torch peak of the profiling forward pass (activations at --max-num-batched-tokens). */
    peakActivationGiB: number;
    /** Memory outside torch's allocator: CUDA context, NCCL, cuBLAS workspaces. */
    nonTorchGiB: number;
    /** CUDA graph memory, subtracted from vLLM 0.21 on (not with --enforce-eager); informational before. */
    cudaGraphGiB?: number;
  };
  /** Free text: where each figure comes from, and the KV budget's arithmetic at the calibrated flags. */
  notes?: string[];
  startup: { loadSeconds: number; graphCaptureSeconds: number };
  scheduler: { maxNumBatchedTokens: number; streamInterval: number; tokensPerStep: number };
  /**
   * API-server work before a request reaches the engine (tokenising, templating): base + per 1,000 prompt tokens.
   * Of it, `serialBaseMs + serialPerKiloTokenMs` per 1,000 tokens runs on the one API-server event loop, one request
   * at a time (why TTFT grows with concurrency); the rest overlaps (default: all of it overlaps).
   */
  frontend: { baseMs?: number; perKiloTokenMs?: number; serialBaseMs?: number; serialPerKiloTokenMs?: number };
  /**
   * [prompt tokens, seconds], ascending: TTFT of a lone request whose prompt is already in the prefix cache, as a
   * client measures it (a decode cell at concurrency 1 after its scout). Linear between points and beyond the ends.
   * It sets the frontend time (the time before the engine computes the prompt's last block); without it, the
   * frontend's baseMs + perKiloTokenMs do.
   */
  cachedPrompt?: { ttft: [number, number][] };
  /** [prompt tokens, tok/s of a lone prefill of that length, as a client measures it: frontend included], ascending. */
  prefill: { curve: [number, number][] };
  /**
   * Decode step time (see model.ts `decodeStepSeconds`): base + per sequence (+ squared) + a fitted context term
   * (`perKiloTokenMs`, `batchExponent`) + the KV read: every running request's cache read at
   * gpu.memoryBandwidthBytesPerSecond x attentionEfficiency x B / (B + attentionHalfBatch) (no KV read term without an efficiency).
   */
  decode: {
    baseMs: number;
    perSeqMs: number;
    perSeqSquaredMs: number;
    perKiloTokenMs: number;
    batchExponent: number;
    attentionEfficiency?: number;
    attentionHalfBatch?: number;
  };
  /** `reasoningTokens`: the first this many tokens of a chat answer are reasoning text (a thinking model); --sim-reasoning-tokens overrides. */
  output: { naturalMedianTokens: number; reasoningTokens?: number };
}

/** The layers that keep K and V for every token; a hybrid model's linear-attention layers keep a fixed state instead. */
export interface ModelArchitecture {
  layers: number;
  /** Layers with full attention, when fewer than `layers` (a hybrid model); default all. */
  attentionLayers?: number;
  kvHeads: number;
  headSize: number;
}

export const DEFAULT_PROFILE = 'rtx-pro-6000-fara-4b-bf16';

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Check a parsed profile; the error names the first bad field. */
export function checkProfile(raw: unknown, source: string): Result<Profile> {
  const p = raw as Profile;
  const bad = (field: string, want: string) => fail(`profile ${source}: field ${field} must be ${want}`);
  if (!p || typeof p !== 'object') return fail(`profile ${source}: not a JSON object`);
  if (typeof p.name !== 'string' || !p.name) return bad('name', 'a non-empty string');
  if (!p.gpu || !num(p.gpu.memoryGiB) || p.gpu.memoryGiB <= 0) return bad('gpu.memoryGiB', 'a number above 0');
  if (!num(p.gpu.freeGiB) || p.gpu.freeGiB > p.gpu.memoryGiB) return bad('gpu.freeGiB', 'a number up to gpu.memoryGiB');
  if (!p.model || typeof p.model.name !== 'string') return bad('model.name', 'a string');
  if (!num(p.model.maxModelLen) || p.model.maxModelLen < 16) return bad('model.maxModelLen', 'a token count');
  if (!num(p.model.weightsGiB) || p.model.weightsGiB < 0) return bad('model.weightsGiB', 'GiB (0 or more)');
  const arch = checkArchitecture(p.model.architecture);
  if (arch) return bad(`model.architecture.${arch}`, 'a whole number above 0 (attentionLayers at most layers)');
  if (!['bfloat16', 'float16', 'float32'].includes(p.model.dtype))
    return bad('model.dtype', 'bfloat16, float16 or float32 (what --kv-cache-dtype auto stores)');
  const m = p.memory;
  for (const k of ['peakActivationGiB', 'nonTorchGiB', 'cudaGraphGiB'] as const) {
    if ((k !== 'cudaGraphGiB' || m?.[k] !== undefined) && !(m && num(m[k]) && m[k] >= 0))
      return bad(`memory.${k}`, 'GiB (0 or more)');
  }
  if (p.notes !== undefined && !(Array.isArray(p.notes) && p.notes.every((n) => typeof n === 'string')))
    return bad('notes', 'a list of strings');
  if (!p.startup || !num(p.startup.loadSeconds)) return bad('startup.loadSeconds', 'seconds');
  const s = p.scheduler;
  if (!s || !(s.maxNumBatchedTokens >= 1) || !(s.streamInterval >= 1) || !(s.tokensPerStep >= 1)) {
    return bad('scheduler', '{maxNumBatchedTokens, streamInterval, tokensPerStep} each at least 1');
  }
  const c = p.prefill?.curve;
  if (
    !Array.isArray(c) ||
    c.length === 0 ||
    !c.every((pt) => Array.isArray(pt) && num(pt[0]) && num(pt[1]) && pt[1] > 0)
  ) {
    return bad('prefill.curve', 'a list of [tokens, tok/s] pairs');
  }
  for (let i = 1; i < c.length; i++)
    if (c[i][0] <= c[i - 1][0]) return bad('prefill.curve', 'sorted by tokens, ascending');
  if (p.frontend !== undefined && !p.cachedPrompt && (!num(p.frontend.baseMs) || !num(p.frontend.perKiloTokenMs))) {
    return bad('frontend', '{baseMs, perKiloTokenMs} (or give cachedPrompt.ttft)');
  }
  if (
    p.frontend &&
    [p.frontend.serialBaseMs, p.frontend.serialPerKiloTokenMs].some((v) => v !== undefined && !num(v))
  ) {
    return bad('frontend.serialBaseMs/serialPerKiloTokenMs', 'numbers');
  }
  const cached = p.cachedPrompt?.ttft;
  if (p.cachedPrompt !== undefined) {
    if (
      !Array.isArray(cached) ||
      cached.length === 0 ||
      !cached.every((pt) => Array.isArray(pt) && num(pt[0]) && num(pt[1]) && pt[1] >= 0)
    ) {
      return bad('cachedPrompt.ttft', 'a list of [tokens, seconds] pairs');
    }
    for (let i = 1; i < cached.length; i++)
      if (cached[i][0] <= cached[i - 1][0]) return bad('cachedPrompt.ttft', 'sorted by tokens, ascending');
  }
  const d = p.decode;
  for (const k of ['baseMs', 'perSeqMs', 'perSeqSquaredMs', 'perKiloTokenMs', 'batchExponent'] as const) {
    if (!d || !num(d[k])) return bad(`decode.${k}`, 'a number');
  }
  if (d.attentionEfficiency !== undefined) {
    if (!num(d.attentionEfficiency) || d.attentionEfficiency <= 0 || d.attentionEfficiency > 1)
      return bad('decode.attentionEfficiency', 'a share above 0, at most 1');
    if (!num(p.gpu.memoryBandwidthBytesPerSecond) || p.gpu.memoryBandwidthBytesPerSecond <= 0)
      return bad('gpu.memoryBandwidthBytesPerSecond', 'bytes per second above 0 (decode.attentionEfficiency needs it)');
  }
  if (d.attentionHalfBatch !== undefined && (!num(d.attentionHalfBatch) || d.attentionHalfBatch < 0))
    return bad('decode.attentionHalfBatch', 'a number of requests, 0 or more');
  if (!p.output || !(p.output.naturalMedianTokens >= 1)) return bad('output.naturalMedianTokens', 'a token count');
  const r = p.output.reasoningTokens;
  if (r !== undefined && !(Number.isInteger(r) && r >= 0))
    return bad('output.reasoningTokens', 'a token count, 0 or more');
  return ok({
    ...p,
    description: p.description ?? '',
    vllmVersion: p.vllmVersion ?? '0.11.0',
    startup: { ...p.startup, graphCaptureSeconds: p.startup.graphCaptureSeconds ?? 0 },
    frontend: p.frontend ?? { baseMs: 0, perKiloTokenMs: 0 },
  });
}

/** The built-in profiles, checked and with their defaults filled in like a user's file. */
export const BUILTIN_PROFILES: Record<string, Profile> = Object.fromEntries(
  [fara, consumer, h200, thinking, firehose].map((raw) => {
    const r = checkProfile(raw, raw.name);
    if (!r.ok) throw new Error(r.error);
    return [r.data.name, r.data];
  }),
);

/** `--sim-profile NAME|FILE`. */
export function loadProfile(nameOrFile: string): Result<Profile> {
  if (BUILTIN_PROFILES[nameOrFile]) return ok(BUILTIN_PROFILES[nameOrFile]);
  if (!existsSync(nameOrFile)) {
    return fail(
      `unknown simulator profile '${nameOrFile}': give one of ${Object.keys(BUILTIN_PROFILES).join(', ')} or the path of a profile JSON file`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readTextFileSync(nameOrFile));
  } catch (e) {
    return fail(`profile ${nameOrFile}: not valid JSON (${(e as Error).message})`);
  }
  return checkProfile(raw, nameOrFile);
}

/** The first bad field of an architecture, or undefined. */
function checkArchitecture(a: ModelArchitecture | undefined): string | undefined {
  const whole = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
  if (!a || typeof a !== 'object') return 'layers';
  for (const k of ['layers', 'kvHeads', 'headSize'] as const) if (!whole(a[k])) return k;
  if (a.attentionLayers !== undefined && !(whole(a.attentionLayers) && a.attentionLayers <= a.layers))
    return 'attentionLayers';
  return undefined;
}
