/**
 * Probing a running server: attach mode (a URL started elsewhere) and the supervisor's ready
 * step both end here. It finds which engine answers, the served model and its max length, the
 * KV budget and where that figure came from, and the facts for the report's Engine block.
 */
import { runCommand } from '../../platform/processes/external-command';
import { fail, ok, type Result } from '#shared/result';
import type { Engine, KvBudget, ServerLaunch } from '#shared/session/schema';
import {
  backendFromVersion,
  buildOf,
  commitFromVersion,
  quantizationLabel,
  readLocalModelConfig,
} from './engine-facts';
import type { LaunchOptions } from './launch';
import type { LogKvBudget } from './log-parse';
import { flagValue } from './command-line';
import {
  hasKnownSeries,
  kvFromCacheConfigBlocks,
  kvFromCacheConfigTokens,
  parsePrometheus,
  type ContextParallel,
} from './metrics-parse';
import type { EngineKind, ServerTarget } from './target';

export interface ProbeOptions {
  /** Server root, e.g. http://10.0.0.5:8000 (a trailing /v1 is accepted and dropped). */
  baseUrl: string;
  apiKey?: string;
  /** The model to benchmark; must be among those served. Default: the first served. */
  model?: string;
  /** How it was launched; default: an attach block for baseUrl. */
  launch?: ServerLaunch;
  /** The launch options, when SpeedMatrix started it (quantization/dtype flags, build, local model folder). */
  launchOptions?: LaunchOptions;
  /** KV budget from the startup log (second in priority). */
  logKv?: LogKvBudget | null;
  /** The launch's `vllm serve` arguments as the startup log's "non-default args" states them. */
  logArgs?: Record<string, unknown> | null;
  /** The length the startup log says `--max-model-len auto` was reduced to; caps what the server states. */
  logMaxModelLen?: number | null;
  /** Version from the startup log, when /version does not answer. */
  logVersion?: string | null;
  /** dtype and quantization the startup log's engine config line states. */
  logEngineConfig?: { dtype: string | null; quantization: string | null };
  /** KV budget the user gave (third in priority). */
  userKvTokens?: number;
  /** "cuda" or "rocm" from hardware detection, when the version string does not say. */
  backendHint?: string | null;
  /** Per-request timeout. */
  timeoutMs?: number;
}

type Fetched = { status: number; text: string; json: unknown } | { error: string };

const TLS_CODES = /CERT|SSL|TLS|EPROTO|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY/i;

/**
 * Node's fetch refuses the ports the Fetch standard blocks (9 "discard", 25 SMTP, 6000 X11, ...)
 * with a bare "bad port"; say which port and what to do instead.
 */
export function badPortSentence(url: string, message: string): string | null {
  if (message !== 'bad port') return null;
  let port = '';
  try {
    port = new URL(url).port;
  } catch {
    // the URL was checked before any request; keep the sentence without the number
  }
  return `Port ${port || 'of ' + url} is one that HTTP clients refuse to use (it belongs to another protocol). Give the port the server listens on, such as 8000.`;
}

/** A network error as a sentence a person can act on. */
export function explainNetworkError(url: string, err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? (err as { code?: string })?.code ?? '';
  const msg = cause?.message ?? (err as Error)?.message ?? String(err);
  const badPort = badPortSentence(url, msg);
  if (badPort) return badPort;
  if (code === 'ECONNREFUSED')
    return `Connection refused at ${url}: nothing listens there. Is the server running, and is the port right?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Host not found for ${url}: check the host name.`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `Host unreachable for ${url}: check the network path (VPN, firewall).`;
  if (code === 'ECONNRESET')
    return `The connection to ${url} was reset: the server closed it (wrong protocol, or a proxy in between?).`;
  if (TLS_CODES.test(code) || TLS_CODES.test(msg)) {
    return `TLS failed for ${url} (${code || msg}): use http:// if the server does not speak HTTPS, or give it a certificate this machine trusts.`;
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || (err as Error)?.name === 'TimeoutError' || code === 'ABORT_ERR') {
    return `No answer from ${url} in time: check the host, port and firewall.`;
  }
  return `Could not reach ${url}: ${code ? `${code} ` : ''}${msg}`;
}

async function get(
  url: string,
  opts: { apiKey?: string; timeoutMs: number; method?: string; body?: unknown },
): Promise<Fetched> {
  try {
    const res = await fetch(url, {
      method: opts.method ?? 'GET',
      headers: {
        ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
        ...(opts.body ? { 'content-type': 'application/json' } : {}),
      },
      body: opts.body ? JSON.stringify(opts.body) : undefined,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON (e.g. /metrics, an empty /health).
    }
    return { status: res.status, text, json };
  } catch (e) {
    return { error: explainNetworkError(url, e) };
  }
}

const okJson = (f: Fetched): Record<string, unknown> | null =>
  'status' in f && f.status === 200 && f.json && typeof f.json === 'object' && !Array.isArray(f.json)
    ? (f.json as Record<string, unknown>)
    : null;

const asNum = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Normalise a base URL: http(s) only, no credentials, no trailing slash or /v1. */
export function normalizeBaseUrl(raw: string): Result<string> {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return fail(`"${raw}" is not a URL; give one like http://127.0.0.1:8000`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return fail(`"${raw}" must start with http:// or https://`);
  if (u.username || u.password) return fail('Put the API key in the API key field, not in the URL.');
  const path = u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return ok(`${u.protocol}//${u.host}${path}`);
}

interface ModelEntry {
  id: string;
  max_model_len?: unknown;
  owned_by?: unknown;
  root?: unknown;
}

/** Connect to a running server and describe it as a ServerTarget. */
export async function probeServer(o: ProbeOptions): Promise<Result<ServerTarget>> {
  const base = normalizeBaseUrl(o.baseUrl);
  if (!base.ok) return base;
  const baseUrl = base.data;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const at = (p: string) => `${baseUrl}${p}`;

  const models = await get(at('/v1/models'), { apiKey: o.apiKey, timeoutMs });
  if ('error' in models) return fail(models.error);
  if (models.status === 401 || models.status === 403) {
    return fail(
      o.apiKey
        ? `The server refused the API key (HTTP ${models.status} on /v1/models): check the key it was started with (--api-key / VLLM_API_KEY).`
        : `The server needs an API key (HTTP ${models.status} on /v1/models): give the key it was started with.`,
    );
  }
  if (models.status === 503)
    return fail(`${baseUrl} answered 503: the server is still loading, or its engine died. Wait, or check its log.`);
  const list = okJson(models);
  const data = Array.isArray(list?.data) ? (list.data as ModelEntry[]).filter((m) => typeof m?.id === 'string') : null;
  if (!data) {
    return fail(
      `${baseUrl}/v1/models did not answer like an OpenAI-compatible server (HTTP ${models.status}). Check the URL points at the server root.`,
    );
  }
  if (data.length === 0) return fail(`${baseUrl} serves no model yet (empty /v1/models).`);
  const entry = o.model ? data.find((m) => m.id === o.model) : data[0];
  if (!entry)
    return fail(`The model "${o.model}" is not served at ${baseUrl}; it serves: ${data.map((m) => m.id).join(', ')}.`);
  const wrong = wrongModel(entry, o.launchOptions);
  if (wrong) return fail(wrong);

  const small = { timeoutMs: Math.min(timeoutMs, 5000) };
  const [health, version, sglang, props, tgi, metrics, tokenize] = await Promise.all([
    get(at('/health'), small),
    get(at('/version'), small),
    sglangServerInfo(at, small),
    get(at('/props'), small),
    get(at('/info'), small),
    get(at('/metrics'), { ...small, apiKey: o.apiKey }),
    tokenizeInput(at, entry.id, { ...small, apiKey: o.apiKey }),
  ]);
  if ('status' in health && health.status === 503) {
    return fail(
      `${baseUrl}/health answered 503: the engine is not healthy (still loading, or it died). Check the server log.`,
    );
  }

  const sgl = okJson(sglang.fetched);
  const llama = okJson(props);
  const tgiInfo = okJson(tgi);
  const ver = okJson(version);
  const samples = 'status' in metrics && metrics.status === 200 ? parsePrometheus(metrics.text) : [];
  const engineKind: EngineKind =
    sgl && ('max_total_num_tokens' in sgl || 'server_args' in sgl)
      ? 'sglang'
      : llama && 'default_generation_settings' in llama
        ? 'llamacpp'
        : tgiInfo && ('max_total_tokens' in tgiInfo || 'model_id' in tgiInfo)
          ? 'tgi'
          : entry.owned_by === 'vllm' ||
              samples.some((s) => s.name.startsWith('vllm:')) ||
              typeof ver?.version === 'string'
            ? 'vllm'
            : 'unknown';

  const maxModelLen = capped(maxModelLenOf(engineKind, entry, sgl, llama, tgiInfo), o.logMaxModelLen);
  const kvBudget = kvBudgetOf(engineKind, samples, o, sgl && { info: sgl, route: sglang.route }, llama, tgiInfo);
  const maxRunningRequests = engineKind === 'sglang' ? sglangMaxRunning(sgl) : null;
  // vLLM builds without /version: ask the executable itself (slow: it imports torch).
  const cliVersion =
    !stringField(ver, 'version') && !o.logVersion && o.launchOptions?.engineKind === 'vllm-native'
      ? await executableVersion(o.launchOptions.executable || 'vllm')
      : null;
  const launch = o.launch ?? attachLaunch(baseUrl, entry.id, maxModelLen);
  // SpeedMatrix's simulator says so on /version (real vLLM clients ignore the extra fields).
  const simulated = launch.kind === 'simulator' || ver?.simulated === true;
  const simSpeed = typeof ver?.sim_speed === 'number' && ver.sim_speed > 0 ? ver.sim_speed : undefined;

  return ok({
    baseUrl,
    apiKey: o.apiKey,
    model: entry.id,
    maxModelLen,
    kvBudget,
    engine: engineOf(engineKind, { ...o, logVersion: o.logVersion ?? cliVersion }, ver, sgl, tgiInfo, simulated),
    engineKind,
    metricsAvailable: hasKnownSeries(samples),
    tokenize,
    // The server's own max_model_len: what it really uses (32k on the command line is 32,000).
    launch: {
      ...launch,
      url: baseUrl,
      servedModel: launch.servedModel ?? entry.id,
      maxModelLen: maxModelLen ?? launch.maxModelLen,
    },
    simulated,
    ...(simSpeed !== undefined ? { simSpeed } : {}),
    ...(maxRunningRequests !== null ? { maxRunningRequests } : {}),
  });
}

/**
 * SGLang's server facts: `/server_info` (from 0.5.6; `/get_server_info` is deprecated from 0.5.10
 * and logs a warning on every call), else `/get_server_info` (older releases).
 */
async function sglangServerInfo(
  at: (p: string) => string,
  opts: { timeoutMs: number },
): Promise<{ fetched: Fetched; route: string }> {
  const fetched = await get(at('/server_info'), opts);
  if (okJson(fetched)) return { fetched, route: '/server_info' };
  return { fetched: await get(at('/get_server_info'), opts), route: '/get_server_info' };
}

/** Whether /tokenize counts a chat (`messages`), only plain text (`prompt`: SGLang 0.5.4-0.5.11), or not at all. */
async function tokenizeInput(
  at: (p: string) => string,
  model: string,
  opts: { timeoutMs: number; apiKey?: string },
): Promise<ServerTarget['tokenize']> {
  const counts = (f: Fetched): boolean => {
    const tok = okJson(f);
    return tok !== null && (typeof tok.count === 'number' || Array.isArray(tok.count) || Array.isArray(tok.tokens));
  };
  const post = (body: unknown) => get(at('/tokenize'), { ...opts, method: 'POST', body });
  if (counts(await post({ model, messages: [{ role: 'user', content: 'Hello' }] }))) return 'messages';
  return counts(await post({ model, prompt: 'Hello' })) ? 'prompt' : null;
}

/** SGLang's request cap over all data parallel replicas (each states its own), else the launch's setting. */
function sglangMaxRunning(sgl: Record<string, unknown> | null): number | null {
  const perDp = sglangPerReplica(sgl, (s) => asNum(s.effective_max_running_requests_per_dp));
  return perDp ? perDp.reduce((a, b) => a + b, 0) : asNum(sgl?.max_running_requests);
}

/** One figure from each of SGLang's `internal_states` (one per data parallel replica); null unless all state it. */
function sglangPerReplica(
  sgl: Record<string, unknown> | null,
  pick: (state: Record<string, unknown>) => number | null,
): number[] | null {
  const states = Array.isArray(sgl?.internal_states) ? (sgl.internal_states as Record<string, unknown>[]) : [];
  const values = states.map((s) => (s && typeof s === 'object' ? pick(s) : null));
  return values.length > 0 && values.every((v) => v !== null) ? (values as number[]) : null;
}

/** A model folder or hub id as vLLM records it in `root` (no trailing slash). */
const modelRef = (m: string): string => m.trim().replace(/\/+$/, '');

/**
 * A launched server must serve the model that was asked for: an old vLLM image that ignores the
 * positional model serves its default one under the asked --served-model-name, and measuring it
 * would say nothing true. vLLM's /v1/models states the model exactly as it was given in `root`
 * (vllm/entrypoints/openai/api_server.py: BaseModelPath(model_path=args.model)).
 */
export function wrongModel(entry: { id: string; root?: unknown }, lo: LaunchOptions | undefined): string | null {
  if (!lo || typeof entry.root !== 'string' || !entry.root) return null;
  if (lo.engineKind === 'custom' && (!lo.model || lo.model === 'unknown')) return null;
  if (lo.engineKind === 'simulator' && !lo.model) return null;
  if (modelRef(entry.root) === modelRef(lo.model)) return null;
  // SGLang states the served name as `root` (http_server.py available_models), not the model path.
  if (lo.servedModelName && entry.root === lo.servedModelName && entry.root === entry.id) return null;
  return `The server serves the model "${entry.root}" (as "${entry.id}"), not the "${lo.model}" that was asked for; nothing was measured. An old vllm/vllm-openai image (v0.11.0 or older) ignores a model given after the image: launch it with --entrypoint vllm IMAGE serve MODEL.`;
}

/** The context parallel sizes of a launch, from its argv or the startup log's non-default args. */
export function contextParallelOf(
  argv: readonly string[],
  logArgs: Record<string, unknown> | null | undefined,
): ContextParallel {
  return {
    decode: parallelSize(argv, logArgs, ['--decode-context-parallel-size', '-dcp'], 'decode_context_parallel_size'),
    prefill: parallelSize(argv, logArgs, ['--prefill-context-parallel-size', '-pcp'], 'prefill_context_parallel_size'),
  };
}

/** The data parallel size of a launch (`--data-parallel-size`, `-dp`, or the log's non-default args). */
export function dataParallelOf(argv: readonly string[], logArgs: Record<string, unknown> | null | undefined): number {
  return parallelSize(argv, logArgs, ['--data-parallel-size', '-dp'], 'data_parallel_size');
}

/** A parallel size from the launch's flags, else the startup log's non-default args; 1 when unsaid. */
function parallelSize(
  argv: readonly string[],
  logArgs: Record<string, unknown> | null | undefined,
  flags: string[],
  key: string,
): number {
  const v = Number(flagValue(argv, ...flags) ?? logArgs?.[key] ?? 1);
  return Number.isInteger(v) && v > 1 ? v : 1;
}

const stringField = (obj: Record<string, unknown> | null, key: string): string | null =>
  typeof obj?.[key] === 'string' ? (obj[key] as string) : null;

/** `vllm --version` prints the version as its last line (after any warnings). */
export async function executableVersion(executable: string, timeoutMs = 30_000): Promise<string | null> {
  const r = await runCommand(executable, ['--version'], { timeoutMs });
  if (r.status !== 'ok') return null;
  const line = r.stdout.trim().split('\n').pop()?.trim() ?? '';
  return /^v?\d+\.\d+\S*$/.test(line) ? line.replace(/^v/, '') : null;
}

/**
 * A length the startup log lowered (vLLM's auto-fit) caps the one the server states: front ends
 * before vLLM synced the fitted length back still state the model's full length on /v1/models.
 */
function capped(stated: number | null, fromLog: number | null | undefined): number | null {
  if (fromLog === null || fromLog === undefined) return stated;
  return stated === null ? fromLog : Math.min(stated, fromLog);
}

function maxModelLenOf(
  kind: EngineKind,
  entry: ModelEntry,
  sgl: Record<string, unknown> | null,
  llama: Record<string, unknown> | null,
  tgi: Record<string, unknown> | null,
): number | null {
  const fromModels = asNum(entry.max_model_len);
  if (fromModels !== null) return fromModels;
  if (kind === 'sglang')
    return (
      asNum(sgl?.context_length) ?? asNum((sgl?.server_args as Record<string, unknown> | undefined)?.context_length)
    );
  if (kind === 'llamacpp') {
    const nCtx = asNum((llama?.default_generation_settings as Record<string, unknown> | undefined)?.n_ctx);
    return nCtx;
  }
  if (kind === 'tgi') return asNum(tgi?.max_total_tokens);
  return null;
}

/**
 * KV budget by priority: the tokens an engine states on cache_config_info, the startup log's
 * "GPU KV cache size" (right for hybrid models and context parallelism) when it has every data
 * parallel engine's line, then cache_config_info's blocks x block size (times the context parallel
 * sizes; with data parallelism already the sum over engines); other engines' info endpoints; the user's figure.
 */
function kvBudgetOf(
  kind: EngineKind,
  samples: ReturnType<typeof parsePrometheus>,
  o: ProbeOptions,
  sgl: { info: Record<string, unknown>; route: string } | null,
  llama: Record<string, unknown> | null,
  tgi: Record<string, unknown> | null,
): KvBudget {
  const none = { maxConcurrency: null, tokensPerRequest: null };
  const stated = kvFromCacheConfigTokens(samples);
  if (stated)
    return {
      tokens: stated.tokens,
      source: 'metrics-cache-config',
      detail: stated.detail,
      maxConcurrency: stated.maxConcurrency,
      tokensPerRequest: null,
    };
  const blocks = kvFromCacheConfigBlocks(samples, contextParallelOf(o.launch?.argv ?? [], o.logArgs));
  const fromBlocks = blocks && {
    tokens: blocks.tokens,
    source: 'metrics-cache-config' as const,
    detail: blocks.detail,
    maxConcurrency: null,
    tokensPerRequest: null,
  };
  if (o.logKv) {
    // Fewer engines' lines than the launch has engines: the log holds a share, the metric the sum.
    const dp = dataParallelOf(o.launch?.argv ?? [], o.logArgs);
    const partial = o.logKv.engines < dp;
    if (partial && fromBlocks) return fromBlocks;
    return {
      tokens: o.logKv.tokens,
      source: 'startup-log',
      detail: partial
        ? `${o.logKv.detail} (lines of ${o.logKv.engines} of ${dp} data parallel engines were read)`
        : o.logKv.detail,
      maxConcurrency: o.logKv.maxConcurrency,
      tokensPerRequest: o.logKv.tokensPerRequest,
    };
  }
  if (fromBlocks) return fromBlocks;
  if (kind === 'sglang' && sgl) {
    const fromSglang = sglangKv(sgl.info, sgl.route);
    if (fromSglang) return { ...fromSglang, source: 'engine-info', ...none };
  }
  if (kind === 'llamacpp') {
    // llama.cpp splits --ctx-size across slots; /props states the per-slot n_ctx.
    const nCtx = asNum((llama?.default_generation_settings as Record<string, unknown> | undefined)?.n_ctx);
    const slots = asNum(llama?.total_slots) ?? 1;
    if (nCtx !== null)
      return {
        tokens: nCtx * slots,
        source: 'engine-info',
        detail: `llama.cpp /props n_ctx ${nCtx} x total_slots ${slots}`,
        ...none,
      };
  }
  if (kind === 'tgi' && asNum(tgi?.max_batch_total_tokens) !== null) {
    return {
      tokens: asNum(tgi?.max_batch_total_tokens),
      source: 'engine-info',
      detail: 'TGI /info max_batch_total_tokens',
      ...none,
    };
  }
  if (o.userKvTokens !== undefined)
    return { tokens: o.userKvTokens, source: 'user', detail: 'given by the user', ...none };
  return { tokens: null, source: 'unknown', detail: null, ...none };
}

/**
 * SGLang's KV pool over all data parallel replicas: `max_total_num_tokens` is replica 0's alone
 * (data_parallel_controller.py), so each replica's `memory_usage.token_capacity` is added up, or
 * without them the one figure times `dp_size`.
 */
function sglangKv(info: Record<string, unknown>, route: string): { tokens: number; detail: string } | null {
  const perDp = sglangPerReplica(info, (s) =>
    asNum((s.memory_usage as Record<string, unknown> | undefined)?.token_capacity),
  );
  if (perDp && perDp.length > 1)
    return {
      tokens: perDp.reduce((a, b) => a + b, 0),
      detail: `SGLang ${route} memory_usage.token_capacity summed over ${perDp.length} data parallel replicas`,
    };
  const one = asNum(info.max_total_num_tokens);
  if (one === null) return null;
  const dp = asNum(info.dp_size) ?? 1;
  return dp > 1
    ? { tokens: one * dp, detail: `SGLang ${route} max_total_num_tokens x dp_size ${dp}` }
    : { tokens: one, detail: `SGLang ${route} max_total_num_tokens` };
}

const ENGINE_NAMES: Record<EngineKind, string> = {
  vllm: 'vllm',
  sglang: 'sglang',
  llamacpp: 'llama.cpp',
  tgi: 'tgi',
  unknown: 'unknown',
};
const REPOS: Partial<Record<EngineKind, string>> = {
  vllm: 'github.com/vllm-project/vllm',
  sglang: 'github.com/sgl-project/sglang',
  llamacpp: 'github.com/ggml-org/llama.cpp',
  tgi: 'github.com/huggingface/text-generation-inference',
};

function engineOf(
  kind: EngineKind,
  o: ProbeOptions,
  ver: Record<string, unknown> | null,
  sgl: Record<string, unknown> | null,
  tgi: Record<string, unknown> | null,
  simulated: boolean,
): Engine {
  const version =
    (typeof ver?.version === 'string' ? ver.version : null) ??
    (typeof sgl?.version === 'string' ? sgl.version : null) ??
    (typeof tgi?.version === 'string' ? tgi.version : null) ??
    o.logVersion ??
    null;
  const lo = o.launchOptions;
  const local = lo ? readLocalModelConfig(lo.model) : null;
  const dtypeFlag = lo?.dtype && lo.dtype !== 'auto' ? lo.dtype : null;
  const dtype = dtypeFlag ?? o.logEngineConfig?.dtype ?? local?.torchDtype ?? null;
  const quantization = quantizationLabel(
    lo?.quantization ?? o.logEngineConfig?.quantization ?? local?.quantMethod ?? null,
    dtype,
  );
  const commit = commitFromVersion(version) ?? (typeof tgi?.sha === 'string' ? tgi.sha.slice(0, 12) : null);
  return {
    name: simulated ? 'vllm (simulated)' : ENGINE_NAMES[kind],
    version,
    commit,
    quantization,
    dtype,
    backend: simulated ? 'simulated' : backendFromVersion(version, o.backendHint ?? null),
    build: lo ? buildOf(lo) : null,
    repository: REPOS[kind] ?? null,
  };
}

/** The server block for a server SpeedMatrix did not start. */
export function attachLaunch(baseUrl: string, model: string | null, maxModelLen: number | null): ServerLaunch {
  return {
    kind: 'attach',
    url: baseUrl,
    argv: [],
    env: {},
    display: `attach ${baseUrl}`,
    model,
    servedModel: model,
    revision: null,
    maxModelLen,
  };
}
