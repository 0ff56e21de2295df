/**
 * Reading queue state from Prometheus `/metrics` of any supported engine (VLLM.md): running
 * and waiting requests, and vLLM's own queue time. Only the lines needed are read, so large histogram pages stay cheap.
 */
import type { EngineKind } from '../server/target';
import { SIM_CPU_WAIT_METRIC, SIM_LAG_METRIC } from '../sim/metrics';

interface QueueNames {
  running: string;
  waiting: string;
}

/** Metric names by engine; unknown engines try them all. */
const QUEUE_METRICS: Record<Exclude<EngineKind, 'unknown'>, QueueNames> = {
  vllm: { running: 'vllm:num_requests_running', waiting: 'vllm:num_requests_waiting' },
  sglang: { running: 'sglang:num_running_reqs', waiting: 'sglang:num_queue_reqs' },
  llamacpp: { running: 'llamacpp:requests_processing', waiting: 'llamacpp:requests_deferred' },
  tgi: { running: 'tgi_batch_current_size', waiting: 'tgi_queue_size' },
};

export interface QueueSample {
  running: number;
  waiting: number;
  /** A simulated server's schedule given up so far, in simulated seconds (absent for real servers). */
  simLagSeconds?: number;
  /** A simulated server's own wait for a CPU so far, in wall seconds (absent for real servers and off Linux). */
  simCpuWaitSeconds?: number;
  /** When the window's scrape loop read it, in server seconds from the window's start (absent elsewhere). */
  atSeconds?: number;
  /**
   * vLLM's own record of how long requests waited before they were first scheduled
   * (`vllm:request_queue_time_seconds`, cumulative `_sum` and `_count`) and its preemption count
   * (`vllm:num_preemptions_total`); absent where the server does not export them.
   */
  queueTime?: { sum: number; count: number; preemptions: number };
}

const VLLM_QUEUE_TIME = 'vllm:request_queue_time_seconds';

function vllmQueueTime(text: string): QueueSample['queueTime'] {
  const sum = metricValue(text, `${VLLM_QUEUE_TIME}_sum`);
  const count = metricValue(text, `${VLLM_QUEUE_TIME}_count`);
  if (sum === null || count === null) return undefined;
  return { sum, count, preemptions: metricValue(text, 'vllm:num_preemptions_total') ?? 0 };
}

/** Label pairs of one series' label text (`a="1",b=""`). */
function labelPairs(labels: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of labels.matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) out.set(m[1], m[2]);
  return out;
}

/** Labels that name a worker inside one scheduler group; its series repeat the group's figures. */
const REPLICA_RANKS = ['rank', 'tp_rank', 'moe_ep_rank'];

/**
 * Which scheduler group a series belongs to, or null for a series that repeats another: a
 * pipeline stage after the first, or a per-priority breakdown (with priority scheduling SGLang's
 * total is the `priority=""` series, metrics_collector.py `_log_gauge_queue_count`). The key is
 * every other label but the worker ranks, so data parallel groups (`dp_rank`, vLLM's `engine`)
 * stay apart.
 */
function seriesGroup(labels: Map<string, string>): { key: string; rank: number } | null {
  if ((labels.get('pp_rank') ?? '0') !== '0' || (labels.get('priority') ?? '') !== '') return null;
  const key = [...labels]
    .filter(([k]) => !REPLICA_RANKS.includes(k))
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',');
  return { key, rank: Number(labels.get('tp_rank') ?? labels.get('rank') ?? 0) };
}

/**
 * Sum of a metric over its scheduler groups (several engines under data parallelism), each group
 * counted once: under tensor parallelism every rank that exports (vLLM's `rank`, SGLang's `tp_rank`
 * and `moe_ep_rank` with `--enable-metrics-for-all-schedulers`) repeats its group's running and
 * waiting counts, so the lowest rank's series is read (docs/method.md "Queue state"). null when the
 * metric is absent.
 */
export function metricValue(text: string, name: string): number | null {
  const groups = new Map<string, { rank: number; value: number }>();
  let from = 0;
  for (;;) {
    const at = text.indexOf(name, from);
    if (at < 0) break;
    from = at + name.length;
    if (at > 0 && text.charCodeAt(at - 1) !== 10) continue; // not at a line start (a comment or another name)
    const next = text.charCodeAt(from);
    if (next !== 123 /* { */ && next !== 32 /* space */) continue; // a longer name, e.g. _total
    const eol = text.indexOf('\n', from);
    const line = text.slice(at, eol < 0 ? text.length : eol);
    const close = line.lastIndexOf('}');
    const group = seriesGroup(labelPairs(next === 123 ? line.slice(name.length + 1, close) : ''));
    const value = Number.parseFloat(
      line
        .slice(close >= 0 ? close + 1 : name.length)
        .trim()
        .split(/\s+/)[0],
    );
    if (!group || !Number.isFinite(value)) continue;
    const seen = groups.get(group.key);
    if (!seen || group.rank < seen.rank) groups.set(group.key, { rank: group.rank, value });
  }
  if (groups.size === 0) return null;
  let total = 0;
  for (const g of groups.values()) total += g.value;
  return total;
}

/** Running and waiting requests from a /metrics page; null when this engine's names are absent. */
export function queueSample(text: string, engine: EngineKind): QueueSample | null {
  const candidates = engine === 'unknown' ? Object.values(QUEUE_METRICS) : [QUEUE_METRICS[engine]];
  for (const names of candidates) {
    const running = metricValue(text, names.running);
    if (running === null) continue;
    const queueTime = names === QUEUE_METRICS.vllm ? vllmQueueTime(text) : undefined;
    const simLagSeconds = metricValue(text, SIM_LAG_METRIC);
    const simCpuWaitSeconds = metricValue(text, SIM_CPU_WAIT_METRIC);
    return {
      running,
      waiting: metricValue(text, names.waiting) ?? 0,
      ...(queueTime ? { queueTime } : {}),
      ...(simLagSeconds !== null ? { simLagSeconds } : {}),
      ...(simCpuWaitSeconds !== null ? { simCpuWaitSeconds } : {}),
    };
  }
  return null;
}
