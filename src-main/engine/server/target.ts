/**
 * A server ready to be measured: what the supervisor's "ready" event and attach mode both
 * produce, and what the benchmark engine consumes. The API key lives only here, in memory.
 */
import type { Engine, KvBudget, ServerLaunch, Session } from '#shared/session/schema';

export type EngineKind = 'vllm' | 'sglang' | 'llamacpp' | 'tgi' | 'unknown';

export interface ServerTarget {
  /** e.g. "http://127.0.0.1:8000", no trailing slash, no credentials. */
  baseUrl: string;
  /** Bearer key for /v1 routes. Never written to sessions, reports or logs. */
  apiKey?: string;
  /** Served model id, as /v1/models lists it. */
  model: string;
  maxModelLen: number | null;
  kvBudget: KvBudget;
  engine: Engine;
  engineKind: EngineKind;
  /** Whether Prometheus /metrics answered with known series (readiness and queue checks need it). */
  metricsAvailable: boolean;
  /**
   * What POST /tokenize counts (exact token targeting needs it): a chat (`messages`), only plain
   * text (`prompt`, SGLang 0.5.4-0.5.11), or nothing (null).
   */
  tokenize: 'messages' | 'prompt' | null;
  /** How it was launched (argv/env redacted), for the session's server block. */
  launch: ServerLaunch;
  /** True when the server is SpeedMatrix's simulated vLLM. */
  simulated: boolean;
  /** A simulator's --sim-speed, as its GET /version reports it (`sim_speed`). */
  simSpeed?: number;
  /** The most requests the engine runs at once, where it states it (SGLang's max_running_requests). */
  maxRunningRequests?: number;
}

/** The session's server block: how it was launched, filled in with what the probe found. */
export function sessionServerOf(t: ServerTarget): Session['server'] {
  return {
    ...t.launch,
    url: t.launch.url ?? t.baseUrl,
    servedModel: t.launch.servedModel ?? t.model,
    maxModelLen: t.launch.maxModelLen ?? t.maxModelLen,
  };
}
