/**
 * The OpenAI-compatible HTTP front of the simulator, with vLLM's routes, auth, error bodies and
 * status codes (see shared/docs/VLLM.md).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServeConfig } from './args';
import type { Engine, EngineRequest, FinishReason } from './engine';
import type { Logger } from './logs';
import { Exposition, processCpuWaitSeconds, SIM_CPU_WAIT_METRIC, SIM_LAG_METRIC } from './metrics';
import type { KvPlan } from './kv-budget';
import { frontendSeconds, frontendSerialSeconds } from './model';
import type { Profile } from './profile';
import { CollectSink, epochMs, StreamSink, type SinkContext, type TruthRecord } from './sinks';
import { HttpError, newTruth } from './request-records';
import { rng, type Corpus } from './text';
import { vllmTraits, type VllmTraits } from './vllm-traits';
import { checkMessages, decode, encode, encodeChat, type ChatMessage } from './tokenizer';

interface HttpDeps {
  cfg: ServeConfig;
  profile: Profile;
  plan: KvPlan;
  engine: Engine;
  logger: Logger;
  corpus: Corpus;
  servedNames: string[];
  modelPath: string;
  /** false once the engine is dead: /health answers 503. */
  healthy: () => boolean;
}

const MAX_BODY = 64 * 1024 * 1024;

/** Path -> allowed methods. */
const ROUTES: Record<string, string[]> = {
  '/health': ['GET'],
  '/ping': ['GET', 'POST'],
  '/version': ['GET'],
  '/load': ['GET'],
  '/v1/models': ['GET'],
  '/metrics': ['GET'],
  '/tokenize': ['POST'],
  '/detokenize': ['POST'],
  '/v1/chat/completions': ['POST'],
  '/v1/completions': ['POST'],
  '/sim/requests': ['GET', 'DELETE'],
};
const MAX_TRUTH = 20_000;

/** vLLM changed its error body in 0.10.1; follow the profile's version. */
function newErrorStyle(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  const [a, b, c] = m.slice(1).map(Number);
  return a > 0 || b > 10 || (b === 10 && c >= 1);
}

export class SimHttp {
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly truth: TruthRecord[] = [];
  /** Records of requests still open, refreshed from the engine when served. */
  private readonly liveTruth = new Map<TruthRecord, EngineRequest>();
  private completionCount = 0;
  /** Requests still in the frontend stage (not yet handed to the engine): in flight for the loop selector. */
  private inFrontend = 0;
  /** performance.now() ms when the modelled API-server event loop is next free (its serial frontend work). */
  private apiFreeAt = 0;
  private readonly errorStyle: (message: string, type: string, code: number, param?: string | null) => string;
  private readonly lengthRng: () => number;
  private readonly traits: VllmTraits;

  constructor(private readonly d: HttpDeps) {
    this.traits = vllmTraits(d.profile.vllmVersion);
    const fresh = newErrorStyle(d.profile.vllmVersion);
    this.errorStyle = (message, type, code, param = null) =>
      fresh
        ? JSON.stringify({ error: { message, type, param, code } })
        : JSON.stringify({ object: 'error', message, type, param, code });
    this.lengthRng = rng(d.cfg.sim.seed * 7919 + 17);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const received = performance.now();
    if (this.d.cfg.accessLog) {
      res.once('finish', () => this.access(req, res));
      res.once('close', () => res.writableFinished || this.access(req, res));
    }
    void this.route(req, res, received).catch((e: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof HttpError) this.sendError(res, e);
      else
        this.sendError(
          res,
          new HttpError(500, `Internal server error: ${(e as Error).message}`, 'InternalServerError'),
        );
    });
  }

  private access(req: IncomingMessage, res: ServerResponse): void {
    const addr = `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`.replace(/^::ffff:/, '');
    const status = res.statusCode;
    const phrase =
      {
        200: 'OK',
        400: 'Bad Request',
        401: 'Unauthorized',
        404: 'Not Found',
        405: 'Method Not Allowed',
        500: 'Internal Server Error',
        503: 'Service Unavailable',
      }[status] ?? '';
    this.d.logger.uvicorn(`${addr} - "${req.method} ${req.url} HTTP/${req.httpVersion}" ${status} ${phrase}`);
  }

  private sendJson(res: ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  private sendError(res: ServerResponse, e: HttpError): void {
    this.sendJson(res, e.status, this.errorStyle(e.message, e.type, e.status, e.param));
  }

  private async route(req: IncomingMessage, res: ServerResponse, received: number): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    // vLLM's AuthenticationMiddleware guards path prefixes only (/v1; also /v2 and /inference from May 2026).
    if (this.traits.guardedPrefixes.some((p) => path.startsWith(p)) && !this.authorised(req)) {
      this.sendJson(res, 401, '{"error":"Unauthorized"}');
      return;
    }
    const route = ROUTES[path];
    if (!route || (path === '/sim/requests' && !this.d.cfg.sim.debug)) {
      this.sendJson(res, 404, '{"detail":"Not Found"}');
      return;
    }
    if (!route.includes(method)) {
      this.sendJson(res, 405, '{"detail":"Method Not Allowed"}');
      return;
    }
    switch (path) {
      case '/health':
      case '/ping':
        res.writeHead(this.d.healthy() ? 200 : 503, { 'content-length': 0 });
        res.end();
        return;
      case '/version':
        // sim_gpu: the profile's GPU, so a client attached by URL records the simulated hardware.
        return this.sendJson(
          res,
          200,
          JSON.stringify({
            version: this.d.profile.vllmVersion,
            simulated: true,
            sim_speed: this.d.cfg.sim.speed,
            sim_profile: this.d.profile.name,
            sim_gpu: { name: this.d.profile.gpu.name, memory_gib: this.d.profile.gpu.memoryGiB },
          }),
        );
      case '/load':
        return this.sendJson(res, 200, JSON.stringify({ server_load: this.d.engine.inFlight }));
      case '/v1/models':
        return this.sendJson(res, 200, this.models());
      case '/metrics':
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(this.metrics());
        return;
      case '/tokenize':
        return this.tokenize(res, await this.body(req));
      case '/detokenize':
        return this.detokenize(res, await this.body(req));
      case '/v1/chat/completions':
        return this.completion(res, 'chat', await this.body(req), received);
      case '/v1/completions':
        return this.completion(res, 'completion', await this.body(req), received);
      case '/sim/requests':
        if (method === 'DELETE') this.forgetFinished();
        this.refreshTruth();
        return this.sendJson(
          res,
          200,
          JSON.stringify({ now_ms: epochMs(), speed: this.d.cfg.sim.speed, requests: this.truth }),
        );
    }
  }

  private authorised(req: IncomingMessage): boolean {
    const keys = this.d.cfg.apiKeys;
    if (keys.length === 0) return true;
    const m = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
    return !!m && keys.includes(m[1].trim());
  }

  private async body(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) throw new HttpError(400, 'Request body too large.', 'BadRequestError');
      chunks.push(c as Buffer);
    }
    // Parse in the check phase: sockets that became readable in the same poll get their arrival stamped first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const text = Buffer.concat(chunks).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new HttpError(400, `JSON decode error: ${(e as Error).message}`, 'BadRequestError');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new HttpError(
        400,
        'Input should be a valid dictionary or object to extract fields from',
        'BadRequestError',
      );
    }
    return parsed as Record<string, unknown>;
  }

  private checkModel(body: Record<string, unknown>): string {
    const model = body.model;
    if (model === undefined || model === null) return this.d.servedNames[0];
    if (typeof model !== 'string' || !this.d.servedNames.includes(model)) {
      throw new HttpError(404, `The model \`${String(model)}\` does not exist.`, 'NotFoundError', 'model');
    }
    return model;
  }

  private models(): string {
    const data = this.d.servedNames.map((id) => ({
      id,
      object: 'model',
      created: this.created,
      owned_by: 'vllm',
      root: this.d.modelPath,
      parent: null,
      max_model_len: this.d.plan.maxModelLen,
      permission: [
        {
          id: `modelperm-${randomBytes(16).toString('hex')}`,
          object: 'model_permission',
          created: this.created,
          allow_create_engine: false,
          allow_sampling: true,
          allow_logprobs: true,
          allow_search_indices: false,
          allow_view: true,
          allow_fine_tuning: false,
          organization: '*',
          group: null,
          is_blocking: false,
        },
      ],
    }));
    return JSON.stringify({ object: 'list', data });
  }

  private promptIds(kind: 'chat' | 'completion', body: Record<string, unknown>): number[] {
    if (kind === 'chat' || (body.messages !== undefined && body.prompt === undefined)) {
      const bad = checkMessages(body.messages);
      if (bad) throw new HttpError(400, bad, 'BadRequestError', 'messages');
      return encodeChat(body.messages as ChatMessage[]);
    }
    const p = body.prompt;
    if (typeof p === 'string') return encode(p);
    if (Array.isArray(p) && p.every((x) => Number.isInteger(x))) return p as number[];
    if (Array.isArray(p) && p.length === 1 && typeof p[0] === 'string') return encode(p[0]);
    if (Array.isArray(p) && p.length > 1)
      throw new HttpError(
        400,
        'The simulator serves one prompt per request; send prompts separately.',
        'BadRequestError',
        'prompt',
      );
    throw new HttpError(400, 'prompt: Field required (a string or a list of token ids)', 'BadRequestError', 'prompt');
  }

  private tokenize(res: ServerResponse, body: Record<string, unknown>): void {
    if (body.model !== undefined) this.checkModel(body);
    const ids = body.messages !== undefined ? this.promptIds('chat', body) : this.promptIds('completion', body);
    this.sendJson(
      res,
      200,
      JSON.stringify({ count: ids.length, max_model_len: this.d.plan.maxModelLen, tokens: ids, token_strs: null }),
    );
  }

  private detokenize(res: ServerResponse, body: Record<string, unknown>): void {
    if (body.model !== undefined) this.checkModel(body);
    const t = body.tokens;
    if (!Array.isArray(t) || !t.every((x) => Number.isInteger(x) && x >= 0)) {
      throw new HttpError(400, 'tokens: Input should be a list of token ids', 'BadRequestError', 'tokens');
    }
    this.sendJson(res, 200, JSON.stringify({ prompt: decode(t as number[]) }));
  }

  private intField(body: Record<string, unknown>, name: string, min: number): number | undefined {
    const v = body[name];
    if (v === undefined || v === null) return undefined;
    if (!Number.isInteger(v))
      throw new HttpError(400, `${name}: Input should be a valid integer`, 'BadRequestError', name);
    if ((v as number) < min)
      throw new HttpError(400, `${name} must be at least ${min}, got ${v}.`, 'BadRequestError', name);
    return v as number;
  }

  /** Exactly a share F of requests fail: request i fails when floor((i+1)F) > floor(iF). */
  private fault500(): boolean {
    const f = this.d.cfg.sim.faults.share500;
    const i = this.completionCount++;
    return !!f && Math.floor((i + 1) * f) > Math.floor(i * f);
  }

  private naturalLength(): number {
    // Log-normal around the profile's median (Box-Muller), so natural ends vary plausibly.
    const u = Math.max(1e-9, this.lengthRng());
    const v = this.lengthRng();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    const median = this.d.profile.output.naturalMedianTokens;
    return Math.max(16, Math.min(8 * median, Math.round(median * Math.exp(0.6 * z))));
  }

  private completion(
    res: ServerResponse,
    kind: 'chat' | 'completion',
    body: Record<string, unknown>,
    received: number,
  ): void {
    const model = this.checkModel(body);
    if (!this.d.healthy()) {
      throw new HttpError(
        500,
        'EngineCore encountered an issue. See stack trace (above) for the root cause.',
        'EngineDeadError',
      );
    }
    if (this.fault500()) {
      throw new HttpError(500, 'Simulated internal server error (--sim-500-share).', 'InternalServerError');
    }
    const ids = this.promptIds(kind, body);
    const maxLen = this.d.plan.maxModelLen;
    const stream = body.stream === true;
    const so = body.stream_options as { include_usage?: unknown; continuous_usage_stats?: unknown } | undefined | null;
    if (so && !stream)
      throw new HttpError(
        400,
        'Stream options can only be defined when `stream=True`.',
        'BadRequestError',
        'stream_options',
      );
    const asked = this.intField(
      body,
      kind === 'chat' && body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens',
      1,
    );
    const minTokens = this.intField(body, 'min_tokens', 0) ?? 0;
    if (ids.length >= maxLen) {
      throw new HttpError(
        400,
        `This model's maximum context length is ${maxLen} tokens. However, your request has ${ids.length} input tokens. Please reduce the length of the input messages.`,
        'BadRequestError',
      );
    }
    if (asked !== undefined && ids.length + asked > maxLen) {
      throw new HttpError(
        400,
        `This model's maximum context length is ${maxLen} tokens. However, you requested ${asked} output tokens and your prompt contains at least ${ids.length} input tokens, for a total of at least ${ids.length + asked} tokens. Please reduce the length of the input prompt or the number of requested output tokens.`,
        'BadRequestError',
      );
    }
    const maxTokens = asked ?? maxLen - ids.length;
    if (minTokens > maxTokens) {
      throw new HttpError(
        400,
        `min_tokens must be less than or equal to max_tokens=${maxTokens}, got ${minTokens}.`,
        'BadRequestError',
        'min_tokens',
      );
    }
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomBytes(16).toString('hex')}`;
    const ignoreEos = body.ignore_eos === true;
    const truth = this.d.cfg.sim.debug
      ? newTruth(id, kind, { stream, promptTokens: ids.length, maxTokens, ignoreEos, received })
      : undefined;
    if (truth) this.remember(truth);

    const engine = this.d.engine;
    let ereq: EngineRequest | undefined;
    // The client went away, or a stream fault ended the request.
    const settle = (reason: FinishReason) => {
      if (!ereq) return;
      engine.abort(ereq, reason);
      if (truth) this.fillTruth(truth, ereq);
    };
    const ctx: SinkContext = {
      kind,
      id,
      created: Math.floor(Date.now() / 1000),
      model,
      promptTokens: ids.length,
      stream,
      includeUsage: !!so?.include_usage,
      continuousUsage: !!so?.include_usage && !!so?.continuous_usage_stats,
      streamInterval: this.d.cfg.streamInterval ?? this.d.profile.scheduler.streamInterval,
      corpus: this.d.corpus,
      textStart: Math.floor(this.lengthRng() * this.d.corpus.text.length),
      faults: this.d.cfg.sim.faults,
      errorStyle: (m, t, c) => this.errorStyle(m, t, c),
      reasoningFields: this.traits.reasoningFields,
      reasoningTokens:
        kind === 'chat' ? (this.d.cfg.sim.reasoningTokens ?? this.d.profile.output.reasoningTokens ?? 0) : 0,
      inFlight: () => engine.inFlight + this.inFrontend,
      abort: settle,
      truth,
    };
    if (stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.flushHeaders();
    }
    const sink = stream ? new StreamSink(res, ctx) : new CollectSink(res, ctx);
    const naturalLength = this.naturalLength();
    // The frontend (tokenising, templating), on the modelled clock: its serial share queues on the one API-server
    // loop, the rest overlaps. Deadlines are absolute, so our own parsing time is already taken out of the wait.
    const speed = this.d.cfg.sim.speed;
    const serialMs = (frontendSerialSeconds(this.d.profile, ids.length) * 1000) / speed;
    this.apiFreeAt = Math.max(received, this.apiFreeAt) + serialMs;
    const readyAt = this.apiFreeAt + (frontendSeconds(this.d.profile, ids.length) * 1000) / speed - serialMs;
    const delay = readyAt - performance.now();
    this.inFrontend++;
    let frontend: NodeJS.Timeout | undefined = setTimeout(
      () => {
        frontend = undefined;
        this.inFrontend--;
        ereq = engine.add({
          id,
          promptIds: ids,
          maxTokens,
          minTokens,
          ignoreEos,
          naturalLength,
          sink,
          receivedAt: received,
          // Its modelled hand-over, not when this process got round to the timer (a busy host fires it late).
          enqueuedAt: readyAt,
        });
        if (truth) this.liveTruth.set(truth, ereq);
      },
      Math.max(0, delay),
    );
    res.once('close', () => {
      if (frontend) {
        clearTimeout(frontend);
        this.inFrontend--;
        if (truth) Object.assign(truth, { finish_reason: 'abort', finished_ms: epochMs() });
      } else if (ereq && ereq.state !== 'done') settle('abort');
      else if (truth && ereq) this.fillTruth(truth, ereq);
      // A request aborted inside a running step stays live until the engine drops it at the step's end.
      if (truth && (!ereq || ereq.state === 'done')) this.liveTruth.delete(truth);
    });
  }

  private remember(t: TruthRecord): void {
    this.truth.push(t);
    if (this.truth.length > MAX_TRUTH) {
      const i = this.truth.findIndex((r) => r.finish_reason !== null);
      if (i >= 0) this.truth.splice(i, 1);
    }
  }

  private fillTruth(t: TruthRecord, r: EngineRequest): void {
    t.cached_prompt_tokens = r.cachedPromptTokens;
    t.scheduled_ms = r.scheduledAt !== undefined ? epochMs(r.scheduledAt) : null;
    t.first_token_ms = t.emissions.length ? t.emissions[0][0] : null;
    t.preemptions = r.preemptions;
    if (r.state === 'done') {
      t.finished_ms = r.finishedAt !== undefined ? epochMs(r.finishedAt) : epochMs();
      t.finish_reason = r.finishReason ?? 'abort';
    }
  }

  private forgetFinished(): void {
    for (let i = this.truth.length - 1; i >= 0; i--) if (this.truth[i].finish_reason !== null) this.truth.splice(i, 1);
  }

  /** Bring live records up to date (scheduled time, preemptions) before they are served. */
  private refreshTruth(): void {
    for (const [t, r] of this.liveTruth) {
      this.fillTruth(t, r);
      if (r.state === 'done') this.liveTruth.delete(t);
    }
  }

  private metrics(): string {
    const { engine, plan, cfg } = this.d;
    const base = { engine: '0', model_name: this.d.servedNames[0] };
    const e = new Exposition(base);
    const oldNames = cfg.sim.logStyle === 1;
    e.gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', engine.running.length);
    e.gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', engine.waiting.length);
    e.gauge(
      oldNames ? 'vllm:gpu_cache_usage_perc' : 'vllm:kv_cache_usage_perc',
      'KV-cache usage. 1 means 100 percent usage.',
      engine.pool.usage,
    );
    e.counter('vllm:num_preemptions', 'Cumulative number of preemption from the engine.', [
      { value: engine.preemptionsTotal },
    ]);
    e.counter('vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', [
      { value: engine.prefixQueries },
    ]);
    e.counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', [
      { value: engine.prefixHits },
    ]);
    e.counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', [{ value: engine.promptTokensTotal }]);
    e.counter('vllm:generation_tokens', 'Number of generation tokens processed.', [
      { value: engine.generationTokensTotal },
    ]);
    e.counter(
      'vllm:request_success',
      'Count of successfully processed requests.',
      (['stop', 'length', 'abort'] as const).map((r) => ({ labels: { finished_reason: r }, value: engine.success[r] })),
    );
    e.histogram('vllm:request_prompt_tokens', 'Number of prefill tokens processed.', engine.h.promptTokens);
    e.histogram('vllm:request_generation_tokens', 'Number of generation tokens processed.', engine.h.generationTokens);
    e.histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', engine.h.ttft);
    e.histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', engine.h.itl);
    e.histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', engine.h.e2e);
    e.histogram(
      'vllm:request_queue_time_seconds',
      'Histogram of time spent in WAITING phase for request.',
      engine.h.queue,
    );
    e.histogram(
      'vllm:request_prefill_time_seconds',
      'Histogram of time spent in PREFILL phase for request.',
      engine.h.prefill,
    );
    e.histogram(
      'vllm:request_decode_time_seconds',
      'Histogram of time spent in DECODE phase for request.',
      engine.h.decode,
    );
    const info: Record<string, string> = {
      block_size: String(plan.blockSize),
      cache_dtype: cfg.kvCacheDtype,
      calculate_kv_scales: 'False',
      cpu_offload_gb: '0',
      enable_prefix_caching: cfg.enablePrefixCaching ? 'True' : 'False',
      gpu_memory_utilization: String(cfg.gpuMemoryUtilization),
      is_attention_free: 'False',
      num_cpu_blocks: 'None',
      num_gpu_blocks: String(plan.numGpuBlocks),
      num_gpu_blocks_override: 'None',
      prefix_caching_hash_algo: 'sha256',
      sliding_window: 'None',
      swap_space: '4',
      swap_space_bytes: '4294967296',
    };
    e.info('vllm:cache_config_info', 'Information of the LLMEngine CacheConfig', info);
    e.counter(
      SIM_LAG_METRIC.replace(/_total$/, ''),
      'Simulated seconds of schedule the engine could not catch up because the host did not let it run.',
      [{ value: engine.lagSecondsLost }],
    );
    const cpuWait = processCpuWaitSeconds();
    if (cpuWait !== null)
      e.counter(
        SIM_CPU_WAIT_METRIC.replace(/_total$/, ''),
        'Wall seconds the simulated server waited for a CPU (its threads runnable, not running).',
        [{ value: cpuWait }],
      );
    return e.text();
  }
}
