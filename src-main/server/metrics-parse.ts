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

/**
 * The KV budget from `vllm:cache_config_info`: `kv_cache_size_tokens` where the engine states it,
 * else `num_gpu_blocks x block_size`. With tensor parallelism the rank-0 series is used.
 */
export function kvFromCacheConfig(samples: readonly MetricSample[]): MetricsKv | null {
  const infos = samples.filter((s) => s.name === 'vllm:cache_config_info');
  if (infos.length === 0) return null;
  const info = infos.find((s) => (s.labels.rank ?? '0') === '0') ?? infos[0];
  const l = info.labels;
  const conc = l.kv_cache_max_concurrency !== undefined ? Number(l.kv_cache_max_concurrency) : null;
  const maxConcurrency = conc !== null && Number.isFinite(conc) ? conc : null;
  const direct = Number(l.kv_cache_size_tokens);
  if (l.kv_cache_size_tokens !== undefined && Number.isFinite(direct) && direct > 0) {
    return { tokens: Math.round(direct), detail: `vllm:cache_config_info kv_cache_size_tokens ${Math.round(direct)}`, maxConcurrency };
  }
  const blocks = Number(l.num_gpu_blocks);
  const bs = Number(l.block_size);
  if (Number.isFinite(blocks) && blocks > 0 && Number.isFinite(bs) && bs > 0) {
    return { tokens: Math.round(blocks * bs), detail: `vllm:cache_config_info num_gpu_blocks ${blocks} x block_size ${bs}`, maxConcurrency };
  }
  return null;
}

/** Series names that show an engine's scheduler state is visible (queue/readiness checks need them). */
const KNOWN = /^(vllm:num_requests_(running|waiting)|sglang:num_(running|queue)_reqs|llamacpp:requests_(processing|deferred)|tgi_queue_size|tgi_batch_current_size)$/;

export function hasKnownSeries(samples: readonly MetricSample[]): boolean {
  return samples.some((s) => KNOWN.test(s.name));
}
