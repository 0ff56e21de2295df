/**
 * Turning engine tokens into bytes: SSE chunks in vLLM's exact shape (from pre-serialised
 * templates, one write per loop turn) or one JSON body at the end, plus the ground-truth record
 * of every write and the per-request fault switches (loop, error event, malformed chunk).
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Faults } from './args';
import type { FinishReason, TokenSink } from './engine';
import { LOOP_PASSAGE, type Corpus } from './text';

/** Ground truth of one request, as served on GET /sim/requests. */
export interface TruthRecord {
  id: string;
  endpoint: string;
  stream: boolean;
  prompt_tokens: number;
  cached_prompt_tokens: number;
  max_tokens: number;
  ignore_eos: boolean;
  arrival_ms: number;
  scheduled_ms: number | null;
  first_token_ms: number | null;
  finished_ms: number | null;
  finish_reason: FinishReason | null;
  completion_tokens: number;
  preemptions: number;
  looped: boolean;
  emissions: [number, number][];
}

export const epochMs = (perfMs: number = performance.now()): number => performance.timeOrigin + perfMs;

export interface SinkContext {
  kind: 'chat' | 'completion';
  id: string;
  created: number;
  model: string;
  promptTokens: number;
  stream: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  streamInterval: number;
  corpus: Corpus;
  textStart: number;
  faults: Faults;
  errorStyle: (message: string, type: string, code: number) => string;
  /** The reasoning field(s) of a chat message in the profile's vLLM release ("reasoning", earlier "reasoning_content"). */
  reasoningFields: string[];
  /** The first this many tokens are reasoning text (0 for completions and non-thinking models). */
  reasoningTokens: number;
  /** Requests in flight now (running + waiting), for the loop selector. */
  inFlight: () => number;
  abort: (reason: FinishReason) => void;
  truth?: TruthRecord;
}

/** Bytes waiting in a response's socket beyond which the engine pauses (see Engine.loop). */
const CONGESTED_BYTES = 256 * 1024;

const usageJson = (p: number, c: number) => `{"prompt_tokens":${p},"total_tokens":${p + c},"completion_tokens":${c}}`;

/** Where generated text comes from: the prose corpus, or the loop passage once a loop fault fires. */
class TextCursor {
  private pos: number;
  private loopPos = 0;
  looping = false;
  constructor(
    private readonly corpus: Corpus,
    start: number,
  ) {
    this.pos = start % corpus.text.length;
  }
  take(n: number, json: boolean): string {
    let s = '';
    for (let i = 0; i < n; i++) {
      if (this.looping) {
        s += (json ? LOOP_PASSAGE.json : LOOP_PASSAGE.text)[this.loopPos];
        this.loopPos = (this.loopPos + 1) % LOOP_PASSAGE.text.length;
      } else {
        s += (json ? this.corpus.json : this.corpus.text)[this.pos];
        this.pos = (this.pos + 1) % this.corpus.text.length;
      }
    }
    return s;
  }
}

function near(value: number, targets: number[]): boolean {
  return targets.some((t) => Math.abs(value - t) <= Math.max(128, 0.02 * t));
}

abstract class BaseSink implements TokenSink {
  protected pending = 0;
  protected sent = 0;
  protected reason: FinishReason | undefined;
  protected ended = false;
  protected readonly cursor: TextCursor;
  private loopDecided = false;

  constructor(
    protected readonly res: ServerResponse,
    protected readonly c: SinkContext,
  ) {
    this.cursor = new TextCursor(c.corpus, c.textStart);
  }

  tokens(n: number): void {
    this.pending += n;
  }

  finish(reason: FinishReason): void {
    this.reason = reason;
  }

  /** How many of the next n tokens (after `offset` more) are still reasoning text. */
  protected thinking(n: number, offset = 0): number {
    return Math.min(n, Math.max(0, this.c.reasoningTokens - this.sent - offset));
  }

  /** Text for the next n tokens (after `offset` more); decides the loop fault when token N is reached. */
  protected text(n: number, json: boolean, offset = 0): string {
    const f = this.c.faults;
    const sent = this.sent + offset;
    if (f.loopAfter === undefined || this.loopDecided || sent + n < f.loopAfter) return this.cursor.take(n, json);
    const before = Math.max(0, f.loopAfter - sent - 1);
    let s = this.cursor.take(before, json);
    this.loopDecided = true;
    const ctxOk = !f.loopContexts || near(this.c.promptTokens, f.loopContexts);
    const concOk = !f.loopConcurrency || f.loopConcurrency.includes(this.c.inFlight());
    if (ctxOk && concOk) {
      this.cursor.looping = true;
      if (this.c.truth) this.c.truth.looped = true;
    }
    s += this.cursor.take(n - before, json);
    return s;
  }

  protected record(tokens: number): void {
    const t = this.c.truth;
    if (!t || tokens === 0) return;
    t.emissions.push([epochMs(), tokens]);
    t.completion_tokens += tokens;
  }

  abstract flush(): void;

  congested(): boolean {
    return this.res.writableLength > CONGESTED_BYTES;
  }

  abstract fail(message: string): void;
}

/** Streaming response (`stream: true`). */
export class StreamSink extends BaseSink {
  private readonly head: string;
  private readonly tail: string;
  private roleSent = false;
  private errorFired = false;
  private malformedFired = false;

  constructor(res: ServerResponse, c: SinkContext) {
    super(res, c);
    const obj = c.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.head = `data: {"id":"${c.id}","object":"${obj}","created":${c.created},"model":${JSON.stringify(c.model)},"choices":[{"index":0,`;
    this.tail = c.kind === 'chat' ? '"},"logprobs":null,' : '","logprobs":null,';
  }

  /** The next n tokens as chunks: reasoning while within the first reasoningTokens, content after. */
  private textChunks(n: number, final: FinishReason | undefined): string {
    const thinking = this.thinking(n);
    let out = '';
    if (thinking > 0)
      out += this.chunk(this.text(thinking, true), thinking === n ? final : undefined, this.sent + thinking, true);
    if (n > thinking) out += this.chunk(this.text(n - thinking, true, thinking), final, this.sent + n);
    return out;
  }

  private chunk(text: string, final: FinishReason | undefined, completion: number, reasoning = false): string {
    const fields = reasoning ? this.c.reasoningFields : ['content'];
    const body =
      this.c.kind === 'chat' ? `"delta":{${fields.map((f) => `"${f}":"${text}`).join('",')}` : `"text":"${text}`;
    const fin = final ? `"finish_reason":"${final}","stop_reason":null` : '"finish_reason":null';
    const choice = this.c.kind === 'completion' && !final ? `${fin},"stop_reason":null` : fin;
    const usage = this.c.continuousUsage ? `,"usage":${usageJson(this.c.promptTokens, completion)}` : '';
    return `${this.head}${body}${this.tail}${choice}}]${usage}}\n\n`;
  }

  flush(): void {
    if (this.ended) return;
    let out = '';
    if (!this.roleSent && this.c.kind === 'chat') {
      const usage = this.c.continuousUsage ? `,"usage":${usageJson(this.c.promptTokens, 0)}` : '';
      out += `${this.head}"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${usage}}\n\n`;
      this.roleSent = true;
    }
    const f = this.c.faults;
    const interval = this.c.streamInterval;
    let written = 0;
    // Whole groups of `interval` tokens; the rest waits, unless the request is finishing.
    while (this.pending >= interval || (this.reason && this.pending > 0)) {
      let n = Math.min(interval, this.pending);
      if (f.errorEventAfterTokens !== undefined && !this.errorFired && this.sent + n >= f.errorEventAfterTokens) {
        n = Math.max(0, f.errorEventAfterTokens - this.sent);
        if (n > 0) out += this.textChunks(n, undefined);
        this.sent += n;
        written += n;
        this.errorFired = true;
        out += `data: ${this.c.errorStyle('Simulated engine error in the middle of the stream (--sim-error-event-after-tokens).', 'InternalServerError', 500)}\n\ndata: [DONE]\n\n`;
        this.write(out, written);
        this.end();
        this.c.abort('error');
        return;
      }
      this.pending -= n;
      const last = this.reason !== undefined && this.pending === 0;
      out += this.textChunks(n, last ? this.reason : undefined);
      this.sent += n;
      written += n;
      if (
        f.malformedChunkAfterTokens !== undefined &&
        !this.malformedFired &&
        this.sent >= f.malformedChunkAfterTokens
      ) {
        this.malformedFired = true;
        out += `${this.head}"delta":{"content":"\\u00\n\n`;
      }
    }
    if (this.reason) {
      if (this.c.includeUsage)
        out += `data: {"id":"${this.c.id}","object":"${this.c.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion'}","created":${this.c.created},"model":${JSON.stringify(this.c.model)},"choices":[],"usage":${usageJson(this.c.promptTokens, this.sent)}}\n\n`;
      out += 'data: [DONE]\n\n';
    }
    this.write(out, written);
    if (this.reason) this.end();
  }

  fail(message: string): void {
    if (this.ended) return;
    this.flush();
    if (this.ended) return;
    this.res.write(`data: ${this.c.errorStyle(message, 'EngineDeadError', 500)}\n\ndata: [DONE]\n\n`);
    this.end();
  }

  private write(out: string, tokens: number): void {
    if (out) {
      this.record(tokens);
      this.res.write(out);
    }
  }

  private end(): void {
    this.ended = true;
    this.res.end();
  }
}

/** Non-streaming response: one JSON body when the request finishes. */
export class CollectSink extends BaseSink {
  private parts: string[] = [];
  private reasoningParts: string[] = [];

  fail(message: string): void {
    if (this.ended) return;
    this.ended = true;
    const body = this.c.errorStyle(message, 'EngineDeadError', 500);
    this.res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    this.res.end(body);
  }

  flush(): void {
    if (this.ended) return;
    if (this.pending > 0) {
      const thinking = this.thinking(this.pending);
      if (thinking > 0) this.reasoningParts.push(this.text(thinking, false));
      if (this.pending > thinking) this.parts.push(this.text(this.pending - thinking, false, thinking));
      this.sent += this.pending;
      this.pending = 0;
    }
    if (!this.reason) return;
    const c = this.c;
    const text = this.parts.join('');
    const reasoning = this.reasoningParts.length ? JSON.stringify(this.reasoningParts.join('')) : 'null';
    const usage = `{"prompt_tokens":${c.promptTokens},"total_tokens":${c.promptTokens + this.sent},"completion_tokens":${this.sent},"prompt_tokens_details":null}`;
    const reason = JSON.stringify(this.reason);
    const choice =
      c.kind === 'chat'
        ? `{"index":0,"message":{"role":"assistant","content":${JSON.stringify(text)},${c.reasoningFields.map((f) => `"${f}":${reasoning},`).join('')}"tool_calls":[]},"logprobs":null,"finish_reason":${reason},"stop_reason":null}`
        : `{"index":0,"text":${JSON.stringify(text)},"logprobs":null,"finish_reason":${reason},"stop_reason":null,"prompt_logprobs":null}`;
    const obj = c.kind === 'chat' ? 'chat.completion' : 'text_completion';
    const body = `{"id":"${c.id}","object":"${obj}","created":${c.created},"model":${JSON.stringify(c.model)},"choices":[${choice}],"usage":${usage},"prompt_logprobs":null}`;
    this.record(this.sent);
    this.ended = true;
    this.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    this.res.end(body);
  }
}
