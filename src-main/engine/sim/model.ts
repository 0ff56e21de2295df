/**
 * The performance model, pure functions of a profile: KV budget, prefill time from a
 * throughput curve, decode step time from batch size and total context, and `predict`.
 */
import { kvBytesPerToken, planKv } from './kv-budget';
import type { Profile } from './profile';

/** Mean seconds per token of a lone prefill of n tokens: linear between curve points, flat below the first. */
function secondsPerToken(profile: Profile, n: number): number {
  const c = profile.prefill.curve;
  if (n <= c[0][0] || c.length === 1) return 1 / c[0][1];
  let i = 1;
  while (i < c.length - 1 && c[i][0] < n) i++;
  const [x0, t0] = c[i - 1];
  const [x1, t1] = c[i];
  const s0 = 1 / t0;
  const s1 = 1 / t1;
  return Math.max(s0 + ((s1 - s0) * (n - x0)) / (x1 - x0), 1e-12);
}

/** The profile's TTFT of a lone cached prompt of n tokens (linear between its points and beyond), if it states one. */
function statedCachedTtftSeconds(profile: Profile, n: number): number | undefined {
  const c = profile.cachedPrompt?.ttft;
  if (!c) return undefined;
  if (c.length === 1) return c[0][1];
  let i = 1;
  while (i < c.length - 1 && c[i][0] < n) i++;
  const [x0, y0] = c[i - 1];
  const [x1, y1] = c[i];
  return Math.max(0, y0 + ((y1 - y0) * (n - x0)) / (x1 - x0));
}

/**
 * Seconds of work before a prompt of n tokens reaches the engine (API server: tokenising, templating). With the
 * profile's cached-prompt TTFT, it is that TTFT less the curve's time for the last block, which a cached prompt
 * still computes; else the frontend's base + per 1,000 tokens.
 */
export function frontendSeconds(profile: Profile, n: number): number {
  const stated = statedCachedTtftSeconds(profile, n);
  const f = profile.frontend;
  if (stated === undefined) return ((f.baseMs ?? 0) + ((f.perKiloTokenMs ?? 0) * n) / 1000) / 1000;
  const last = Math.min(n, 16);
  return Math.max(0, stated - (n * secondsPerToken(profile, n) - (n - last) * secondsPerToken(profile, n - last)));
}

/** The part of the frontend that runs on the one API-server event loop, one request at a time (<= the whole). */
export function frontendSerialSeconds(profile: Profile, n: number): number {
  const f = profile.frontend;
  const ms = (f.serialBaseMs ?? 0) + ((f.serialPerKiloTokenMs ?? 0) * n) / 1000;
  return Math.min(ms / 1000, frontendSeconds(profile, n));
}

/**
 * Seconds of engine time to prefill tokens [from, to) of a prompt: the difference of the cumulative
 * curve, less the frontend share, so that frontend + prefill of a lone prompt is the curve's TTFT.
 */
export function prefillSeconds(profile: Profile, from: number, to: number): number {
  if (to <= from) return 0;
  const t = (n: number) => (n <= 0 ? 0 : Math.max(0, n * secondsPerToken(profile, n) - frontendSeconds(profile, n)));
  return Math.max(0, t(to) - t(from));
}

/**
 * Seconds one decode step spends reading the KV cache of `batch` sequences holding `totalContext` tokens together:
 * on a memory-bound card every running request's cache is read once per step, at the card's bandwidth times the
 * attention kernel's efficiency, which a small batch cannot reach (B / (B + halfBatch) of it).
 */
export function kvReadSeconds(
  profile: Profile,
  batch: number,
  totalContext: number,
  bytesPerToken = kvBytesPerToken(profile),
): number {
  const eff = profile.decode.attentionEfficiency;
  const bandwidth = profile.gpu.memoryBandwidthBytesPerSecond;
  if (!eff || !bandwidth || batch <= 0) return 0;
  const reached = eff * (batch / (batch + (profile.decode.attentionHalfBatch ?? 0)));
  return (totalContext * bytesPerToken) / (bandwidth * reached);
}

/**
 * Seconds of one decode step for `batch` sequences holding `totalContext` tokens of KV together: a fitted part
 * (weights, per-sequence work, and an empirical context term) plus the KV read (`kvReadSeconds`).
 */
export function decodeStepSeconds(
  profile: Profile,
  batch: number,
  totalContext: number,
  bytesPerToken = kvBytesPerToken(profile),
): number {
  if (batch <= 0) return 0;
  const d = profile.decode;
  const ms =
    d.baseMs +
    d.perSeqMs * batch +
    d.perSeqSquaredMs * batch * batch +
    d.perKiloTokenMs * (totalContext / 1000) * batch ** d.batchExponent;
  return ms / 1000 + kvReadSeconds(profile, batch, totalContext, bytesPerToken);
}

interface PredictOptions {
  /** Output tokens per request in sustained decode (default 4096): a request holds context + half of it on average. */
  maxOutput?: number;
  /** KV budget in tokens; default: planKv at the profile's own max model len, utilization 0.9, auto dtype. */
  kvBudgetTokens?: number;
  /** `--kv-cache-dtype` (default auto): the bytes each decode step reads per token held. */
  kvCacheDtype?: string;
}

interface Prediction {
  /** Lone prefill of `context` tokens. */
  prefillTokPerSec: number;
  ttftSeconds: number;
  /** TTFT of a lone request whose prompt is already cached (a decode cell after the scout). */
  cachedTtftSeconds: number;
  /** Median TTFT of `concurrency` cached-prompt requests sent together (a decode cell's TTFT). */
  concurrentCachedTtftSeconds: number;
  /** Steady decode with `concurrency` requests at `context`. */
  decodeStepSeconds: number;
  decodeTotalTokPerSec: number;
  decodePerRequestTokPerSec: number;
  kvBudgetTokens: number;
  /** concurrency x (context + maxOutput) <= budget. */
  fits: boolean;
}

/** Predicted figures of one matrix cell, without running anything. */
export function predict(profile: Profile, context: number, concurrency: number, opts: PredictOptions = {}): Prediction {
  const maxOutput = opts.maxOutput ?? 4096;
  let budget = opts.kvBudgetTokens;
  if (budget === undefined) {
    const r = planKv(profile, {
      maxModelLen: 'auto',
      gpuMemoryUtilization: 0.9,
      kvCacheDtype: opts.kvCacheDtype ?? 'auto',
      blockSize: 16,
    });
    budget = r.ok ? r.plan.kvCacheTokens : 0;
  }
  const n = Math.max(1, context);
  const ttft = frontendSeconds(profile, n) + prefillSeconds(profile, 0, n);
  const step = decodeStepSeconds(
    profile,
    concurrency,
    concurrency * (context + maxOutput / 2),
    kvBytesPerToken(profile, opts.kvCacheDtype),
  );
  const perStep = profile.scheduler.tokensPerStep;
  const total = step > 0 ? (concurrency * perStep) / step : Infinity;
  return {
    prefillTokPerSec: context > 0 ? context / ttft : 0,
    ttftSeconds: ttft,
    cachedTtftSeconds: frontendSeconds(profile, n) + prefillSeconds(profile, Math.max(0, n - 16), n),
    concurrentCachedTtftSeconds: concurrentCachedTtft(profile, n, concurrency),
    decodeStepSeconds: step,
    decodeTotalTokPerSec: total,
    decodePerRequestTokPerSec: total / concurrency,
    kvBudgetTokens: budget,
    fits: concurrency * (context + maxOutput) <= budget,
  };
}

/**
 * Median TTFT of c requests with the same cached n-token prompt, sent together: request i leaves the API-server
 * loop after (i + 1) serial shares, reaches the engine after the overlapping rest, then waits for the running
 * step to end (half a step on average) and for the step that computes its last prompt token and first token.
 */
function concurrentCachedTtft(profile: Profile, n: number, c: number): number {
  const serial = frontendSerialSeconds(profile, n);
  const rest = frontendSeconds(profile, n) - serial;
  const last = prefillSeconds(profile, Math.max(0, n - 16), n);
  const ttfts: number[] = [];
  for (let i = 0; i < c; i++) {
    const step = decodeStepSeconds(profile, i, i * n);
    ttfts.push((i + 1) * serial + rest + 1.5 * step + last);
  }
  return ttfts[Math.floor((c - 1) / 2)];
}
