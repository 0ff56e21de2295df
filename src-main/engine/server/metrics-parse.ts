/**
 * Just enough Prometheus text parsing to read an engine's KV configuration at startup
 * (vllm:cache_config_info) and to tell whether /metrics carries series we know.
 */

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** All samples in a Prometheus text exposition; comments and unknown shapes are skipped. */
export function parsePrometheus(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    const value = Number(m[3]);
    if (!Number.isNaN(value)) out.push({ name: m[1], labels, value });
  }
  return out;
}

export interface MetricsKv {
  tokens: number;
  detail: string;
  maxConcurrency: number | null;
}

/** Context parallel sizes of a launch: the block count holds one rank's share of each sequence. */
export interface ContextParallel {
  decode: number;
  prefill: number;
}

/**
 * The engine's `vllm:cache_config_info` series. With data parallelism there is one per `engine`
 * label, and each repeats the front end's `num_gpu_blocks`, which is already the sum over the
 * engines (vllm/v1/engine/core_client.py), so one series is read, never a sum. With tensor
 * parallelism some builds add a rank label: rank 0 is read.
 */
function cacheConfigInfo(samples: readonly MetricSample[]): Record<string, string> | null {
  const infos = samples.filter((s) => s.name === 'vllm:cache_config_info');
  if (infos.length === 0) return null;
  return (infos.find((s) => (s.labels.rank ?? '0') === '0' && (s.labels.engine ?? '0') === '0') ?? infos[0]).labels;
}

const positive = (v: string | undefined): number | null => {
  const n = Number(v);
  return v !== undefined && Number.isFinite(n) && n > 0 ? n : null;
};

/** The budget an engine states in tokens on `vllm:cache_config_info` (`kv_cache_size_tokens`); first in priority. */
export function kvFromCacheConfigTokens(samples: readonly MetricSample[]): MetricsKv | null {
  const l = cacheConfigInfo(samples);
  const tokens = positive(l?.kv_cache_size_tokens);
  if (!l || tokens === null) return null;
  return {
    tokens: Math.round(tokens),
    detail: `vllm:cache_config_info kv_cache_size_tokens ${Math.round(tokens)}`,
    maxConcurrency: positive(l.kv_cache_max_concurrency),
  };
}

/**
 * `num_gpu_blocks x block_size` from `vllm:cache_config_info`, times the context parallel sizes
 * (each rank holds 1/(dcp x pcp) of a sequence). Last in priority: for hybrid models with
 * several KV cache groups the label's block_size is not the tokens per block of the pool.
 */
export function kvFromCacheConfigBlocks(
  samples: readonly MetricSample[],
  cp: ContextParallel = { decode: 1, prefill: 1 },
): MetricsKv | null {
  const l = cacheConfigInfo(samples);
  const blocks = positive(l?.num_gpu_blocks);
  const bs = positive(l?.block_size);
  if (blocks === null || bs === null) return null;
  const cpSize = cp.decode * cp.prefill;
  const cpText =
    cpSize > 1
      ? ` x context parallel ${cp.decode > 1 ? `-dcp ${cp.decode}` : ''}${cp.decode > 1 && cp.prefill > 1 ? ' x ' : ''}${cp.prefill > 1 ? `-pcp ${cp.prefill}` : ''}`
      : '';
  return {
    tokens: Math.round(blocks * bs * cpSize),
    detail: `vllm:cache_config_info num_gpu_blocks ${blocks} x block_size ${bs}${cpText}`,
    maxConcurrency: null,
  };
}

/** Series names that show an engine's scheduler state is visible (queue/readiness checks need them). */
const KNOWN =
  /^(vllm:num_requests_(running|waiting)|sglang:num_(running|queue)_reqs|llamacpp:requests_(processing|deferred)|tgi_queue_size|tgi_batch_current_size)$/;

export function hasKnownSeries(samples: readonly MetricSample[]): boolean {
  return samples.some((s) => KNOWN.test(s.name));
}
