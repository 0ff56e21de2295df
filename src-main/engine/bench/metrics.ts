/**
 * Reading queue state from Prometheus `/metrics` of any supported engine (VLLM.md): running
 * and waiting requests, and vLLM's own queue time. Only the lines needed are read, so large histogram pages stay cheap.
 */
import type { EngineKind } from '../server/target';
import { SIM_LAG_METRIC } from '../sim/metrics';

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

/**
 * Sum of a metric over its series (several engines under data parallelism), ignoring series of
 * ranks other than 0 (tensor parallelism repeats them) and SGLang's per-priority breakdown (with
 * priority scheduling the total is the `priority=""` series, metrics_collector.py
 * `_log_gauge_queue_count`). null when the metric is absent.
 */
export function metricValue(text: string, name: string): number | null {
  let total: number | null = null;
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
    const labels = next === 123 ? line.slice(name.length + 1, close) : '';
    if (/(^|,)\s*rank="(?!0")[^"]*"/.test(labels) || /(^|,)\s*priority="[^"]/.test(labels)) continue;
    const value = Number.parseFloat(
      line
        .slice(close >= 0 ? close + 1 : name.length)
        .trim()
        .split(/\s+/)[0],
    );
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
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
    return {
      running,
      waiting: metricValue(text, names.waiting) ?? 0,
      ...(queueTime ? { queueTime } : {}),
      ...(simLagSeconds !== null ? { simLagSeconds } : {}),
    };
  }
  return null;
}
