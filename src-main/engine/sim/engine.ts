/**
 * The continuous-batching engine: a scheduler loop over a paged KV cache, shaped like vLLM v1.
 * Each step: running requests first (decode = 1 token, unfinished prefills get chunks) within the
 * token budget; if blocks run out, the latest running request is preempted (recomputed later);
 * then waiting requests are admitted while seats, budget and blocks allow. A step lasts the
 * profile's decode step time for the decoding batch plus the prefill chunks' share of the curve,
 * divided by the speed. Steps are paced by absolute deadlines on the engine's own clock: each starts
 * when the one before was due to end (an idle engine: when the first waiting request was due to reach
 * it), however late this process got to run, so a late step does not push the later ones. Results of
 * all steps that ended are handed to the HTTP layer, which writes them once per loop turn. Only a lag
 * beyond MAX_CATCH_UP_MS is given up, and counted (`lagSecondsLost`) so measurements taken meanwhile
 * can be marked. A request whose client stops reading sits out steps until its socket drains.
 */
import { performance } from 'node:perf_hooks';
import { blockHashes, BlockPool, type BlockHolder } from './blocks';
import { buckets125, Histogram, ITL_BUCKETS, LATENCY_BUCKETS, TTFT_BUCKETS } from './metrics';
import { decodeStepSeconds, prefillSeconds } from './model';
import { StepJitter } from './jitter';
import type { Profile } from './profile';

/**
 * Behind its own clock by more than this many wall milliseconds (the host did not let the process run),
 * the engine gives up the excess instead of catching it all up in one burst; what it gives up is counted.
 * With four CPU hogs beside it on two cores the host leaves the process off the CPU for 250-360 ms at a time
 * (bench:sim-load, docs/adaptive-precision.md "Under host load"): a limit below that gave up simulated time on
 * every such stall, so the served rate followed the host's load. One second keeps those; a longer stop is given up.
 */
export const MAX_CATCH_UP_MS = 1000;

export type FinishReason = 'length' | 'stop' | 'abort' | 'error';

/** The HTTP side of a request: told about new tokens, flushed once per loop turn. */
export interface TokenSink {
  tokens(n: number): void;
  finish(reason: FinishReason): void;
  flush(): void;
  /** The client is not reading: far too many bytes are waiting in the socket. */
  congested(): boolean;
  /** The engine died: end the response with this error. */
  fail(message: string): void;
}

interface NewRequest {
  id: string;
  promptIds: ArrayLike<number>;
  maxTokens: number;
  minTokens: number;
  ignoreEos: boolean;
  /** Where a request without ignore_eos stops by itself. */
  naturalLength: number;
  sink: TokenSink;
  /** performance.now() ms when the HTTP request came in (TTFT and e2e count from here). */
  receivedAt?: number;
  /** performance.now() ms when the modelled frontend was due to hand it over (default: now). */
  enqueuedAt?: number;
}

export interface EngineRequest extends BlockHolder {
  id: string;
  seq: number;
  promptTokens: number;
  hashes: number[];
  maxTokens: number;
  minTokens: number;
  ignoreEos: boolean;
  naturalLength: number;
  sink: TokenSink;
  state: 'waiting' | 'running' | 'done';
  computed: number;
  generated: number;
  cachedPromptTokens: number;
  preemptions: number;
  /** performance.now() ms: HTTP arrival, and when the engine got it (after the frontend). */
  arrival: number;
  enqueuedAt: number;
  scheduledAt?: number;
  firstTokenAt?: number;
  lastTokenAt?: number;
  finishedAt?: number;
  finishReason?: FinishReason;
  /** The client went away while the request was in the step being computed: it leaves when that step ends. */
  abortPending?: FinishReason;
}

interface StepItem {
  req: EngineRequest;
  tokens: number;
  decode: boolean;
}

interface Step {
  endsAt: number;
  wallMs: number;
  items: StepItem[];
}

interface EngineOptions {
  profile: Profile;
  numGpuBlocks: number;
  blockSize: number;
  prefixCaching: boolean;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  maxModelLen: number;
  /** KV cache bytes per token (from --kv-cache-dtype): what a decode step reads per token held. */
  kvBytesPerToken: number;
  speed: number;
  /** Step-time jitter (a noisy server, `--sim-step-jitter`); none when absent. */
  jitter?: StepJitter;
  /** Stop producing tokens after this many in total (fault). */
  hangAfterTokens?: number;
  /** Called once after this many tokens in total (fault). */
  crashAfterTokens?: number;
  onCrash?: () => void;
}

export class Engine {
  readonly pool: BlockPool;
  waiting: EngineRequest[] = [];
  running: EngineRequest[] = [];
  private current: Step | null = null;
  private wake: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private seq = 0;
  /** The engine's own clock: when its last step was due to end (performance.now() ms). */
  private clockAt: number | undefined;
  private touched = new Set<EngineRequest>();
  hung = false;
  stopped = false;

  // Counters and histograms for /metrics.
  promptTokensTotal = 0;
  generationTokensTotal = 0;
  preemptionsTotal = 0;
  prefixQueries = 0;
  prefixHits = 0;
  /** Prompt tokens actually computed (cache hits excluded), for the throughput log line. */
  prefillComputed = 0;
  /** Simulated seconds of schedule the engine gave up because the host did not let it run (see MAX_CATCH_UP_MS). */
  lagSecondsLost = 0;
  /** Finished requests by reason, as vLLM counts them (errors from faults count as abort). */
  success: Record<'stop' | 'length' | 'abort', number> = { stop: 0, length: 0, abort: 0 };
  readonly h = {
    ttft: new Histogram(TTFT_BUCKETS),
    itl: new Histogram(ITL_BUCKETS),
    e2e: new Histogram(LATENCY_BUCKETS),
    queue: new Histogram(LATENCY_BUCKETS),
    prefill: new Histogram(LATENCY_BUCKETS),
    decode: new Histogram(LATENCY_BUCKETS),
    promptTokens: new Histogram([]),
    generationTokens: new Histogram([]),
  };

  constructor(private readonly o: EngineOptions) {
    this.pool = new BlockPool(o.numGpuBlocks, o.blockSize, o.prefixCaching);
    const b = buckets125(o.maxModelLen);
    this.h.promptTokens = new Histogram(b);
    this.h.generationTokens = new Histogram(b);
  }

  get inFlight(): number {
    return this.running.length + this.waiting.length;
  }

  add(n: NewRequest): EngineRequest {
    const req: EngineRequest = {
      id: n.id,
      seq: this.seq++,
      promptTokens: n.promptIds.length,
      hashes: this.o.prefixCaching ? blockHashes(n.promptIds, this.o.blockSize) : [],
      maxTokens: n.maxTokens,
      minTokens: n.minTokens,
      ignoreEos: n.ignoreEos,
      naturalLength: n.naturalLength,
      sink: n.sink,
      state: 'waiting',
      computed: 0,
      generated: 0,
      cachedPromptTokens: 0,
      preemptions: 0,
      arrival: n.receivedAt ?? performance.now(),
      enqueuedAt: Math.min(n.enqueuedAt ?? Number.POSITIVE_INFINITY, performance.now()),
      plainBlocks: 0,
      cachedBlocks: [],
    };
    this.waiting.push(req);
    this.kick();
    return req;
  }

  /**
   * The client went away (or a fault ended it): free its blocks, no more tokens. Like vLLM, a request that is part
   * of the step being computed (a long prefill chunk) leaves only when that step ends: until then it still counts
   * as running in /metrics, so a client waiting for an idle server sees the work in flight.
   */
  abort(req: EngineRequest, reason: FinishReason = 'abort'): void {
    if (req.state === 'done') return;
    if (req.state === 'running' && this.current?.items.some((it) => it.req === req)) {
      req.abortPending ??= reason;
      return;
    }
    this.drop(req, reason);
  }

  private drop(req: EngineRequest, reason: FinishReason, now = performance.now()): void {
    if (req.state === 'waiting') this.waiting = this.waiting.filter((r) => r !== req);
    else this.running = this.running.filter((r) => r !== req);
    this.pool.release(req);
    req.state = 'done';
    req.finishedAt = now;
    req.finishReason = reason;
    this.success.abort++;
    this.touched.delete(req);
  }

  stop(): void {
    this.stopped = true;
    this.clearWake();
  }

  /** The engine died: every open request ends with `message`. */
  failAll(message: string): void {
    this.stop();
    for (const req of [...this.running, ...this.waiting]) {
      this.drop(req, 'error');
      req.sink.fail(message);
    }
  }

  private clearWake(): void {
    if (!this.wake) return;
    clearTimeout(this.wake as NodeJS.Timeout);
    clearImmediate(this.wake as NodeJS.Immediate);
    this.wake = null;
  }

  private kick(): void {
    if (this.wake || this.current || this.stopped || this.hung) return;
    this.wake = setImmediate(() => this.loop());
  }

  private loop(): void {
    this.wake = null;
    if (this.stopped) return;
    const sliceEnd = performance.now() + 8;
    for (;;) {
      if (this.hung) break;
      const now = performance.now();
      if (this.current) {
        const remaining = this.current.endsAt - now;
        if (remaining > 0) {
          this.flush();
          // Sleep most of the wait; spin the last millisecond only for steps long enough to matter.
          if (remaining > 1.2)
            this.wake = setTimeout(() => this.loop(), remaining - (this.current.wallMs >= 2 ? 1 : 0));
          else if (this.current.wallMs >= 2) this.wake = setImmediate(() => this.loop());
          else this.wake = setTimeout(() => this.loop(), remaining);
          return;
        }
        // The step is over before its results are handed out: an abort from here on drops the request at once.
        const ended = this.current;
        this.current = null;
        this.clockAt = ended.endsAt;
        this.complete(ended);
        if (this.hung || this.stopped) break;
      }
      this.current = this.plan(this.nextStart(now));
      if (!this.current) {
        // Only paused streams are left (their clients are not reading): the clock runs on idle; look again shortly.
        if (this.running.length > 0) {
          this.clockAt = now;
          this.flush();
          this.wake = setTimeout(() => this.loop(), 1);
          return;
        }
        break;
      }
      if (performance.now() > sliceEnd) {
        this.flush();
        this.wake = setImmediate(() => this.loop());
        return;
      }
    }
    this.flush();
  }

  /**
   * When the next step starts on the engine's clock: when the last one was due to end, or, for an idle
   * engine, when the first waiting request was due to reach it (not when this process got round to it).
   * A lag beyond MAX_CATCH_UP_MS is given up from there and counted in simulated seconds.
   */
  private nextStart(now: number): number {
    let start = this.clockAt ?? Number.NEGATIVE_INFINITY;
    if (this.running.length === 0 && this.waiting.length > 0) {
      let first = Number.POSITIVE_INFINITY;
      for (const r of this.waiting) first = Math.min(first, r.enqueuedAt);
      start = Math.max(start, first);
    }
    if (!Number.isFinite(start)) return now;
    const behind = now - start;
    if (behind <= MAX_CATCH_UP_MS) return start;
    this.lagSecondsLost += ((behind - MAX_CATCH_UP_MS) / 1000) * this.o.speed;
    return now - MAX_CATCH_UP_MS;
  }

  private flush(): void {
    if (this.touched.size === 0) return;
    const list = [...this.touched];
    this.touched.clear();
    for (const r of list) r.sink.flush();
  }

  private preempt(req: EngineRequest): void {
    this.pool.release(req);
    req.computed = 0;
    req.state = 'waiting';
    req.preemptions++;
    this.preemptionsTotal++;
    this.running = this.running.filter((r) => r !== req);
    this.waiting.unshift(req);
  }

  private blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.o.blockSize);
  }

  private plan(start: number): Step | null {
    const items: StepItem[] = [];
    let budget = this.o.maxNumBatchedTokens;
    let preempted = false;
    const k = this.o.profile.scheduler.tokensPerStep;
    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const req = this.running[i];
      // Back-pressure per request: a stream whose client is not reading (over 256 KiB waiting in its socket) sits
      // out this step; the others go on. Pausing the whole engine let one stalled client silence every stream.
      if (req.sink.congested()) continue;
      const need = req.promptTokens + req.generated - req.computed;
      const decode = need === 1 && req.generated > 0;
      const tokens = decode ? 1 : Math.min(need, budget);
      const holdAfter = req.computed + (decode ? Math.min(k, req.maxTokens - req.generated) : tokens);
      const more = this.blocksFor(holdAfter) - (req.plainBlocks + req.cachedBlocks.length);
      let ok = this.pool.allocate(req, more);
      while (!ok) {
        const victim = this.running[this.running.length - 1];
        this.preempt(victim);
        preempted = true;
        if (victim === req) break;
        ok = this.pool.allocate(req, more);
      }
      if (!ok) break; // req itself was the last running request and got preempted
      items.push({ req, tokens, decode });
      budget -= tokens;
    }
    while (!preempted && budget > 0 && this.waiting.length > 0 && this.running.length < this.o.maxNumSeqs) {
      const req = this.waiting[0];
      // On the engine's clock it has not arrived yet (the engine is catching up): a later step takes it.
      if (items.length > 0 && req.enqueuedAt > start) break;
      const total = req.promptTokens + req.generated;
      const hits = this.pool.lookup(req.hashes, Math.floor((req.promptTokens - 1) / this.o.blockSize));
      const hitTokens = hits.length * this.o.blockSize;
      const tokens = Math.min(total - hitTokens, budget);
      this.pool.acquire(hits);
      req.cachedBlocks = hits;
      if (!this.pool.allocate(req, this.blocksFor(hitTokens + tokens) - hits.length)) {
        this.pool.release(req);
        break;
      }
      this.waiting.shift();
      this.prefixQueries += req.promptTokens;
      this.prefixHits += hitTokens;
      if (req.scheduledAt === undefined) {
        req.scheduledAt = Math.max(start, req.enqueuedAt);
        req.cachedPromptTokens = hitTokens;
        this.h.queue.observe((req.scheduledAt - req.enqueuedAt) / 1000);
      }
      req.computed = hitTokens;
      req.state = 'running';
      this.running.push(req);
      items.push({ req, tokens, decode: false });
      budget -= tokens;
    }
    if (items.length === 0) return null;
    // A step that admits a request cannot have started before the request arrived.
    for (const it of items) if (it.req.enqueuedAt > start) start = it.req.enqueuedAt;
    let batch = 0;
    let context = 0;
    let seconds = 0;
    for (const it of items) {
      if (it.decode) {
        batch++;
        context += it.req.computed + 1;
      } else {
        seconds += prefillSeconds(this.o.profile, it.req.computed, it.req.computed + it.tokens);
      }
    }
    seconds += decodeStepSeconds(this.o.profile, batch, context, this.o.kvBytesPerToken);
    if (this.o.jitter) seconds *= this.o.jitter.factor(seconds);
    const wallMs = (seconds * 1000) / this.o.speed;
    return { endsAt: start + wallMs, wallMs, items };
  }

  private complete(step: Step): void {
    const now = step.endsAt;
    const k = this.o.profile.scheduler.tokensPerStep;
    let finished = false;
    for (const { req, tokens, decode } of step.items) {
      if (req.state !== 'running') continue;
      if (req.abortPending) {
        this.drop(req, req.abortPending, now);
        continue;
      }
      req.computed += tokens;
      if (!decode) {
        this.prefillComputed += tokens;
        const fullBlocks = Math.min(
          Math.floor(Math.min(req.computed, req.promptTokens) / this.o.blockSize),
          req.hashes.length,
        );
        while (req.cachedBlocks.length < fullBlocks && this.pool.promote(req, req.hashes[req.cachedBlocks.length]));
      }
      if (req.computed < req.promptTokens + req.generated) continue;
      const made = decode ? Math.min(k, req.maxTokens - req.generated) : 1;
      req.generated += made;
      req.computed += made - 1;
      this.generationTokensTotal += made;
      if (req.firstTokenAt === undefined) {
        req.firstTokenAt = now;
        this.promptTokensTotal += req.promptTokens;
        this.h.ttft.observe((now - req.arrival) / 1000);
        this.h.prefill.observe((now - (req.scheduledAt ?? now)) / 1000);
      } else if (req.lastTokenAt !== undefined) {
        this.h.itl.observe((now - req.lastTokenAt) / 1000 / made);
      }
      req.lastTokenAt = now;
      req.sink.tokens(made);
      this.touched.add(req);
      let reason: FinishReason | undefined;
      if (req.generated >= req.maxTokens) reason = 'length';
      else if (!req.ignoreEos && req.generated >= Math.max(req.minTokens, req.naturalLength)) reason = 'stop';
      if (reason) {
        this.finish(req, reason, now);
        finished = true;
      }
      this.checkFaults();
    }
    if (finished) this.running = this.running.filter((r) => r.state === 'running');
  }

  private finish(req: EngineRequest, reason: FinishReason, now: number): void {
    this.pool.release(req);
    req.state = 'done';
    req.finishedAt = now;
    req.finishReason = reason;
    if (reason === 'stop' || reason === 'length') this.success[reason]++;
    this.h.e2e.observe((now - req.arrival) / 1000);
    this.h.decode.observe((now - (req.firstTokenAt ?? now)) / 1000);
    this.h.promptTokens.observe(req.promptTokens);
    this.h.generationTokens.observe(req.generated);
    req.sink.finish(reason);
  }

  private checkFaults(): void {
    const o = this.o;
    if (o.hangAfterTokens !== undefined && this.generationTokensTotal >= o.hangAfterTokens) this.hung = true;
    if (o.crashAfterTokens !== undefined && this.generationTokensTotal >= o.crashAfterTokens && o.onCrash) {
      const crash = o.onCrash;
      o.onCrash = undefined;
      this.flush();
      crash();
    }
  }
}
