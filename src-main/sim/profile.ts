/**
 * Profiles: data files (profiles/*.json, documented in ../README.md) describing one GPU + model.
 * Built-in ones are imported statically so they travel inside the bundle; a path loads a user's file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fail, ok, type Result } from '../runtime/result';
import consumer from './profiles/consumer-12gb-4b-int4.json';
import firehose from './profiles/firehose.json';
import h200 from './profiles/h200-8b-bf16.json';
import fara from './profiles/rtx-pro-6000-fara-4b-bf16.json';

export interface Profile {
  name: string;
  description: string;
  vllmVersion: string;
  gpu: { name: string; memoryGiB: number; freeGiB: number };
  model: {
    name: string;
    dtype: string;
    /** The model's own (derived) maximum: what `--max-model-len auto` means. */
    maxModelLen: number;
    weightsGiB: number;
    /** K and V elements stored per token over all attention layers: 2 x layers x KV heads x head dim. */
    kvElementsPerToken: number;
    /** What `--kv-cache-dtype auto` resolves to. */
    kvAutoDtype: string;
  };
  /** Activations, CUDA graphs, non-torch memory: everything but weights and KV, in GiB. */
  memory: { nonKvGiB: number };
  startup: { loadSeconds: number; graphCaptureSeconds: number };
  scheduler: { maxNumBatchedTokens: number; streamInterval: number; tokensPerStep: number };
  /**
   * API-server work before a request reaches the engine (tokenising, templating): base + per 1,000 prompt tokens.
   * Of it, `serialBaseMs + serialPerKiloTokenMs` per 1,000 tokens runs on the one API-server event loop, one request
   * at a time (why TTFT grows with concurrency); the rest overlaps (default: all of it overlaps).
   */
  frontend: { baseMs: number; perKiloTokenMs: number; serialBaseMs?: number; serialPerKiloTokenMs?: number };
  /** [prompt tokens, tok/s of a lone prefill of that length, as a client measures it: frontend included], ascending. */
  prefill: { curve: [number, number][] };
  decode: { baseMs: number; perSeqMs: number; perSeqSquaredMs: number; perKiloTokenMs: number; batchExponent: number };
  output: { naturalMedianTokens: number };
}

export const BUILTIN_PROFILES: Record<string, Profile> = Object.fromEntries(
  [fara, consumer, h200, firehose].map((p) => [p.name, p as Profile]),
);
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
  if (!num(p.model.kvElementsPerToken) || p.model.kvElementsPerToken <= 0) return bad('model.kvElementsPerToken', 'a number above 0');
  if (kvDtypeBytes(p.model.kvAutoDtype ?? '') === undefined) return bad('model.kvAutoDtype', 'bfloat16, float16, fp8 or int4');
  if (!p.memory || !num(p.memory.nonKvGiB)) return bad('memory.nonKvGiB', 'GiB');
  if (!p.startup || !num(p.startup.loadSeconds)) return bad('startup.loadSeconds', 'seconds');
  const s = p.scheduler;
  if (!s || !(s.maxNumBatchedTokens >= 1) || !(s.streamInterval >= 1) || !(s.tokensPerStep >= 1)) {
    return bad('scheduler', '{maxNumBatchedTokens, streamInterval, tokensPerStep} each at least 1');
  }
  const c = p.prefill?.curve;
  if (!Array.isArray(c) || c.length === 0 || !c.every((pt) => Array.isArray(pt) && num(pt[0]) && num(pt[1]) && pt[1] > 0)) {
    return bad('prefill.curve', 'a list of [tokens, tok/s] pairs');
  }
  for (let i = 1; i < c.length; i++) if (c[i][0] <= c[i - 1][0]) return bad('prefill.curve', 'sorted by tokens, ascending');
  if (p.frontend !== undefined && (!num(p.frontend.baseMs) || !num(p.frontend.perKiloTokenMs))) return bad('frontend', '{baseMs, perKiloTokenMs}');
  if (p.frontend && [p.frontend.serialBaseMs, p.frontend.serialPerKiloTokenMs].some((v) => v !== undefined && !num(v))) {
    return bad('frontend.serialBaseMs/serialPerKiloTokenMs', 'numbers');
  }
  const d = p.decode;
  for (const k of ['baseMs', 'perSeqMs', 'perSeqSquaredMs', 'perKiloTokenMs', 'batchExponent'] as const) {
    if (!d || !num(d[k])) return bad(`decode.${k}`, 'a number');
  }
  if (!p.output || !(p.output.naturalMedianTokens >= 1)) return bad('output.naturalMedianTokens', 'a token count');
  return ok({
    ...p,
    description: p.description ?? '',
    vllmVersion: p.vllmVersion ?? '0.11.0',
    startup: { ...p.startup, graphCaptureSeconds: p.startup.graphCaptureSeconds ?? 0 },
    frontend: p.frontend ?? { baseMs: 0, perKiloTokenMs: 0 },
  });
}

/** `--sim-profile NAME|FILE`. */
export function loadProfile(nameOrFile: string): Result<Profile> {
  if (BUILTIN_PROFILES[nameOrFile]) return ok(BUILTIN_PROFILES[nameOrFile]);
  if (!existsSync(nameOrFile)) {
    return fail(`unknown simulator profile '${nameOrFile}': give one of ${Object.keys(BUILTIN_PROFILES).join(', ')} or the path of a profile JSON file`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(nameOrFile, 'utf8'));
  } catch (e) {
    return fail(`profile ${nameOrFile}: not valid JSON (${(e as Error).message})`);
  }
  return checkProfile(raw, nameOrFile);
}

/** Bytes per stored K/V element for a `--kv-cache-dtype` value (auto resolved by the caller). */
export function kvDtypeBytes(dtype: string): number | undefined {
  if (dtype === 'bfloat16' || dtype === 'float16' || dtype === 'half') return 2;
  if (dtype === 'float32') return 4;
  if (dtype.startsWith('fp8') || dtype.startsWith('int8')) return 1;
  if (dtype === 'int4' || dtype.startsWith('int4_') || dtype === 'nvfp4' || dtype === 'turboquant_4bit_nc') return 0.5;
  if (dtype === 'turboquant_k8v4') return 0.75;
  if (dtype === 'turboquant_k3v4_nc') return 0.4375;
  if (dtype === 'turboquant_3bit_nc') return 0.375;
  return undefined;
}
