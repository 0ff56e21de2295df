/**
 * Reading a vLLM server's log, line by line. Pure: text in, facts out. Wording changes between
 * vLLM versions, so each pattern is tolerant (ANSI colour, process prefixes, thousands
 * separators) and unknown lines are simply ignored.
 */

// eslint-disable-next-line no-control-regex -- ANSI colour codes are control characters
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** Remove ANSI colour/cursor codes (vLLM colours its prefix even when piped). */
export function stripAnsi(line: string): string {
  return line.replace(ANSI, '').replace(/\r$/, '');
}

const num = (s: string): number => Number(s.replace(/,/g, ''));

/** One periodic `Engine 000: Avg prompt throughput ...` line. */
export interface StatsLine {
  promptTokensPerSecond: number;
  generationTokensPerSecond: number;
  running: number;
  waiting: number;
  /** 0..1 */
  kvCacheUsage: number | null;
  /** 0..1 */
  prefixCacheHitRate: number | null;
  /** Preemptions since the last stats line (vLLM prints the field only when above 0). */
  preemptions: number | null;
  /** Requests the scheduler skipped this step ("Deferred: N reqs"), already counted in waiting. */
  deferred: number | null;
}

export type LogEvent =
  | { kind: 'version'; version: string }
  | { kind: 'served-model'; model: string }
  | { kind: 'non-default-args'; text: string; args: Record<string, unknown> | null }
  | { kind: 'max-model-len'; tokens: number }
  | { kind: 'max-model-len-auto-fit'; from: number; tokens: number }
  | { kind: 'engine-config'; dtype: string | null; quantization: string | null; kvCacheDtype: string | null }
  | { kind: 'model-loaded'; text: string }
  | { kind: 'available-kv-memory'; gib: number }
  | { kind: 'gpu-blocks'; blocks: number }
  | { kind: 'kv-cache-size'; tokens: number; engine: string }
  | { kind: 'max-concurrency'; tokensPerRequest: number; concurrency: number }
  | { kind: 'graph-capture'; text: string }
  | { kind: 'server-starting'; url: string | null }
  | { kind: 'startup-complete' }
  | { kind: 'shutdown'; text: string }
  | { kind: 'stats'; stats: StatsLine };

/** Parse a Python dict repr as vLLM prints it (`{'a': 1, 'b': True, 'c': None}`); null when it cannot. */
export function parsePythonDict(text: string): Record<string, unknown> | null {
  // Convert quoting and literals outside of strings only.
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      let s = '';
      let j = i + 1;
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && j + 1 < text.length) {
          s += text[j + 1];
          j += 2;
          continue;
        }
        s += text[j++];
      }
      out += JSON.stringify(s);
      i = j;
      continue;
    }
    const word = /^(True|False|None)\b/.exec(text.slice(i));
    if (word && !/[A-Za-z0-9_]/.test(text[i - 1] ?? '')) {
      out += word[1] === 'True' ? 'true' : word[1] === 'False' ? 'false' : 'null';
      i += word[1].length - 1;
      continue;
    }
    out += c === '(' ? '[' : c === ')' ? ']' : c;
  }
  try {
    const v = JSON.parse(out.replace(/,\s*([}\]])/g, '$1'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The version, in every shape vLLM has printed it: "vLLM API server version X" (to 0.14),
 * "vLLM server version X, serving model M" and the logo's "version X" (from early 2026), and the
 * engine's "Initializing a V1 LLM engine (vX)" (V0: "Initializing an LLM engine (vX)").
 */
const VERSION = [
  /vLLM (?:API )?server version (\S+?),? /,
  /vLLM (?:API )?server version (\S+)$/,
  /[█▀▄]\s+version\s+(\S+)\s*$/,
  /Initializing an? (?:V1 )?LLM engine \(v([^)\s]+)\)/,
];
const SERVED_MODEL = [/vLLM server version \S+, serving model (\S+)/, /[█▀▄]\s+model\s+(\S+)\s*$/];

const PATTERNS: Array<[RegExp, (m: RegExpExecArray) => LogEvent]> = [
  [/non-default args: (\{.*\})\s*$/, (m) => ({ kind: 'non-default-args', text: m[1], args: parsePythonDict(m[1]) })],
  [/Using max model len ([\d,]+)/, (m) => ({ kind: 'max-model-len', tokens: num(m[1]) })],
  // --max-model-len auto (v1/core/kv_cache_utils.py): the engine lowers the length to what its KV cache holds.
  [
    /Auto-fit max_model_len: reduced from ([\d,]+) to ([\d,]+)/,
    (m) => ({ kind: 'max-model-len-auto-fit', from: num(m[1]), tokens: num(m[2]) }),
  ],
  [
    /Initializing a V1 LLM engine .*with config: (.*)$|Initializing an LLM engine .*with config: (.*)$/,
    (m) => {
      const cfg = m[1] ?? m[2];
      const field = (name: string) => {
        const v =
          new RegExp(`(?:^|, )${name}=([^,]+)`)
            .exec(cfg)?.[1]
            ?.trim()
            .replace(/^torch\./, '') ?? null;
        return v === null || v === 'None' ? null : v;
      };
      return {
        kind: 'engine-config',
        dtype: field('dtype'),
        quantization: field('quantization'),
        kvCacheDtype: field('kv_cache_dtype'),
      };
    },
  ],
  [/(Model loading took .*)$/, (m) => ({ kind: 'model-loaded', text: m[1] })],
  [/Available KV cache memory: ([\d.]+) GiB/, (m) => ({ kind: 'available-kv-memory', gib: Number(m[1]) })],
  // V0 executors: "# cuda blocks: N, # CPU blocks: M" (the platform's device name; "GPU" in older releases).
  [/# (?:GPU|cuda|rocm|xpu|hpu|tpu|neuron|cpu) blocks: ([\d,]+)/i, (m) => ({ kind: 'gpu-blocks', blocks: num(m[1]) })],
  [/(Graph capturing finished.*)$/, (m) => ({ kind: 'graph-capture', text: m[1] })],
  [/Starting vLLM (?:API )?server(?: \d+)? on (\S+)/, (m) => ({ kind: 'server-starting', url: m[1] })],
  [/Application startup complete/, () => ({ kind: 'startup-complete' })],
  [
    /(Shutting down FastAPI HTTP server|Application shutdown complete|Finished server process)/,
    (m) => ({ kind: 'shutdown', text: m[1] }),
  ],
];

const CONCURRENCY = /Maximum concurrency for ([\d,]+) tokens per request: ([\d.,]+)x/;
const KV_SIZE = /GPU KV cache size: ([\d,]+) tokens/;
/**
 * The data parallel rank of an engine core's line: "(EngineCore_DP1 pid=..)" from vLLM 0.10.2,
 * "(EngineCore_1 pid=..)" before (the process name in vllm/v1/engine/utils.py); one engine when absent.
 */
const ENGINE_RANK = /\(EngineCore(?:_(?:DP)?(\d+))? pid=\d+\)/;
/** The periodic stats line: "Avg prompt throughput: ..." then comma-separated "Key: value" fields. */
const STATS_START = /Avg prompt throughput: /;

/** "512.3 tokens/s", "3 reqs", "4.2%" -> the number (percent as 0..1); null when it is not one. */
function statValue(text: string): number | null {
  const m = /^([\d.,]+)\s*(%|tokens\/s|reqs?)?\.?$/.exec(text.trim());
  if (!m) return null;
  const v = num(m[1]);
  if (!Number.isFinite(v)) return null;
  return m[2] === '%' ? v / 100 : v;
}

/**
 * The stats line as `Key: value` pairs, so fields vLLM adds (Swapped, Deferred, Preemptions,
 * Corrupted, External prefix cache hit rate, ...) never hide the ones after them.
 */
function parseStats(line: string): StatsLine | null {
  const start = STATS_START.exec(line);
  if (!start) return null;
  const fields = new Map<string, number | null>();
  for (const part of line.slice(start.index).split(/,\s+/)) {
    const colon = part.indexOf(': ');
    if (colon > 0) fields.set(part.slice(0, colon).trim(), statValue(part.slice(colon + 2)));
  }
  const prompt = fields.get('Avg prompt throughput');
  const gen = fields.get('Avg generation throughput');
  const running = fields.get('Running');
  const waiting = fields.get('Waiting') ?? fields.get('Pending');
  if (prompt == null || gen == null || running == null || waiting == null) return null;
  return {
    promptTokensPerSecond: prompt,
    generationTokensPerSecond: gen,
    running,
    waiting,
    kvCacheUsage: fields.get('GPU KV cache usage') ?? null,
    prefixCacheHitRate: fields.get('Prefix cache hit rate') ?? null,
    preemptions: fields.get('Preemptions') ?? null,
    deferred: fields.get('Deferred') ?? null,
  };
}

/**
 * The facts one line states (several for the one-line KV capacity shape). ANSI codes are
 * stripped first, so raw lines can be passed.
 */
export function parseLogLine(raw: string): LogEvent[] {
  const line = stripAnsi(raw);
  const events: LogEvent[] = [];
  const version = VERSION.map((re) => re.exec(line)).find(Boolean);
  if (version) events.push({ kind: 'version', version: version[1] });
  const served = SERVED_MODEL.map((re) => re.exec(line)).find(Boolean);
  if (served) events.push({ kind: 'served-model', model: served[1] });
  for (const [re, make] of PATTERNS) {
    const m = re.exec(line);
    if (m) events.push(make(m));
  }
  const kv = KV_SIZE.exec(line);
  if (kv) events.push({ kind: 'kv-cache-size', tokens: num(kv[1]), engine: ENGINE_RANK.exec(line)?.[1] ?? '0' });
  const c = CONCURRENCY.exec(line);
  if (c) events.push({ kind: 'max-concurrency', tokensPerRequest: num(c[1]), concurrency: num(c[2]) });
  const stats = parseStats(line);
  if (stats) events.push({ kind: 'stats', stats });
  return events;
}

/** The KV capacity the startup log stated, in tokens, with the line(s) it came from. */
export interface LogKvBudget {
  tokens: number;
  detail: string;
  maxConcurrency: number | null;
  tokensPerRequest: number | null;
  /** How many data parallel engines' lines were read (a budget from fewer than the launch has is one engine's share). */
  engines: number;
}

/** What the log has told so far. Built up with `applyLogLine`. */
export interface LogFacts {
  version: string | null;
  /** The model the server says it serves ("serving model M", the logo's "model M"). */
  servedModel: string | null;
  /** From the "Initializing ... engine ... with config:" line. */
  engineDtype: string | null;
  engineQuantization: string | null;
  nonDefaultArgs: Record<string, unknown> | null;
  maxModelLen: number | null;
  /**
   * The length `--max-model-len auto` was reduced to ("Auto-fit max_model_len: reduced from A to B"):
   * what the engine really accepts, although a front end that does not hear of it states A.
   */
  autoFitMaxModelLen: number | null;
  availableKvGib: number | null;
  gpuBlocks: number | null;
  /** "GPU KV cache size" per data parallel engine (each engine core prints its own). */
  kvCacheTokensByEngine: Record<string, number>;
  maxConcurrency: number | null;
  concurrencyTokensPerRequest: number | null;
  serverUrl: string | null;
  startupComplete: boolean;
  /** A short word for what the server is doing now, for progress displays. */
  phase: string;
  lastStats: StatsLine | null;
}

export function emptyLogFacts(): LogFacts {
  return {
    version: null,
    servedModel: null,
    engineDtype: null,
    engineQuantization: null,
    nonDefaultArgs: null,
    maxModelLen: null,
    autoFitMaxModelLen: null,
    availableKvGib: null,
    gpuBlocks: null,
    kvCacheTokensByEngine: {},
    maxConcurrency: null,
    concurrencyTokensPerRequest: null,
    serverUrl: null,
    startupComplete: false,
    phase: 'starting process',
    lastStats: null,
  };
}

const PHASE_HINTS: Array<[RegExp, string]> = [
  [/Downloading|download/i, 'downloading model'],
  [/Loading (?:safetensors|weights|model)|Starting to load model|Loading checkpoint/i, 'loading model weights'],
  [/Memory profiling|profiling|Available KV cache memory/i, 'profiling memory'],
  [/Capturing CUDA graph|Graph capturing|torch\.compile|Compiling/i, 'compiling / capturing CUDA graphs'],
  [
    /init engine|Starting vLLM (?:API )?server|Started server process|Waiting for application startup/i,
    'starting API server',
  ],
];

/** Fold one log line into the facts (returns a new object; the input is not changed). */
export function applyLogLine(facts: LogFacts, raw: string): LogFacts {
  const next = { ...facts };
  const line = stripAnsi(raw);
  for (const [re, phase] of PHASE_HINTS) if (re.test(line)) next.phase = phase;
  for (const e of parseLogLine(line)) {
    switch (e.kind) {
      case 'version':
        // The API server's line is the most precise; the engine's repeats it.
        next.version ??= e.version;
        break;
      case 'served-model':
        next.servedModel = e.model;
        break;
      case 'engine-config':
        next.engineDtype = e.dtype;
        next.engineQuantization = e.quantization;
        break;
      case 'non-default-args':
        next.nonDefaultArgs = e.args;
        break;
      case 'max-model-len':
        next.maxModelLen = e.tokens;
        break;
      case 'max-model-len-auto-fit':
        // Several engines (data parallel) each fit their own; the smallest holds for all.
        next.autoFitMaxModelLen = Math.min(next.autoFitMaxModelLen ?? e.tokens, e.tokens);
        break;
      case 'available-kv-memory':
        next.availableKvGib = e.gib;
        break;
      case 'gpu-blocks':
        next.gpuBlocks = e.blocks;
        break;
      case 'kv-cache-size':
        next.kvCacheTokensByEngine = { ...next.kvCacheTokensByEngine, [e.engine]: e.tokens };
        break;
      case 'max-concurrency':
        next.maxConcurrency = e.concurrency;
        next.concurrencyTokensPerRequest = e.tokensPerRequest;
        break;
      case 'server-starting':
        next.serverUrl = e.url;
        break;
      case 'startup-complete':
        next.startupComplete = true;
        next.phase = 'waiting for /health';
        break;
      case 'stats':
        next.lastStats = e.stats;
        break;
      default:
        break;
    }
  }
  return next;
}

/** Fold many lines. */
export function parseLog(lines: readonly string[]): LogFacts {
  return lines.reduce(applyLogLine, emptyLogFacts());
}

/**
 * The KV budget the log states. "GPU KV cache size: N tokens" is vLLM's own figure: it already
 * counts hybrid models' KV cache groups and context parallelism, and each data parallel engine
 * prints its own, so they are added up. V0's line gives blocks, times the block size (16 unless
 * `--block-size` was set).
 */
export function logKvBudget(f: LogFacts): LogKvBudget | null {
  const conc = { maxConcurrency: f.maxConcurrency, tokensPerRequest: f.concurrencyTokensPerRequest };
  const engines = Object.entries(f.kvCacheTokensByEngine);
  if (engines.length > 0) {
    const tokens = engines.reduce((sum, [, t]) => sum + t, 0);
    const line = `"GPU KV cache size: ${engines[0][1].toLocaleString('en-US')} tokens"`;
    const detail =
      engines.length > 1
        ? `startup log ${line}, summed over ${engines.length} data parallel engines`
        : `startup log ${line}`;
    return { tokens, detail, ...conc, engines: engines.length };
  }
  if (f.gpuBlocks !== null) {
    const bs = Number(f.nonDefaultArgs?.block_size ?? 16) || 16;
    return {
      tokens: f.gpuBlocks * bs,
      detail: `startup log "# GPU blocks: ${f.gpuBlocks}" x block size ${bs}`,
      ...conc,
      engines: 1,
    };
  }
  return null;
}
