/**
 * A decode cell's request bodies, as data: the same body for every request, or max_tokens drawn
 * per request from --output-len. Data, not a function, so a cell's streams can be spread over
 * worker threads (stream-shard.ts), each drawing its own requests' bodies.
 */
import type { LengthSpec } from '#shared/session/schema-load';
import { maxTokensFields } from './http';
import { lengthSampler } from './load-arrivals';

/** The serialized body every request of a cell sends, or what each request's own body is drawn from. */
export type DecodeBodies =
  string | { model: string; messages: unknown[]; maxOutputTokens: number; outputLength: LengthSpec; seed: number };

/** A streamed chat completion's body: usage on every chunk (continuous_usage_stats) so tokens are counted exactly. */
export function chatBody(model: string, messages: unknown[], maxTokens: number): string {
  return JSON.stringify({
    model,
    messages,
    ...maxTokensFields(maxTokens),
    stream: true,
    ignore_eos: true,
    stream_options: { include_usage: true, continuous_usage_stats: true },
  });
}

/**
 * The next request's body, each call. `part` seeds a shard's own draws apart from the others' (a
 * cell on one thread draws exactly the sequence its seed gives, so a run repeats).
 */
export function bodyDrawer(bodies: DecodeBodies, part = 0): () => string {
  if (typeof bodies === 'string') return () => bodies;
  const draw = lengthSampler(bodies.outputLength, bodies.seed + part * 7919);
  return () => chatBody(bodies.model, bodies.messages, Math.min(bodies.maxOutputTokens, draw()));
}
