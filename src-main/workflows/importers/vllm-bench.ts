/**
 * Importing `vllm bench serve --save-result` JSON (vllm/benchmarks/serve.py) into a load session
 * of one pass (docs/load.md): read by its field names (`request_rate`, `request_throughput`,
 * `output_throughput`, `total_token_throughput`, per-request `ttfts`, `itls`, `output_lens`,
 * `errors`, and the `*_ttft_ms`-style summaries when the per-request lists are absent).
 */
import { basename } from 'node:path';
import { countedStats, keptUp } from '../../engine/bench/load-figures';
import type { CountedStats, LoadRateResult } from '#shared/session/schema-load';
import type { Session } from '#shared/session/schema';
import { type Result, fail, ok } from '#shared/result';
import { fileTime, importedLoadSession, isObject, type Json, num } from './load-import';

const numbers = (v: unknown): number[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : null;

/** vLLM's result: request and token throughputs beside a duration and a completed count. */
export function looksLikeVllmBench(doc: unknown): doc is Json {
  return (
    isObject(doc) &&
    num(doc.request_throughput) !== null &&
    num(doc.output_throughput) !== null &&
    num(doc.duration) !== null &&
    num(doc.completed) !== null
  );
}

/** A summary from the `mean_X_ms`, `median_X_ms`, `p90_X_ms`, `p99_X_ms` fields; null without all of them. */
function summary(doc: Json, metric: string, count: number): CountedStats | null {
  const ms = (key: string) => num(doc[`${key}_${metric}_ms`]);
  const [mean, p50, p90, p99] = [ms('mean'), ms('median') ?? ms('p50'), ms('p90'), ms('p99')];
  if (mean === null || p50 === null || p90 === null || p99 === null) return null;
  return { mean: mean / 1000, p50: p50 / 1000, p90: p90 / 1000, p99: p99 / 1000, count };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** TTFT, TBT and end-to-end latency of each successful request from the per-request lists (seconds). */
function perRequest(doc: Json): { ttft: number[]; tbt: number[]; e2e: number[] } | null {
  const ttfts = numbers(doc.ttfts);
  const itls = Array.isArray(doc.itls) ? (doc.itls as unknown[]).map(numbers) : null;
  if (!ttfts || !itls || itls.length !== ttfts.length || itls.some((x) => x === null)) return null;
  const errors = Array.isArray(doc.errors) ? (doc.errors as unknown[]) : [];
  const ok = ttfts.map((_, i) => !(typeof errors[i] === 'string' && (errors[i] as string) !== ''));
  const gaps = itls as number[][];
  const pick = (f: (i: number) => number) => ttfts.map((_, i) => f(i)).filter((_, i) => ok[i]);
  return {
    ttft: pick((i) => ttfts[i]),
    tbt: pick((i) => (gaps[i].length ? sum(gaps[i]) / gaps[i].length : Number.NaN)),
    e2e: pick((i) => ttfts[i] + sum(gaps[i])),
  };
}

function resultOf(doc: Json): LoadRateResult {
  const completed = Math.round(num(doc.completed) ?? 0);
  const errors = Array.isArray(doc.errors)
    ? (doc.errors as unknown[]).filter((e) => typeof e === 'string' && e).length
    : 0;
  const failed = Math.round(num(doc.failed) ?? errors);
  const duration = num(doc.duration) ?? 0;
  const rate = num(doc.request_rate); // "inf" in the file: every request sent at once
  const achieved = num(doc.request_throughput) ?? 0;
  const lists = perRequest(doc);
  const verdict = keptUp(rate, achieved, 0, null);
  const firstError = Array.isArray(doc.errors)
    ? ((doc.errors as unknown[]).find((e): e is string => typeof e === 'string' && e !== '') ?? null)
    : null;
  const inputs = numbers(doc.input_lens);
  const outputs = numbers(doc.output_lens);
  // Without the per-request lists, the totals over the completed requests give the same means.
  const perCompleted = (total: unknown) => (num(total) !== null && completed > 0 ? num(total)! / completed : null);
  const meanOf = (xs: number[] | null, total: unknown) => (xs && xs.length ? sum(xs) / xs.length : perCompleted(total));
  return {
    pass: rate === null ? 'throughput' : 'rate',
    targetRate: rate,
    offeredRate: rate ?? (duration > 0 ? (completed + failed) / duration : 0),
    achievedRate: achieved,
    outputTokensPerSecond: num(doc.output_throughput) ?? 0,
    totalTokensPerSecond: num(doc.total_token_throughput) ?? 0,
    ttft: lists ? countedStats(lists.ttft) : summary(doc, 'ttft', completed),
    timeBetweenTokens: lists ? countedStats(lists.tbt) : summary(doc, 'tpot', completed),
    e2e: lists ? countedStats(lists.e2e) : summary(doc, 'e2el', completed),
    requests: completed + failed,
    completed,
    errors: failed,
    unfinished: 0,
    firstError,
    meanInputTokens: meanOf(inputs, doc.total_input_tokens),
    meanOutputTokens: meanOf(outputs, doc.total_output_tokens),
    maxInFlight: Math.round(num(doc.max_concurrent_requests) ?? num(doc.max_concurrency) ?? 0),
    heldBack: 0,
    queue: null,
    keptUp: verdict.keptUp,
    keptUpReason: verdict.reason,
    goodput: num(doc.request_goodput) ?? num(doc['request_goodput:']),
    sloShare: null,
    windowSeconds: duration,
    startedAt: fileTime(doc.date) ?? '',
  };
}

/** The file states no version of vLLM's client. */
const VLLM_BENCH_TOOL = 'vLLM bench serve';

export function importVllmBench(doc: Json, file: string): Result<Session> {
  const result = resultOf(doc);
  if (result.ttft === null && result.completed > 0)
    return fail(
      `${basename(file)}: vLLM bench serve results without per-request "ttfts" and "itls", nor mean, median, p90 and p99 of TTFT: run it with --save-result --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99.`,
    );
  const burstiness = num(doc.burstiness);
  const maxConcurrency = num(doc.max_concurrency);
  return ok(
    importedLoadSession({
      origin: { kind: 'imported-vllm-bench', file: basename(file) },
      model: typeof doc.model_id === 'string' ? doc.model_id : null,
      // `backend` is the client's request format (openai-chat, vllm), not the server: the file names no engine.
      engineName: 'unknown',
      tool: VLLM_BENCH_TOOL,
      measuredAt: fileTime(doc.date),
      result,
      config: {
        // vLLM's burstiness is the gamma shape: its gaps' coefficient of variation is 1/sqrt(shape).
        arrivals:
          burstiness === null || burstiness === 1
            ? { kind: 'poisson' }
            : { kind: 'gamma', cv: 1 / Math.sqrt(burstiness) },
        maxInFlight: maxConcurrency === null ? null : Math.round(maxConcurrency),
        endpoint: doc.endpoint_type === 'openai' || doc.backend === 'vllm' ? 'completions' : 'chat',
      },
    }),
  );
}
