/**
 * Importing GuideLLM's benchmark report (`benchmarks.json`, a `GenerativeBenchmarksReport`) into
 * a load session with one pass per benchmark (docs/load.md, "The peers' files"). Each benchmark
 * names its scheduling strategy under `args.strategy` (`type_` synchronous, throughput,
 * concurrent, constant or poisson, with its `rate`) and keeps its figures under `metrics`, each a
 * status breakdown whose `successful` part is a distribution summary: `mean`, `median`, `count`
 * and `percentiles` (`p50`, `p90`, `p99`). Latencies ending in `_ms` are milliseconds,
 * `request_latency` is seconds. The newer layout (report `metadata.version` 2) keeps each
 * benchmark's settings under `config` (`strategy`, `profile.kind`, `backend.model` and
 * `request_format`), its counts under `metrics.request_totals`, its warm-up as `warmup_duration`
 * and an errored request's message under `info.error`.
 */
import { basename } from 'node:path';
import { keptUp } from '../../engine/bench/load-figures';
import type { CountedStats, LoadPass, LoadRateResult } from '#shared/session/schema-load';
import type { Session } from '#shared/session/schema';
import { type Result, fail, ok } from '#shared/result';
import { fileTime, importedLoadSession, isObject, type Json, num } from './load-import';

/** A report: a list of benchmarks, at least one of them generative. */
export function looksLikeGuidellm(doc: unknown): doc is Json {
  return (
    isObject(doc) &&
    Array.isArray(doc.benchmarks) &&
    doc.benchmarks.some((b) => isObject(b) && b.type_ === 'generative_benchmark')
  );
}

const obj = (v: unknown): Json => (isObject(v) ? v : {});

/** The successful requests' summary of one metric. */
const successful = (metrics: Json, key: string): Json => obj(obj(metrics[key]).successful);

const mean = (metrics: Json, key: string): number | null => num(successful(metrics, key).mean);

/** A latency metric in seconds (`per` of its units in a second); null when it counts no request or lacks a percentile. */
function stats(metrics: Json, key: string, per: number): CountedStats | null {
  const s = successful(metrics, key);
  const p = obj(s.percentiles);
  const values = [s.mean, p.p50 ?? s.median, p.p90, p.p99].map(num);
  const count = num(s.count);
  if (!count || values.some((v) => v === null)) return null;
  const [m, p50, p90, p99] = values as number[];
  return { mean: m / per, p50: p50 / per, p90: p90 / per, p99: p99 / per, count };
}

const PASS: Record<string, LoadPass> = {
  synchronous: 'synchronous',
  throughput: 'throughput',
  // A fixed number of streams is a closed loop, as the throughput pass is, capped at `streams`.
  concurrent: 'throughput',
  constant: 'rate',
  poisson: 'rate',
};

const strategyOf = (b: Json): Json => obj(obj(b.args ?? b.config).strategy);

/** A request's error: `error`, or in the newer layout `info.error`. */
const errorOf = (r: unknown): string | null => {
  const e = isObject(r) ? (r.error ?? obj(r.info).error) : null;
  return typeof e === 'string' ? e : null;
};

function firstError(b: Json): string | null {
  const errored = obj(b.requests).errored;
  return (Array.isArray(errored) ? errored.map(errorOf).find((e) => e !== null) : null) ?? null;
}

/** The backend a benchmark ran against: the older `worker`, or the newer `config.backend`. */
function modelOf(b: Json): string | null {
  const model = obj(b.worker).backend_model ?? obj(obj(b.config).backend).model;
  return typeof model === 'string' && model ? model : null;
}

function resultOf(b: Json): LoadRateResult | null {
  const metrics = obj(b.metrics);
  const strategy = strategyOf(b);
  const pass = PASS[String(strategy.type_)];
  if (!pass) return null;
  const counts = obj(b.total_count ?? b.request_totals ?? metrics.request_totals);
  const completed = Math.round(num(counts.successful) ?? 0);
  const errors = Math.round(num(counts.errored) ?? 0);
  const unfinished = Math.round(num(counts.incomplete) ?? 0);
  const start = num(b.start_time);
  const duration = num(b.duration) ?? (start !== null ? (num(b.end_time) ?? start) - start : 0);
  const target = pass === 'rate' ? num(strategy.rate) : null;
  const achieved = mean(metrics, 'requests_per_second') ?? (duration > 0 ? completed / duration : 0);
  const verdict = keptUp(target, achieved, 0, null);
  const concurrency = num(successful(metrics, 'request_concurrency').max);
  return {
    pass,
    targetRate: target,
    offeredRate: target ?? (duration > 0 ? (completed + errors + unfinished) / duration : 0),
    achievedRate: achieved,
    outputTokensPerSecond: mean(metrics, 'output_tokens_per_second') ?? 0,
    totalTokensPerSecond: mean(metrics, 'tokens_per_second') ?? 0,
    ttft: stats(metrics, 'time_to_first_token_ms', 1000),
    timeBetweenTokens: stats(metrics, 'inter_token_latency_ms', 1000),
    e2e: stats(metrics, 'request_latency', 1),
    requests: completed + errors + unfinished,
    completed,
    errors,
    unfinished,
    firstError: firstError(b),
    meanInputTokens: mean(metrics, 'prompt_token_count'),
    meanOutputTokens: mean(metrics, 'output_token_count'),
    maxInFlight: Math.round(concurrency ?? num(strategy.streams) ?? 0),
    heldBack: 0,
    queue: null,
    keptUp: verdict.keptUp,
    keptUpReason: verdict.reason,
    goodput: null,
    sloShare: null,
    windowSeconds: duration,
    startedAt: start === null ? '' : new Date(start * 1000).toISOString(),
  };
}

/** Whether the benchmarks sent chat or text completions, as their backend or their requests say. */
function endpointOf(benchmarks: Json[]): 'chat' | 'completions' {
  const format = obj(obj(benchmarks[0]?.config).backend).request_format;
  if (typeof format === 'string') return format === '/v1/completions' ? 'completions' : 'chat';
  for (const b of benchmarks) {
    const requests = obj(b.requests);
    for (const list of [requests.successful, requests.errored, requests.incomplete]) {
      const r = Array.isArray(list) ? list.find(isObject) : undefined;
      if (r) return (r as Json).request_type === 'text_completions' ? 'completions' : 'chat';
    }
  }
  return 'chat';
}

export function importGuidellm(doc: Json, file: string): Result<Session> {
  const name = basename(file);
  const benchmarks = (doc.benchmarks as unknown[]).filter(
    (b): b is Json => isObject(b) && b.type_ === 'generative_benchmark',
  );
  const results = benchmarks.map(resultOf);
  const unknown = results.findIndex((r) => r === null);
  if (unknown >= 0)
    return fail(
      `${name}: benchmark ${unknown + 1} has a scheduling strategy SpeedMatrix does not know ("${String(strategyOf(benchmarks[unknown]).type_)}"); GuideLLM's are synchronous, throughput, concurrent, constant and poisson.`,
    );
  const passes = results as LoadRateResult[];
  const noTtft = passes.findIndex((r) => r.ttft === null);
  if (noTtft >= 0)
    return fail(
      `${name}: benchmark ${noTtft + 1} has no time_to_first_token_ms summary of successful requests (mean, percentiles p50, p90, p99 and count); save the report from a streaming run.`,
    );
  const first = benchmarks[0];
  const args = obj(first.args ?? first.config);
  const strategies = benchmarks.map((b) => String(strategyOf(b).type_));
  // The newer layout states its version in the report's metadata; the older one does not.
  const version = obj(doc.metadata).guidellm_version;
  const session = importedLoadSession({
    origin: { kind: 'imported-guidellm', file: name },
    model: modelOf(first),
    engineName: 'unknown',
    tool: typeof version === 'string' ? `GuideLLM ${version}` : 'GuideLLM',
    measuredAt: fileTime(first.start_time),
    result: passes[0],
    config: {
      sweep: [obj(args.profile).type_, obj(args.profile).kind].includes('sweep')
        ? { points: passes.filter((r) => r.pass === 'rate').length }
        : null,
      arrivals: strategies.includes('poisson') ? { kind: 'poisson' } : { kind: 'constant' },
      warmupSeconds: num(args.warmup_duration) ?? num(first.warmup_duration) ?? 0,
      endpoint: endpointOf(benchmarks),
    },
  });
  const load = session.load!;
  const rates = passes.flatMap((r) => (r.targetRate === null ? [] : [r.targetRate]));
  return ok({ ...session, load: { ...load, config: { ...load.config, rates }, results: passes } });
}
