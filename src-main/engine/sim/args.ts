/**
 * `vllm serve` command line (plus the simulator's own --sim-* flags), parsed by hand so
 * unknown flags pass through with a warning instead of failing: a flag from a newer vLLM must
 * not stop the simulator.
 */
import { fail, ok, type Result } from '#shared/result';
import {
  // The launch settings' flags by key, as the launch line writes them.
  LAUNCH_FLAGS as FLAG,
  LAUNCH_SETTINGS,
  negatedFlag,
  type LaunchSettingKey,
  type SettingArg,
} from '#shared/server/launch-settings';
import { parseMaxModelLenArg } from '../server/human-int';
import { checkKvCacheDtype, vllmTraits } from './vllm-traits';

export interface Faults {
  loopAfter?: number;
  loopContexts?: number[];
  loopConcurrency?: number[];
  crashAfterSeconds?: number;
  crashAfterTokens?: number;
  hangAfterTokens?: number;
  errorEventAfterTokens?: number;
  malformedChunkAfterTokens?: number;
  share500?: number;
}

interface SimOptions {
  profile: string;
  speed: number;
  logStyle: 1 | 2 | 3;
  /** Wall seconds of loading; undefined = the profile's own load time / speed. */
  loadSeconds?: number;
  debug: boolean;
  seed: number;
  /** The first this many tokens of every chat response are reasoning text (a thinking model); 0 = none; null: the profile's. */
  reasoningTokens: number | null;
  /** Step-time jitter: the standard deviation of the log of each step's time factor (0 = none). */
  stepJitter: number;
  faults: Faults;
}

export interface ServeConfig {
  /** MODEL as given (undefined: use the profile's model). */
  model?: string;
  servedModelNames: string[];
  host: string;
  port: number;
  apiKeys: string[];
  /** 'auto' = the model's derived maximum. */
  maxModelLen: number | 'auto';
  /** As given, or the default of the profile's vLLM version (set by `applyProfileVersion`). */
  gpuMemoryUtilization: number;
  /** Whether --gpu-memory-utilization was given. */
  gpuMemoryUtilizationGiven: boolean;
  maxNumSeqs?: number;
  maxNumBatchedTokens?: number;
  kvCacheDtype: string;
  enablePrefixCaching: boolean;
  blockSize: number;
  streamInterval?: number;
  tensorParallelSize: number;
  accessLog: boolean;
  logStats: boolean;
  /** vLLM flags given on the command line, for the `non-default args: {...}` line. */
  nonDefault: Record<string, unknown>;
  /** One line per unknown flag, printed as a warning at startup. */
  warnings: string[];
  sim: SimOptions;
}

/** Comma list of context sizes (`8K,65536`) or plain integers. */
function parseList(text: string): number[] | undefined {
  const out: number[] = [];
  for (const part of text.split(',')) {
    const v = parseMaxModelLenArg(part);
    if (typeof v !== 'number') return undefined;
    out.push(v);
  }
  return out.length ? out : undefined;
}

type Kind = 'int' | 'float' | 'string' | 'bool' | 'multi';
type FlagKind = Kind | 'accepted-value' | 'accepted-bool';

/** The launch settings the simulator acts on; the table's others are accepted and change nothing it models. */
const MODELLED: ReadonlySet<LaunchSettingKey> = new Set<LaunchSettingKey>([
  'servedModelName',
  'maxModelLen',
  'gpuMemoryUtilization',
  'maxNumSeqs',
  'maxNumBatchedTokens',
  'tensorParallelSize',
  'kvCacheDtype',
  'enablePrefixCaching',
]);

/** How the parser takes a setting's value; a token count is read later, by vLLM's rule for it. */
const ARG_KIND: Record<SettingArg, Kind> = {
  int: 'int',
  float: 'float',
  tokens: 'string',
  text: 'string',
  names: 'multi',
  switch: 'bool',
};

/** The launch settings' flags (LAUNCH_SETTINGS, the same table the launch line is written from), `--no-` forms included. */
const SETTING_KINDS: Record<string, FlagKind> = Object.fromEntries(
  LAUNCH_SETTINGS.flatMap((s): [string, FlagKind][] => {
    const kind = MODELLED.has(s.key) ? ARG_KIND[s.arg] : s.arg === 'switch' ? 'accepted-bool' : 'accepted-value';
    const negated: [string, FlagKind][] = 'negatable' in s && s.negatable ? [[negatedFlag(s.flag), kind]] : [];
    return [[s.flag, kind], ...negated];
  }),
);

// Other flags the simulator acts on. Key = canonical long name.
const HANDLED: Record<string, Kind> = {
  '--model': 'string',
  '--host': 'string',
  '--port': 'int',
  '--api-key': 'multi',
  '--block-size': 'int',
  '--stream-interval': 'int',
  '--disable-uvicorn-access-log': 'bool',
  '--disable-log-stats': 'bool',
};

// Real vLLM flags the simulator accepts and ignores (they change nothing it models).
const ACCEPTED_VALUE = [
  '--limit-mm-per-prompt',
  '--seed',
  '--swap-space',
  '--tokenizer',
  '--download-dir',
  '--load-format',
  '--tool-call-parser',
  '--reasoning-parser',
  '--chat-template',
  '--uvicorn-log-level',
  '--cpu-offload-gb',
  '--shutdown-timeout',
  '--generation-config',
  '--hf-overrides',
  '--override-generation-config',
  '--compilation-config',
  '--speculative-config',
  '--mm-processor-kwargs',
  '--root-path',
  '--ssl-keyfile',
  '--ssl-certfile',
  '--allowed-origins',
  '--max-logprobs',
  '--tokenizer-mode',
  '--config-format',
  '--max-num-partial-prefills',
  '--data-parallel-size-local',
  '--code-revision',
];
const ACCEPTED_BOOL = [
  '--enforce-eager',
  '--language-model-only',
  '--disable-log-requests',
  '--enable-log-requests',
  '--enable-chunked-prefill',
  '--no-enable-chunked-prefill',
  '--disable-custom-all-reduce',
  '--enable-auto-tool-choice',
  '--disable-frontend-multiprocessing',
  '--enable-expert-parallel',
  '--async-scheduling',
  '--enable-sleep-mode',
];
const SHORT: Record<string, string> = {
  ...Object.fromEntries(LAUNCH_SETTINGS.flatMap((s) => ('short' in s ? [[s.short, s.flag]] : []))),
  '-O': '--compilation-config',
};

const SIM: Record<string, Kind> = {
  '--sim-profile': 'string',
  '--sim-speed': 'float',
  '--sim-log-style': 'int',
  '--sim-load-seconds': 'float',
  '--sim-slow-start': 'float',
  '--sim-debug': 'bool',
  '--sim-seed': 'int',
  '--sim-reasoning-tokens': 'int',
  '--sim-step-jitter': 'float',
  '--sim-loop-after': 'int',
  '--sim-loop-contexts': 'string',
  '--sim-loop-concurrency': 'string',
  '--sim-crash-after-seconds': 'float',
  '--sim-crash-after-tokens': 'int',
  '--sim-hang-after-tokens': 'int',
  '--sim-error-event-after-tokens': 'int',
  '--sim-malformed-chunk-after-tokens': 'int',
  '--sim-500-share': 'float',
};

function kindOf(flag: string): FlagKind | undefined {
  if (HANDLED[flag]) return HANDLED[flag];
  if (SETTING_KINDS[flag]) return SETTING_KINDS[flag];
  if (SIM[flag]) return SIM[flag];
  if (ACCEPTED_VALUE.includes(flag)) return 'accepted-value';
  if (ACCEPTED_BOOL.includes(flag)) return 'accepted-bool';
  return undefined;
}

const isFlag = (t: string | undefined): boolean => t !== undefined && /^--?[A-Za-z]/.test(t);

interface ScannedArgs {
  values: Map<string, unknown>;
  warnings: string[];
  positionals: string[];
  apiKeys: string[];
  names: string[];
}

/** What `non-default args:` prints at start-up, as vLLM does: every flag given but the simulator's own, the key hidden. */
function nonDefaultArgs(
  model: string | undefined,
  values: Map<string, unknown>,
  maxModelLen: number | 'auto',
  apiKeys: string[],
  names: string[],
): Record<string, unknown> {
  const nonDefault: Record<string, unknown> = {};
  if (model) nonDefault.model = model;
  for (const [k, v] of values)
    if (!k.startsWith('--sim-') && k !== '--model') nonDefault[k.slice(2).replace(/-/g, '_')] = v;
  if (values.has(FLAG.maxModelLen)) nonDefault.max_model_len = maxModelLen === 'auto' ? -1 : maxModelLen;
  if (apiKeys.length) nonDefault.api_key = ['<redacted>'];
  if (names.length) nonDefault.served_model_name = names;
  return nonDefault;
}

/** The flags and their values as argparse reads them: unknown flags warned about, bad values refused. */
function scanArgs(argv: string[]): Result<ScannedArgs> {
  const values = new Map<string, unknown>();
  const warnings: string[] = [];
  const positionals: string[] = [];
  const apiKeys: string[] = [];
  const names: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i];
    if (!isFlag(tok)) {
      positionals.push(tok);
      continue;
    }
    let flag = tok;
    let inline: string | undefined;
    const eq = tok.indexOf('=');
    if (eq > 0) {
      flag = tok.slice(0, eq);
      inline = tok.slice(eq + 1);
    }
    flag = SHORT[flag] ?? flag.replace(/_/g, '-');
    const kind = kindOf(flag);
    const takeValue = (): string | undefined => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || (isFlag(next) && !/^-\d/.test(next))) return undefined;
      i++;
      return next;
    };
    if (kind === undefined) {
      // Unknown: swallow a following value if it does not look like a flag.
      const v = takeValue();
      warnings.push(
        `Ignoring unknown argument ${flag}${v !== undefined ? ` ${JSON.stringify(v)}` : ''} (not modelled by the simulator).`,
      );
      continue;
    }
    if (kind === 'bool' || kind === 'accepted-bool') {
      values.set(flag, true);
      continue;
    }
    if (kind === 'multi') {
      const list = flag === '--api-key' ? apiKeys : names;
      const first = takeValue();
      if (first === undefined) return fail(`argument ${flag}: expected at least one argument`);
      list.push(first);
      while (inline === undefined && argv[i + 1] !== undefined && !isFlag(argv[i + 1])) list.push(argv[++i]);
      continue;
    }
    const v = takeValue();
    if (v === undefined) return fail(`argument ${flag}: expected one argument`);
    if (kind === 'int' && !/^-?\d+$/.test(v)) return fail(`argument ${flag}: invalid int value: '${v}'`);
    if (kind === 'float' && !Number.isFinite(Number(v))) return fail(`argument ${flag}: invalid float value: '${v}'`);
    values.set(flag, kind === 'int' || kind === 'float' ? Number(v) : v);
  }
  return ok({ values, warnings, positionals, apiKeys, names });
}

/** Parse `serve`'s arguments (everything after `serve`). Errors read like argparse's. */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Result<ServeConfig> {
  const scanned = scanArgs(argv);
  if (!scanned.ok) return scanned;
  const { values, warnings, positionals, apiKeys, names } = scanned.data;

  const model = (values.get('--model') as string | undefined) ?? positionals[0];
  if (positionals.length > (values.has('--model') ? 0 : 1)) {
    return fail(`unrecognized arguments: ${positionals.slice(values.has('--model') ? 0 : 1).join(' ')}`);
  }
  const get = <T>(k: string, d: T): T => (values.has(k) ? (values.get(k) as T) : d);

  let maxModelLen: number | 'auto' = 'auto';
  if (values.has(FLAG.maxModelLen)) {
    // vLLM's rule: 32k = 32,000 and 32K = 32,768.
    const parsed = parseMaxModelLenArg(String(values.get(FLAG.maxModelLen)));
    if (parsed === undefined)
      return fail(
        `argument ${FLAG.maxModelLen}: invalid value: '${values.get(FLAG.maxModelLen)}' (use e.g. 32768, 32k = 32,000, 32K = 32,768, or auto)`,
      );
    maxModelLen = parsed;
  }
  const util = get(FLAG.gpuMemoryUtilization, 0.9);
  if (!(util > 0 && util <= 1)) return fail(`argument ${FLAG.gpuMemoryUtilization}: must be in (0, 1], got ${util}`);
  const kvCacheDtype = get(FLAG.kvCacheDtype, 'auto');
  const port = get('--port', 8000);
  if (!(port >= 0 && port <= 65535)) return fail(`argument --port: invalid port ${port}`);
  for (const k of [
    FLAG.maxNumSeqs,
    FLAG.maxNumBatchedTokens,
    '--block-size',
    '--stream-interval',
    FLAG.tensorParallelSize,
  ]) {
    if (values.has(k) && !((values.get(k) as number) >= 1)) return fail(`argument ${k}: must be at least 1`);
  }

  const speed = get('--sim-speed', 1);
  if (!(speed > 0)) return fail(`argument --sim-speed: must be above 0, got ${speed}`);
  const logStyle = get('--sim-log-style', 2);
  if (![1, 2, 3].includes(logStyle))
    return fail(`argument --sim-log-style: invalid choice: ${logStyle} (choose from 1, 2, 3)`);
  const stepJitter = get('--sim-step-jitter', 0);
  if (!(stepJitter >= 0 && stepJitter <= 1))
    return fail(`argument --sim-step-jitter: must be between 0 and 1, got ${stepJitter}`);
  const share = values.get('--sim-500-share') as number | undefined;
  if (share !== undefined && !(share >= 0 && share <= 1))
    return fail(`argument --sim-500-share: must be between 0 and 1, got ${share}`);
  const loops: Record<string, number[] | undefined> = {};
  for (const k of ['--sim-loop-contexts', '--sim-loop-concurrency']) {
    if (!values.has(k)) continue;
    loops[k] = parseList(String(values.get(k)));
    if (!loops[k]) return fail(`argument ${k}: expected a comma-separated list like 8K,65536, got '${values.get(k)}'`);
  }
  const load = (values.get('--sim-slow-start') ?? values.get('--sim-load-seconds')) as number | undefined;
  if (load !== undefined && !(load >= 0)) return fail('argument --sim-load-seconds: must be 0 or more seconds');

  const nonDefault = nonDefaultArgs(model, values, maxModelLen, apiKeys, names);

  const envKey = env.VLLM_API_KEY;
  if (apiKeys.length === 0 && envKey) apiKeys.push(envKey);

  return ok({
    model,
    servedModelNames: names,
    host: get('--host', '0.0.0.0'),
    port,
    apiKeys,
    maxModelLen,
    gpuMemoryUtilization: util,
    gpuMemoryUtilizationGiven: values.has(FLAG.gpuMemoryUtilization),
    maxNumSeqs: values.get(FLAG.maxNumSeqs) as number | undefined,
    maxNumBatchedTokens: values.get(FLAG.maxNumBatchedTokens) as number | undefined,
    kvCacheDtype,
    enablePrefixCaching: !values.has(negatedFlag(FLAG.enablePrefixCaching)),
    blockSize: get('--block-size', 16),
    streamInterval: values.get('--stream-interval') as number | undefined,
    tensorParallelSize: get(FLAG.tensorParallelSize, 1),
    accessLog: !values.has('--disable-uvicorn-access-log'),
    logStats: !values.has('--disable-log-stats'),
    nonDefault,
    warnings,
    sim: {
      profile: get('--sim-profile', 'rtx-pro-6000-fara-4b-bf16'),
      speed,
      logStyle: logStyle as 1 | 2 | 3,
      loadSeconds: load,
      debug: values.has('--sim-debug'),
      seed: get('--sim-seed', 0),
      reasoningTokens: get<number | null>('--sim-reasoning-tokens', null),
      stepJitter,
      faults: {
        loopAfter: values.get('--sim-loop-after') as number | undefined,
        loopContexts: loops['--sim-loop-contexts'],
        loopConcurrency: loops['--sim-loop-concurrency'],
        crashAfterSeconds: values.get('--sim-crash-after-seconds') as number | undefined,
        crashAfterTokens: values.get('--sim-crash-after-tokens') as number | undefined,
        hangAfterTokens: values.get('--sim-hang-after-tokens') as number | undefined,
        errorEventAfterTokens: values.get('--sim-error-event-after-tokens') as number | undefined,
        malformedChunkAfterTokens: values.get('--sim-malformed-chunk-after-tokens') as number | undefined,
        share500: share,
      },
    },
  });
}

/**
 * What depends on the vLLM version the profile claims: the default --gpu-memory-utilization and
 * the --kv-cache-dtype choices (a newer vLLM's value is accepted with a warning, others refused).
 */
export function applyProfileVersion(cfg: ServeConfig, version: string): Result<ServeConfig> {
  const kv = checkKvCacheDtype(cfg.kvCacheDtype, version);
  if (!kv.ok) return fail(kv.error);
  return ok({
    ...cfg,
    gpuMemoryUtilization: cfg.gpuMemoryUtilizationGiven
      ? cfg.gpuMemoryUtilization
      : vllmTraits(version).defaultGpuMemoryUtilization,
    warnings: kv.warning ? [...cfg.warnings, kv.warning] : cfg.warnings,
  });
}
