/**
 * One streamed chat completion, measured: when it was sent, when each token arrived, how many
 * tokens (from the cumulative usage counters, chunks as a fallback), whether it looped, how
 * it ended. Built on undici's raw dispatch handler so every network chunk is one callback
 * with no promise or stream machinery in between; timestamps are taken once per network chunk.
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { type BenchHttp, describeHttpStatus, describeNetworkError, isConnectionLoss, serverMessageOf } from './http';
import { LoopDetector, type LoopFinding } from './loop-detector';
import { ChatStreamParser, type ChatStreamSink } from './sse';
import { threadRunDelayMs } from './client-delay';

/** Wall clock in epoch milliseconds with sub-millisecond precision (comparable with the simulator's). */
export const nowMs = (): number => performance.timeOrigin + performance.now();

type StreamOutcome = 'running' | 'done' | 'cancelled' | 'error';

interface StreamOptions {
  /** Request body, already serialized (the same bytes for every request of a cell). */
  body: string;
  path?: string;
  /** Run the loop detector on this stream's text. */
  detectLoops?: boolean;
  /** Record how long the client's own machine kept this thread waiting before it read the first token (client-delay.ts). */
  timeClientDelay?: boolean;
  /** Keep the answer's text (a conversation's next turn sends it back as history). */
  keepAnswer?: boolean;
  onEnd?: (s: ChatStream) => void;
  /** Called at each arrival, with the change of the token count it made (a load's running total). */
  onTokens?: (added: number) => void;
  /** Called at the first loop found. */
  onLoop?: (s: ChatStream) => void;
}

export class ChatStream implements ChatStreamSink {
  readonly sentAt: number;
  firstTokenAt = -1;
  /** When the first answer text arrived (content, not reasoning); -1 until then. */
  firstAnswerAt = -1;
  lastTokenAt = -1;
  /** The token count before the last arrival: what the stream had read just before `lastTokenAt` (cell-load.ts). */
  tokensBeforeLast = 0;
  /** Tokens of reasoning text: the token count when the last reasoning delta arrived (0: none seen). */
  reasoningTokens = 0;
  /** Wall time of the last byte received (for stall detection). */
  lastActivityAt: number;
  endedAt = -1;
  /** Largest cumulative completion_tokens seen; -1 until a usage counter arrives. */
  usageTokens = -1;
  /** Bytes of the response body received. */
  bytesReceived = 0;
  /** Chunks with a non-empty delta (the fallback count). */
  chunkTokens = 0;
  promptTokens = -1;
  outcome: StreamOutcome = 'running';
  /** Saw `data: [DONE]`. */
  sawDone = false;
  error: string | null = null;
  /** True when the error means the server went away. */
  connectionLost = false;
  loop: { finding: LoopFinding; stream: 'content' | 'reasoning' } | null = null;
  /** The server's id of this completion (first chunk's "id"), to match ground truth; '' when absent. */
  responseId: string | null = null;
  /** Token count when the measurement window opened / closed (set by the cell runner). */
  tokensAtOpen = 0;
  tokensAtClose = -1;
  /** Gaps between tokens are only recorded when they end after this wall time (the window start). */
  gapsFrom = Number.POSITIVE_INFINITY;
  /** The longest gap between two token arrivals ending after `gapsFrom`, wall ms, and when it ended. */
  longestGapMs = 0;
  longestGapEndedAt = -1;
  /** Time since the last token when the window closed on this stream still running, wall ms. */
  gapAtCloseMs = 0;
  /** The answer's text, kept only with `keepAnswer`. */
  answer = '';
  /** Wall ms this thread waited for a CPU between sending and reading the first token; null unless timed and known. */
  clientDelayMs: number | null = null;

  private controller: Dispatcher.DispatchController | null = null;
  private parser: ChatStreamParser;
  private status = 0;
  private errorBody = '';
  private now = 0;
  private cancelling = false;
  private contentLoops: LoopDetector | null;
  private reasoningLoops: LoopDetector | null;
  private readonly runDelayAtSend: number | null;

  constructor(
    private readonly http: BenchHttp,
    private readonly opts: StreamOptions,
  ) {
    this.parser = new ChatStreamParser(this);
    this.contentLoops = opts.detectLoops ? new LoopDetector() : null;
    this.reasoningLoops = opts.detectLoops ? new LoopDetector() : null;
    this.runDelayAtSend = opts.timeClientDelay ? threadRunDelayMs() : null;
    this.sentAt = nowMs();
    this.lastActivityAt = this.sentAt;
    const self = this;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(controller) {
        self.controller = controller;
        if (self.cancelling) controller.abort(new Error('cancelled'));
      },
      onResponseStart(_controller, statusCode) {
        self.status = statusCode;
      },
      onResponseData(_controller, chunk) {
        self.onBytes(chunk);
      },
      onResponseEnd() {
        self.onEnd();
      },
      onResponseError(_controller, err) {
        self.onFailure(err);
      },
    };
    http.agent.dispatch(
      {
        origin: http.origin,
        path: http.prefix + (opts.path ?? '/v1/chat/completions'),
        method: 'POST',
        headers: http.headers,
        body: opts.body,
      },
      handler,
    );
  }

  /** Tokens so far: the usage counter when the server sends one, else non-empty chunks. */
  get tokens(): number {
    return this.usageTokens >= 0 ? this.usageTokens : this.chunkTokens;
  }

  get usageSeen(): boolean {
    return this.usageTokens >= 0;
  }

  /** Abort the request (closing the connection aborts it on vLLM). */
  cancel(): void {
    if (this.outcome !== 'running') return;
    this.cancelling = true;
    this.finish('cancelled');
    this.controller?.abort(new Error('cancelled'));
  }

  /** End the stream as failed with a reason (stall, loop handling), and abort it. */
  failWith(reason: string): void {
    if (this.outcome !== 'running') return;
    this.error = reason;
    this.cancelling = true;
    this.finish('error');
    this.controller?.abort(new Error(reason));
  }

  private clientDelaySinceSend(): number | null {
    if (this.runDelayAtSend === null) return null;
    const now = threadRunDelayMs();
    return now === null ? null : Math.max(0, now - this.runDelayAtSend);
  }

  private onBytes(chunk: Buffer): void {
    if (this.outcome !== 'running') return;
    this.now = nowMs();
    this.lastActivityAt = this.now;
    this.bytesReceived += chunk.length;
    if (this.status >= 200 && this.status < 300) {
      if (this.responseId === null)
        this.responseId = /"id":\s*"([^"]+)"/.exec(chunk.toString('latin1', 0, Math.min(chunk.length, 512)))?.[1] ?? '';
      this.parser.push(chunk);
      this.contentLoops?.settle();
      this.reasoningLoops?.settle();
    } else if (this.errorBody.length < 65_536) this.errorBody += chunk.toString('utf8');
  }

  private onEnd(): void {
    if (this.outcome !== 'running') return;
    this.now = nowMs();
    if (this.status < 200 || this.status >= 300) {
      const msg = serverMessageOf(this.errorBody);
      this.error = describeHttpStatus(this.status, msg, this.opts.path ?? '/v1/chat/completions');
      this.finish('error');
      return;
    }
    this.parser.end();
    if (this.outcome !== 'running') return;
    if (!this.sawDone) {
      this.error = 'The stream ended without [DONE]: the server closed it early.';
      this.finish('error');
      return;
    }
    this.finish('done');
  }

  private onFailure(err: Error): void {
    if (this.outcome !== 'running') return;
    this.connectionLost = isConnectionLoss(err);
    this.error = describeNetworkError(err, this.http.baseUrl);
    this.finish('error');
  }

  private finish(outcome: StreamOutcome): void {
    this.outcome = outcome;
    this.endedAt = nowMs();
    // A cell keeps every stream it started until it ends; the detectors' text (a rope of
    // thousands of small pieces each) made a long cell's memory grow. The finding stays in `loop`.
    this.contentLoops = null;
    this.reasoningLoops = null;
    this.opts.onEnd?.(this);
  }

  // ChatStreamSink: called synchronously while parsing a network chunk.
  onChunk(completionTokens: number, promptTokens: number, content: string | null, reasoning: string | null): void {
    if (this.outcome !== 'running') return;
    const before = this.tokens;
    const hasText = (content !== null && content.length > 0) || (reasoning !== null && reasoning.length > 0);
    let arrived = hasText;
    if (completionTokens >= 0) {
      if (completionTokens > this.usageTokens) {
        if (completionTokens > 0) arrived = true;
        this.usageTokens = completionTokens;
      } else if (this.usageTokens < 0) this.usageTokens = completionTokens;
    }
    if (hasText) this.chunkTokens++;
    if (promptTokens >= 0) this.promptTokens = promptTokens;
    if (arrived) {
      if (this.firstTokenAt < 0) {
        this.firstTokenAt = this.now;
        this.clientDelayMs = this.clientDelaySinceSend();
      } else if (this.now >= this.gapsFrom && this.now - this.lastTokenAt > this.longestGapMs) {
        this.longestGapMs = this.now - this.lastTokenAt;
        this.longestGapEndedAt = this.now;
      }
      // One network chunk may hold several events, all read at the same time: the count before it is before the first.
      if (this.now !== this.lastTokenAt) this.tokensBeforeLast = before;
      this.lastTokenAt = this.now;
    }
    if (arrived || this.tokens !== before) this.opts.onTokens?.(this.tokens - before);
    if (reasoning) this.reasoningTokens = this.tokens;
    else if (content && this.firstAnswerAt < 0) this.firstAnswerAt = this.now;
    if (content && this.opts.keepAnswer) this.answer += content;
    if (this.contentLoops !== null && this.loop === null) {
      let found: LoopFinding | null = null;
      if (content) found = this.contentLoops.push(content);
      if (found) this.loop = { finding: found, stream: 'content' };
      else if (reasoning && this.reasoningLoops) {
        found = this.reasoningLoops.push(reasoning);
        if (found) this.loop = { finding: found, stream: 'reasoning' };
      }
      if (this.loop) this.opts.onLoop?.(this);
    }
  }

  onDone(): void {
    this.sawDone = true;
  }

  onStreamError(message: string): void {
    if (this.outcome !== 'running') return;
    this.error = `The server sent an error in the stream: ${message}`;
    this.cancelling = true;
    this.finish('error');
    this.controller?.abort(new Error('stream error'));
  }

  onMalformed(payload: string): void {
    if (this.outcome !== 'running') return;
    this.error = `Malformed stream: the server sent a chunk that is not a JSON object: ${JSON.stringify(payload.slice(0, 160))}`;
    this.cancelling = true;
    this.finish('error');
    this.controller?.abort(new Error('malformed stream'));
  }
}
