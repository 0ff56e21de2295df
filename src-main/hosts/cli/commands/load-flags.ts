/**
 * `speedmatrix load`: how many requests per second a server serves, and at what latency (docs/load.md).
 *   load --url URL --rates 1,2,4 [...]      a running server
 *   load --launch [...] -- CMD...           start one through the supervisor, stop it at the end
 *   load --demo                              the simulator, a short sweep
 * This file declares the flags and turns them into a load configuration; ./load-action.ts runs.
 */
import { basename } from 'node:path';
import type { Command } from 'commander';
import type { Arrivals, LengthSpec, LoadConfig, Slo } from '#shared/session/schema-load';
import { parseTokenCount } from '#shared/report/format';
import type { RunFlags } from './run-flags';

/** The server's flags are `run`'s. */
export interface LoadFlags extends Pick<
  RunFlags,
  'url' | 'apiKey' | 'apiKeyFile' | 'model' | 'launch' | 'demo' | 'simSpeed' | 'readyTimeout' | 'hardware' | 'yes'
> {
  rates?: string;
  sweepPoints?: string;
  arrivals?: string;
  maxInFlight?: string;
  duration?: string;
  warmup?: string;
  inputLen?: string;
  outputLen?: string;
  sharedPrefix?: string;
  endpoint?: string;
  ignoreEos?: boolean;
  seed?: string;
  slo?: string;
  dataset?: string;
  out?: string;
  jsonProgress?: boolean;
}

/** A flag's value that cannot be used; the message names the flag and shows a good value. */
export class LoadUsageError extends Error {}

export const LOAD_DEFAULTS = {
  sweepPoints: 8,
  durationSeconds: 60,
  warmupSeconds: 10,
  inputTokens: 1024,
  outputTokens: 128,
  seed: 0,
};

function positive(flag: string, text: string, whole = false): number {
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(v) || v <= 0 || (whole && !Number.isInteger(v)))
    throw new LoadUsageError(`${flag} must be a positive ${whole ? 'whole ' : ''}number, got "${text}".`);
  return v;
}

/** `--rates 0.5,1,2,4` (requests per second) or `--rates sweep`. */
export function parseRates(text: string): number[] | 'sweep' {
  if (text.trim() === 'sweep') return 'sweep';
  const parts = text.split(',').filter((p) => p.trim() !== '');
  if (parts.length === 0)
    throw new LoadUsageError('--rates: give requests per second, comma-separated (e.g. --rates 0.5,1,2,4), or sweep.');
  return parts.map((p) => {
    const v = Number(p.trim());
    if (!Number.isFinite(v) || v <= 0)
      throw new LoadUsageError(
        `--rates: "${p.trim()}" is not a positive number of requests per second (e.g. --rates 0.5,1,2,4, or --rates sweep).`,
      );
    return v;
  });
}

/** `poisson`, `constant` or `gamma:CV` (CV > 0; above 1 is burstier than Poisson). */
export function parseArrivals(text: string): Arrivals {
  const t = text.trim();
  if (t === 'poisson' || t === 'constant') return { kind: t };
  const m = /^gamma:(.+)$/.exec(t);
  const cv = m ? Number(m[1]) : Number.NaN;
  if (m && Number.isFinite(cv) && cv > 0) return { kind: 'gamma', cv };
  throw new LoadUsageError(
    `--arrivals must be poisson, constant or gamma:CV with CV a positive number (e.g. gamma:2 for bursts), got "${text}".`,
  );
}

/** A positive whole number of tokens (`4096`, `4k`) for a flag; a usage error naming it otherwise. */
export const parseTokens = (flag: string, text: string, example: string): number => {
  const v = parseTokenCount(text);
  if (v === null || v <= 0 || /\.\d*\s*$/.test(text))
    throw new LoadUsageError(`${flag}: "${text.trim()}" is not a positive whole number of tokens (e.g. ${example}).`);
  return v;
};

/** `1024` (fixed), `512-2048` (uniform range) or `1024~256` (normal: mean~standard deviation). */
export function parseLength(flag: string, text: string): LengthSpec {
  const example = `${flag} 1024, ${flag} 512-2048 or ${flag} 1024~256`;
  const range = /^([^-~]+)-([^-~]+)$/.exec(text.trim());
  if (range) {
    const [min, max] = [parseTokens(flag, range[1], example), parseTokens(flag, range[2], example)];
    if (min > max) throw new LoadUsageError(`${flag}: the range ${text.trim()} runs backwards (e.g. ${example}).`);
    return { kind: 'uniform', min, max };
  }
  const normal = /^([^-~]+)~([^-~]+)$/.exec(text.trim());
  if (normal) {
    const sd = Number(normal[2].trim());
    if (!Number.isFinite(sd) || sd < 0)
      throw new LoadUsageError(
        `${flag}: the spread "${normal[2].trim()}" is not a number of tokens (e.g. ${example}).`,
      );
    return { kind: 'normal', mean: parseTokens(flag, normal[1], example), sd };
  }
  return { kind: 'fixed', tokens: parseTokens(flag, text, example) };
}

const SLO_KEYS = { ttft: 'ttftSeconds', tbt: 'tbtSeconds', e2e: 'e2eSeconds' } as const;

/**
 * `ttft<=500ms,tbt<=50ms,e2e<=20s`: per-request ceilings, written as the matrix's targets are
 * (docs/repeats-and-targets.md) but met by each request on its own, not by a percentile.
 */
export function parseSlo(text: string): Slo {
  const slo: Slo = {};
  const example = 'e.g. --slo ttft<=500ms,tbt<=50ms,e2e<=20s';
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const m = /^\s*(\w+)\s*<=\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/.exec(part);
    const key = m?.[1].toLowerCase();
    if (!m || !key || !(key in SLO_KEYS))
      throw new LoadUsageError(
        `--slo: "${part.trim()}" is not a target: ttft, tbt or e2e, then <= and a time in ms or s (${example}).`,
      );
    const v = Number(m[2]) / (m[3] === 'ms' ? 1000 : 1);
    if (v <= 0) throw new LoadUsageError(`--slo: "${part.trim()}" needs a positive time (${example}).`);
    slo[SLO_KEYS[key as keyof typeof SLO_KEYS]] = v;
  }
  if (Object.keys(slo).length === 0) throw new LoadUsageError(`--slo: give at least one target (${example}).`);
  return slo;
}

/** The load configuration from the flags, with the defaults filled in. */
export function loadConfigFromFlags(f: LoadFlags): LoadConfig {
  const rates = f.rates === undefined ? (f.demo ? 'sweep' : undefined) : parseRates(f.rates);
  if (rates === undefined)
    throw new LoadUsageError('say which request rates to offer: --rates 0.5,1,2,4 or --rates sweep.');
  if (f.sweepPoints !== undefined && rates !== 'sweep')
    throw new LoadUsageError('--sweep-points goes with --rates sweep.');
  const endpoint = f.endpoint ?? 'chat';
  if (endpoint !== 'chat' && endpoint !== 'completions')
    throw new LoadUsageError(`--endpoint must be chat or completions, got "${f.endpoint}".`);
  const seed = f.seed === undefined ? LOAD_DEFAULTS.seed : Number(f.seed);
  if (!Number.isInteger(seed)) throw new LoadUsageError(`--seed must be a whole number, got "${f.seed}".`);
  const sharedPrefix =
    f.sharedPrefix === undefined ? 0 : parseTokens('--shared-prefix', f.sharedPrefix, '--shared-prefix 4096');
  if (f.dataset !== undefined && (f.inputLen !== undefined || f.sharedPrefix !== undefined))
    throw new LoadUsageError('--dataset brings its own prompts: leave out --input-len and --shared-prefix.');
  const inputLength = f.inputLen
    ? parseLength('--input-len', f.inputLen)
    : { kind: 'fixed' as const, tokens: LOAD_DEFAULTS.inputTokens };
  if (sharedPrefix > 0 && minLength(inputLength) <= sharedPrefix)
    throw new LoadUsageError(
      `--shared-prefix ${sharedPrefix} leaves no room for each request's own part: every input length must be longer.`,
    );
  return {
    rates: rates === 'sweep' ? [] : rates,
    sweep:
      rates === 'sweep'
        ? {
            points: f.sweepPoints
              ? positive('--sweep-points', f.sweepPoints, true)
              : f.demo
                ? 4
                : LOAD_DEFAULTS.sweepPoints,
          }
        : null,
    arrivals: parseArrivals(f.arrivals ?? 'poisson'),
    maxInFlight: f.maxInFlight === undefined ? null : positive('--max-in-flight', f.maxInFlight, true),
    durationSeconds: f.duration === undefined ? LOAD_DEFAULTS.durationSeconds : positive('--duration', f.duration),
    warmupSeconds: f.warmup === undefined ? LOAD_DEFAULTS.warmupSeconds : nonNegative('--warmup', f.warmup),
    inputLength,
    outputLength: f.outputLen
      ? parseLength('--output-len', f.outputLen)
      : { kind: 'fixed', tokens: LOAD_DEFAULTS.outputTokens },
    sharedPrefixTokens: sharedPrefix,
    endpoint,
    ignoreEos: f.ignoreEos ?? true,
    dataset: f.dataset === undefined ? null : basename(f.dataset),
    seed,
    slo: f.slo === undefined ? null : parseSlo(f.slo),
  };
}

function nonNegative(flag: string, text: string): number {
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(v) || v < 0)
    throw new LoadUsageError(`${flag} must be a number of seconds, 0 or more, got "${text}".`);
  return v;
}

const minLength = (s: LengthSpec): number => (s.kind === 'fixed' ? s.tokens : s.kind === 'uniform' ? s.min : 1);

export function registerLoad(program: Command): void {
  program
    .command('load')
    .description(
      'Offer requests at set rates (or sweep them) and measure what the server achieves: rate, tok/s, TTFT, time between tokens, end-to-end latency, goodput.',
    )
    .usage('--url URL --rates LIST|sweep [options] | --launch [options] -- CMD... | --demo')
    .argument('[cmd...]', 'with --launch: the server command after --, e.g. -- vllm serve Qwen/Qwen3-0.6B --port 8000')
    .option('--url <url>', 'a running OpenAI-compatible server, e.g. http://127.0.0.1:8000')
    .option('--api-key-file <file>', 'read the Bearer key for /v1 from this file (or set SPEEDMATRIX_API_KEY)')
    .option('--api-key <key>', 'the key itself: avoid, it shows in the process list and shell history')
    .option('--model <name>', 'served model to load (default: the first one served)')
    .option(
      '--rates <list>',
      'requests per second, e.g. 0.5,1,2,4; or "sweep": a synchronous pass, a throughput pass, then rates between',
    )
    .option(
      '--sweep-points <n>',
      `with --rates sweep: rates between the two passes (default: ${LOAD_DEFAULTS.sweepPoints})`,
    )
    .option('--arrivals <kind>', 'poisson, constant or gamma:CV (CV above 1 is burstier) (default: poisson)')
    .option(
      '--max-in-flight <n>',
      'cap on requests in flight; arrivals past it wait (default: no cap; the throughput pass: 64)',
    )
    .option('--duration <seconds>', `measured seconds of arrivals per rate (default: ${LOAD_DEFAULTS.durationSeconds})`)
    .option(
      '--warmup <seconds>',
      `seconds of arrivals before each rate's window, not measured (default: ${LOAD_DEFAULTS.warmupSeconds})`,
    )
    .option(
      '--input-len <tokens>',
      `prompt tokens: 1024, 512-2048 (uniform) or 1024~256 (normal) (default: ${LOAD_DEFAULTS.inputTokens})`,
    )
    .option('--output-len <tokens>', `output tokens (max_tokens), same forms (default: ${LOAD_DEFAULTS.outputTokens})`)
    .option(
      '--shared-prefix <tokens>',
      'every prompt starts with the same this many tokens (prefix caching) (default: 0)',
    )
    .option(
      '--dataset <file>',
      'prompts from a file: ShareGPT-style JSON, or JSON Lines of {"prompt": ..., "output_len": ...} (nothing is downloaded)',
    )
    .option('--endpoint <kind>', 'chat (/v1/chat/completions) or completions (/v1/completions) (default: chat)')
    .option('--ignore-eos', 'answers run to their output length (default)')
    .option('--no-ignore-eos', 'answers may end by themselves before their output length')
    .option('--seed <n>', 'seed of arrivals and lengths (default: 0)')
    .option('--slo <targets>', 'per-request latency targets for goodput, e.g. ttft<=500ms,tbt<=50ms,e2e<=20s')
    .option('--hardware <file>', "the server's hardware, for a server on another machine (`speedmatrix hw --json`)")
    .option('--out <file>', 'session file (default: ./speedmatrix-load-<model>-<time>.speedmatrix.json)')
    .option('--json-progress', 'print one JSON event per line')
    .option('--launch', 'start the server command given after -- through the supervisor, stop it at the end')
    .option('--demo', 'launch the simulator and run a short sweep')
    .option(
      '--sim-speed <x>',
      "a simulator's clock speed-up (default: 10 with --demo); times are then in simulated seconds",
    )
    .option('--ready-timeout <seconds>', 'with --launch/--demo: startup deadline (default: 1200)')
    .option('-y, --yes', 'with --launch/--demo: end servers an earlier killed run left running, without asking')
    .action(async (cmd: string[], flags: LoadFlags) => {
      const { runLoadCommand } = await import('./load-action');
      process.exitCode = await runLoadCommand(cmd, flags);
    });
}
