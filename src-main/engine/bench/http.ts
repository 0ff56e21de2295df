/**
 * The benchmark's HTTP client: one undici Agent sized for thousands of simultaneous streams,
 * small JSON helpers, and every network or HTTP failure turned into a sentence a person can
 * act on (never including the API key).
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import type { ServerTarget } from '../server/target';
import { badPortSentence } from '../server/probe';
import { errorMessageOf } from './sse';

/**
 * The most streams one cell may hold at once. Each stream needs its own connection (no
 * pipelining), and a stream beyond the pool would wait for a free connection forever: the ramp
 * would never end. Larger values are refused up front (`streamsCeilingReason`). 4,096 streams
 * were measured to ramp, hold and read at the simulator's truth on a 2-core machine
 * (tests/integration/bench/many-streams.test.ts); beyond that the client's one thread, not the
 * server, would set the pace.
 */
export const MAX_STREAMS = 4096;

/** Connections for /metrics scrapes, /tokenize and health checks on the side of the streams. */
const SIDE_CONNECTIONS = 128;
const MAX_CONNECTIONS = MAX_STREAMS + SIDE_CONNECTIONS;

/** Open files a run needs besides its sockets: Node's own, the session file, its journal, logs and pipes. */
const OTHER_FILES = 128;

/**
 * How many files (sockets included) this process may open: the soft "Max open files" of
 * /proc/self/limits (Node raises it to the hard limit at start, so this is the hard limit of the
 * shell's `ulimit -n`); null where the OS does not say (then nothing is checked).
 */
export function openFileLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(text);
  if (!m) return null;
  return m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
}

/** The open files a cell of `concurrency` streams needs: a socket per stream, the side connections, the rest. */
export function filesNeeded(concurrency: number): number {
  return concurrency + SIDE_CONNECTIONS + OTHER_FILES;
}

/**
 * Why a run asking for these numbers of requests at once cannot be measured; null when it can.
 * Above MAX_STREAMS the client cannot hold them; below it, the OS may still allow too few open
 * files (`ulimit -n`): each stream's socket is one, and a socket refused (EMFILE) mid-ramp would
 * fail requests instead of measuring.
 */
export function streamsCeilingReason(
  concurrency: readonly number[],
  fileLimit: number | null = openFileLimit(),
): string | null {
  const over = concurrency.filter((c) => c > MAX_STREAMS);
  if (over.length > 0)
    return `--concurrency ${over.join(',')} is more than this client can hold at once (${MAX_STREAMS} streams, one connection each); choose at most ${MAX_STREAMS}.`;
  if (fileLimit === null) return null;
  const short = concurrency.filter((c) => filesNeeded(c) > fileLimit);
  if (short.length === 0) return null;
  const most = Math.max(...short);
  const fits = Math.max(0, fileLimit - filesNeeded(0));
  return `--concurrency ${short.join(',')} needs about ${filesNeeded(most)} open files (one socket per stream), and this system lets the client open only ${fileLimit} (ulimit -n). Raise the limit (\`ulimit -n ${filesNeeded(most)}\` in the shell that starts speedmatrix, or LimitNOFILE= in its systemd unit) or choose at most ${fits}.`;
}

/**
 * How long an idle socket is kept for reuse. vLLM's server (uvicorn) closes idle connections
 * after 5 s (VLLM_HTTP_TIMEOUT_KEEP_ALIVE, default 5, in vllm/envs.py); a socket kept longer can
 * be closed under a new request, which would read as the server going down.
 */
export const IDLE_SOCKET_MS = 4_000;

/**
 * The output limit in a chat request: `max_completion_tokens` (OpenAI's name, which vLLM
 * prefers; `max_tokens` is deprecated there) and `max_tokens` for engines that read only that.
 */
export function maxTokensFields(n: number): { max_completion_tokens: number; max_tokens: number } {
  return { max_completion_tokens: n, max_tokens: n };
}

export interface BenchHttp {
  agent: Agent;
  baseUrl: string;
  origin: string;
  /** Path prefix of the base URL (e.g. "/proxy"), without trailing slash. */
  prefix: string;
  headers: Record<string, string>;
  model: string;
  /** What the server's POST /tokenize counts (see ServerTarget.tokenize). */
  tokenize: ServerTarget['tokenize'];
}

/** What a BenchHttp is made of, as data: another thread builds its own client from it (stream-shards.ts). */
export type HttpSettings = Omit<BenchHttp, 'agent'>;

export function createHttp(target: ServerTarget): BenchHttp {
  const u = new URL(target.baseUrl);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return httpFrom({
    baseUrl: target.baseUrl,
    origin: u.origin,
    prefix: u.pathname.replace(/\/+$/, ''),
    headers,
    model: target.model,
    tokenize: target.tokenize,
  });
}

/** A client with its own connection pool, from a client's settings. */
export function httpFrom(settings: HttpSettings): BenchHttp {
  return {
    // No body/headers timeouts: long prefills are legitimate; stalls are detected per stream.
    agent: new Agent({
      connections: MAX_CONNECTIONS,
      pipelining: 1,
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: IDLE_SOCKET_MS,
      keepAliveMaxTimeout: IDLE_SOCKET_MS,
    }),
    ...settings,
  };
}

/** A client's settings without its pool (headers copied: the key stays in this process's memory only). */
export function httpSettings(http: BenchHttp): HttpSettings {
  const { agent: _agent, ...settings } = http;
  return { ...settings, headers: { ...settings.headers } };
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly serverMessage: string,
    message: string,
  ) {
    super(message);
  }
}

/** A failing HTTP status with the server's own message, explained. */
export function describeHttpStatus(status: number, serverMessage: string, path: string): string {
  const msg = serverMessage.trim().slice(0, 500);
  if (status === 401 || status === 403)
    return `The server refused the API key (HTTP ${status}${msg ? `: ${msg}` : ''}). Pass the right key with --api-key.`;
  if (status === 404 && /model/i.test(msg)) return `The model is not served by this server (HTTP 404: ${msg}).`;
  if (status === 400 && /maximum context length|context length is only|max_model_len/i.test(msg))
    return `The prompt and output do not fit the server's context (HTTP 400: ${msg}).`;
  return `HTTP ${status} from ${path}${msg ? `: ${msg}` : ''}`;
}

/** The server's message from an error body (JSON in any of vLLM's shapes, or plain text). */
export function serverMessageOf(body: string): string {
  try {
    const doc = JSON.parse(body) as unknown;
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) return errorMessageOf(doc as Record<string, unknown>);
  } catch {
    // not JSON: use the text itself
  }
  return body.trim().slice(0, 500);
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|UNABLE_TO_|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH)/;

/** A network error, explained. `url` is the base URL (never with credentials). */
export function describeNetworkError(e: unknown, url: string): string {
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err?.code ?? err?.cause?.code ?? '';
  const detail = err?.cause?.message ?? err?.message ?? String(e);
  const badPort = badPortSentence(url, detail);
  if (badPort) return badPort;
  if (code === 'ECONNREFUSED')
    return `Connection refused at ${url}: nothing is listening there. Is the server running, on that host and port?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `Cannot resolve the host of ${url} (${code}). Check the URL.`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return `Timed out connecting to ${url}. Check the URL, firewall and network.`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `The host of ${url} is unreachable (${code}).`;
  if (TLS_CODES.test(code) || /certificate|tls|ssl/i.test(detail))
    return `TLS failure talking to ${url}: ${detail}. Check the https URL and the server's certificate (or use http:// if the server does not speak TLS).`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED')
    return `The server at ${url} closed the connection (${code}): it may have crashed or been stopped.`;
  return `Request to ${url} failed: ${detail}${code ? ` (${code})` : ''}`;
}

/** True when an error means the server is gone (not a per-request refusal). */
export function isConnectionLoss(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err?.code ?? err?.cause?.code ?? '';
  return ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_CLOSED'].includes(code);
}

/** A kept-alive socket the server had already closed: the request never reached it. */
const STALE_SOCKET = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_CLOSED']);

async function call(
  http: BenchHttp,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  const send = () =>
    http.agent.request({
      origin: http.origin,
      path: http.prefix + path,
      method,
      headers: http.headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  let res;
  try {
    res = await send();
  } catch (e) {
    // Nothing came back, so the request is sent once more, on a fresh socket; a second failure is real.
    const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    if (!STALE_SOCKET.has(err?.code ?? err?.cause?.code ?? '') || signal.aborted) throw e;
    res = await send();
  }
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

/** GET a text resource; null on any failure (used for optional endpoints such as /metrics). */
export async function getTextOrNull(http: BenchHttp, path: string, timeoutMs = 5_000): Promise<string | null> {
  try {
    const r = await call(http, 'GET', path, undefined, timeoutMs);
    return r.status >= 200 && r.status < 300 ? r.text : null;
  } catch {
    return null;
  }
}

/** POST JSON and parse the JSON answer; throws HttpError or a network error, described. */
export async function postJson<T>(http: BenchHttp, path: string, body: unknown, timeoutMs = 120_000): Promise<T> {
  let r: { status: number; text: string };
  try {
    r = await call(http, 'POST', path, body, timeoutMs);
  } catch (e) {
    throw new Error(describeNetworkError(e, http.baseUrl), { cause: e });
  }
  if (r.status < 200 || r.status >= 300) {
    const msg = serverMessageOf(r.text);
    throw new HttpError(r.status, msg, describeHttpStatus(r.status, msg, path));
  }
  try {
    return JSON.parse(r.text) as T;
  } catch {
    throw new Error(`${path} answered with something that is not JSON: ${r.text.slice(0, 200)}`);
  }
}

/** Whether the server is up: /health below 500 (or /v1/models where there is no /health). */
export async function isHealthy(http: BenchHttp, timeoutMs = 3_000): Promise<boolean> {
  try {
    const r = await call(http, 'GET', '/health', undefined, timeoutMs);
    if (r.status !== 404) return r.status < 500;
    return (await call(http, 'GET', '/v1/models', undefined, timeoutMs)).status < 500;
  } catch {
    return false;
  }
}
