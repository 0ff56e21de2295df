/**
 * Importing AIPerf's aggregated profile export (`profile_export_aiperf.json`) into a load session
 * of one pass: each metric is an object with its `unit` and `avg`, `p50`, `p90`, `p99`, ...
 * (`request_throughput`, `output_token_throughput`, `time_to_first_token`, `inter_token_latency`,
 * `request_latency`, `benchmark_duration`, `request_count`, `error_request_count`), and the run's
 * settings under `input_config` (`loadgen.request_rate`, `loadgen.concurrency`, the model names).
 */
import { basename } from 'node:path';
import { keptUp } from '../../engine/bench/load-figures';
import type { CountedStats, LoadRateResult } from '#shared/session/schema-load';
import type { Session } from '#shared/session/schema';
import { type Result, fail, ok } from '#shared/result';
import { fileTime, importedLoadSession, isObject, type Json, num } from './load-import';

/** AIPerf's export: metric objects with a unit, and its input configuration or duration. */
export function looksLikeAiperf(doc: unknown): doc is Json {
  return (
    isObject(doc) &&
    isObject(doc.request_throughput) &&
    typeof doc.request_throughput.unit === 'string' &&
    (isObject(doc.input_config) || isObject(doc.benchmark_duration))
  );
}

const SECONDS_PER: Record<string, number> = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1, sec: 1 };

/** A metric's value (its `avg`), or null. */
const avg = (doc: Json, key: string): number | null => (isObject(doc[key]) ? num((doc[key] as Json).avg) : null);

/** A latency metric in seconds with p50/p90/p99; null when a percentile or the unit is missing. */
function latency(doc: Json, key: string, count: number): CountedStats | null {
  const m = doc[key];
  if (!isObject(m)) return null;
  const scale = SECONDS_PER[String(m.unit)];
  const [mean, p50, p90, p99] = [m.avg, m.p50, m.p90, m.p99].map(num);
  if (scale === undefined || mean === null || p50 === null || p90 === null || p99 === null) return null;
  return { mean: mean * scale, p50: p50 * scale, p90: p90 * scale, p99: p99 * scale, count };
}

function firstError(doc: Json): string | null {
  const list = Array.isArray(doc.error_summary) ? (doc.error_summary as unknown[]) : [];
  const details = list.map((e) => (isObject(e) && isObject(e.error_details) ? e.error_details : null)).find(Boolean);
  return details
    ? `${String(details.type ?? 'Error')}${details.code ? ` (${String(details.code)})` : ''}: ${String(details.message ?? '')}`
    : null;
}

function resultOf(doc: Json, loadgen: Json): LoadRateResult {
  const completed = Math.round(avg(doc, 'request_count') ?? 0);
  const errors = Math.round(avg(doc, 'error_request_count') ?? num(doc.error_request_count) ?? 0);
  const duration = avg(doc, 'benchmark_duration') ?? 0;
  const rate = num(loadgen.request_rate);
  const achieved = avg(doc, 'request_throughput') ?? 0;
  const output = avg(doc, 'output_token_throughput') ?? 0;
  const inputMean = avg(doc, 'input_sequence_length');
  const verdict = keptUp(rate, achieved, 0, null);
  return {
    pass: rate === null ? 'throughput' : 'rate',
    targetRate: rate,
    offeredRate: rate ?? (duration > 0 ? (completed + errors) / duration : 0),
    achievedRate: achieved,
    outputTokensPerSecond: output,
    totalTokensPerSecond: output + achieved * (inputMean ?? 0),
    ttft: latency(doc, 'time_to_first_token', completed),
    timeBetweenTokens: latency(doc, 'inter_token_latency', completed),
    e2e: latency(doc, 'request_latency', completed),
    requests: completed + errors,
    completed,
    errors,
    unfinished: 0,
    firstError: firstError(doc),
    meanInputTokens: inputMean,
    meanOutputTokens: avg(doc, 'output_sequence_length'),
    maxInFlight: Math.round(num(loadgen.concurrency) ?? 0),
    heldBack: 0,
    queue: null,
    keptUp: verdict.keptUp,
    keptUpReason: verdict.reason,
    goodput: num(doc.goodput) === null ? null : avg(doc, 'goodput'),
    sloShare: null,
    windowSeconds: duration,
    startedAt: fileTime(doc.start_time) ?? '',
  };
}

export function importAiperf(doc: Json, file: string): Result<Session> {
  const config = isObject(doc.input_config) ? doc.input_config : {};
  const loadgen = isObject(config.loadgen) ? config.loadgen : {};
  const endpoint = isObject(config.endpoint) ? config.endpoint : {};
  const result = resultOf(doc, loadgen);
  if (result.ttft === null)
    return fail(
      `${basename(file)}: an AIPerf export without time_to_first_token's avg, p50, p90 and p99 (and its unit); export it from a streaming run.`,
    );
  const models = Array.isArray(endpoint.model_names) ? (endpoint.model_names as unknown[]) : [];
  const concurrency = num(loadgen.concurrency);
  return ok(
    importedLoadSession({
      origin: { kind: 'imported-aiperf', file: basename(file) },
      model: typeof models[0] === 'string' ? models[0] : null,
      engineName: 'unknown',
      tool: typeof doc.aiperf_version === 'string' ? `AIPerf ${doc.aiperf_version}` : 'AIPerf',
      measuredAt: fileTime(doc.start_time),
      result,
      config: {
        maxInFlight: concurrency === null ? null : Math.round(concurrency),
        endpoint: endpoint.type === 'completions' ? 'completions' : 'chat',
      },
    }),
  );
}
