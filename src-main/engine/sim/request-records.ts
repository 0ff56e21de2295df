/**
 * The simulated server's refusal of a request, in vLLM's words (status, message, error type,
 * parameter), and the truth record a debug simulator keeps of each request (GET /sim/requests).
 */
import { epochMs, type TruthRecord } from './sinks';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** A debug simulator's record of a request as it arrived (GET /sim/requests); the engine fills in the rest. */
export function newTruth(
  id: string,
  kind: 'chat' | 'completion',
  r: { stream: boolean; promptTokens: number; maxTokens: number; ignoreEos: boolean; received: number },
): TruthRecord {
  return {
    id,
    endpoint: kind === 'chat' ? '/v1/chat/completions' : '/v1/completions',
    stream: r.stream,
    prompt_tokens: r.promptTokens,
    cached_prompt_tokens: 0,
    max_tokens: r.maxTokens,
    ignore_eos: r.ignoreEos,
    arrival_ms: epochMs(r.received),
    scheduled_ms: null,
    first_token_ms: null,
    finished_ms: null,
    finish_reason: null,
    completion_tokens: 0,
    preemptions: 0,
    looped: false,
    emissions: [],
  };
}
