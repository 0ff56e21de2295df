/**
 * The rules that turn a load test's settings, as a person writes them, into a load configuration
 * (docs/load.md): rates, arrivals, lengths, the shared prefix, targets. Used by the CLI's `load`
 * and the app's Load form; a value that cannot be used throws InputError naming its flag.
 */
import { basename } from 'node:path';
import type { Arrivals, LoadConfig, Slo } from '#shared/session/schema-load';
import { InputError } from './input-error';
import { minLength, orThrow, parseLength, parseTokens } from './lengths';
import { arrivalsRule, flagWords, rateOf, sloRule } from '#shared/load-input-rules';

/** A load test's settings as written (text, as typed). */
export interface LoadInput {
  /** The demo's smaller sweep and its rates by default. */
  demo?: boolean;
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
  /** A trace file to replay (its requests are read apart: engine/bench/load-trace.ts). */
  trace?: string;
  traceSpeed?: string;
  /** Turns per conversation, and seconds between an answer and the next turn. */
  turns?: string;
  thinkTime?: string;
}

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
    throw new InputError(`${flag} must be a positive ${whole ? 'whole ' : ''}number, got "${text}".`);
  return v;
}

/** `--rates 0.5,1,2,4` (requests per second) or `--rates sweep`. */
export function parseRates(text: string): number[] | 'sweep' {
  if (text.trim() === 'sweep') return 'sweep';
  const parts = text.split(',').filter((p) => p.trim() !== '');
  if (parts.length === 0)
    throw new InputError('--rates: give requests per second, comma-separated (e.g. --rates 0.5,1,2,4), or sweep.');
  return parts.map((p) => {
    const v = rateOf(p);
    if (v === null)
      throw new InputError(
        `--rates: "${p.trim()}" is not a positive number of requests per second (e.g. --rates 0.5,1,2,4, or --rates sweep).`,
      );
    return v;
  });
}

/** `poisson`, `constant` or `gamma:CV` (CV > 0; above 1 is burstier than Poisson). */
export const parseArrivals = (text: string): Arrivals => orThrow(arrivalsRule(flagWords('--arrivals'), text));

/** `ttft<=500ms,tbt<=50ms,e2e<=20s`: per-request ceilings (src-shared/load-input-rules.ts). */
export const parseSlo = (text: string): Slo => orThrow(sloRule(flagWords('--slo'), text));

/** Settings a trace brings itself (its times, lengths and prefixes), so --trace leaves them out. */
const TRACE_OWNS: Array<[keyof LoadInput, string]> = [
  ['rates', '--rates'],
  ['sweepPoints', '--sweep-points'],
  ['arrivals', '--arrivals'],
  ['maxInFlight', '--max-in-flight'],
  ['duration', '--duration'],
  ['warmup', '--warmup'],
  ['inputLen', '--input-len'],
  ['outputLen', '--output-len'],
  ['sharedPrefix', '--shared-prefix'],
  ['dataset', '--dataset'],
  ['turns', '--turns'],
];

/**
 * A replay's configuration: the trace's name and speed; its requests and span are filled in from
 * the file (engine/bench/load-trace.ts withTrace), its window is the whole trace.
 */
function traceConfigFrom(f: LoadInput & { trace: string }): LoadConfig {
  const given = TRACE_OWNS.filter(([key]) => f[key] !== undefined).map(([, flag]) => flag);
  if (given.length)
    throw new InputError(
      `--trace brings its own arrival times, lengths and shared prefixes: leave out ${given.join(', ')}.`,
    );
  const base = loadConfigFrom({ ...f, trace: undefined, traceSpeed: undefined, rates: '1' });
  const speed = f.traceSpeed === undefined ? 1 : positive('--trace-speed', f.traceSpeed);
  return {
    ...base,
    rates: [],
    warmupSeconds: 0,
    trace: { file: basename(f.trace), speed, requests: 0, spanSeconds: 0 },
  };
}

/** `--turns N --think-time S`: conversations of N turns (2 or more), S seconds between an answer and the next turn. */
function conversationFrom(f: LoadInput): LoadConfig['conversation'] {
  if (f.turns === undefined) {
    if (f.thinkTime !== undefined) throw new InputError('--think-time goes with --turns.');
    return null;
  }
  const turns = positive('--turns', f.turns, true);
  if (turns < 2)
    throw new InputError(`--turns must be 2 or more (a conversation of 1 turn is a plain request), got "${f.turns}".`);
  if ((f.endpoint ?? 'chat') !== 'chat')
    throw new InputError('--turns needs the chat endpoint (it sends the history as messages).');
  return { turns, thinkSeconds: f.thinkTime === undefined ? 0 : nonNegative('--think-time', f.thinkTime) };
}

/** The load configuration from the settings, with the defaults filled in. */
export function loadConfigFrom(f: LoadInput): LoadConfig {
  if (f.trace !== undefined) return traceConfigFrom({ ...f, trace: f.trace });
  if (f.traceSpeed !== undefined) throw new InputError('--trace-speed goes with --trace FILE.');
  const rates = f.rates === undefined ? (f.demo ? 'sweep' : undefined) : parseRates(f.rates);
  if (rates === undefined)
    throw new InputError('say which request rates to offer: --rates 0.5,1,2,4 or --rates sweep.');
  if (f.sweepPoints !== undefined && rates !== 'sweep') throw new InputError('--sweep-points goes with --rates sweep.');
  const endpoint = f.endpoint ?? 'chat';
  if (endpoint !== 'chat' && endpoint !== 'completions')
    throw new InputError(`--endpoint must be chat or completions, got "${f.endpoint}".`);
  const seed = f.seed === undefined ? LOAD_DEFAULTS.seed : Number(f.seed);
  if (!Number.isInteger(seed)) throw new InputError(`--seed must be a whole number, got "${f.seed}".`);
  const sharedPrefix =
    f.sharedPrefix === undefined ? 0 : parseTokens('--shared-prefix', f.sharedPrefix, '--shared-prefix 4096');
  if (f.dataset !== undefined && (f.inputLen !== undefined || f.sharedPrefix !== undefined))
    throw new InputError('--dataset brings its own prompts: leave out --input-len and --shared-prefix.');
  const inputLength = f.inputLen
    ? parseLength('--input-len', f.inputLen)
    : { kind: 'fixed' as const, tokens: LOAD_DEFAULTS.inputTokens };
  if (sharedPrefix > 0 && minLength(inputLength) <= sharedPrefix)
    throw new InputError(
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
    trace: null,
    conversation: conversationFrom(f),
  };
}

function nonNegative(flag: string, text: string): number {
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(v) || v < 0)
    throw new InputError(`${flag} must be a number of seconds, 0 or more, got "${text}".`);
  return v;
}
