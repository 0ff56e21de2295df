/**
 * A load test's settings (`speedmatrix load`'s flags, the app's Load form) into a load configuration: every flag's forms, its defaults, and a
 * message that names the flag and shows a good value for each bad one.
 */
import { describe, expect, it } from 'vitest';
import {
  LOAD_DEFAULTS,
  loadConfigFrom,
  parseArrivals,
  parseRates,
  parseSlo,
} from '../../../src-main/workflows/inputs/load-input';
import { parseLength } from '../../../src-main/workflows/inputs/lengths';

describe('the load flags', () => {
  it('defaults: Poisson arrivals, no cap, the chat endpoint, answers to their full length', () => {
    expect(loadConfigFrom({ rates: '1,2' })).toEqual({
      rates: [1, 2],
      sweep: null,
      arrivals: { kind: 'poisson' },
      maxInFlight: null,
      durationSeconds: LOAD_DEFAULTS.durationSeconds,
      warmupSeconds: LOAD_DEFAULTS.warmupSeconds,
      inputLength: { kind: 'fixed', tokens: 1024 },
      outputLength: { kind: 'fixed', tokens: 128 },
      sharedPrefixTokens: 0,
      endpoint: 'chat',
      ignoreEos: true,
      dataset: null,
      seed: 0,
      slo: null,
      trace: null,
      conversation: null,
    });
  });

  it('--trace: the trace brings its times, lengths and prefixes; its speed, the endpoint and targets are still asked', () => {
    const c = loadConfigFrom({ trace: '/data/mooncake_trace.jsonl', traceSpeed: '2', slo: 'ttft<=2s' });
    expect(c.trace).toEqual({ file: 'mooncake_trace.jsonl', speed: 2, requests: 0, spanSeconds: 0 });
    expect([c.rates, c.sweep, c.warmupSeconds, c.conversation]).toEqual([[], null, 0, null]);
    expect(c.slo).toEqual({ ttftSeconds: 2 });
    expect(loadConfigFrom({ trace: 't.jsonl' }).trace?.speed).toBe(1);
    expect(() => loadConfigFrom({ trace: 't.jsonl', rates: '1', inputLen: '512' })).toThrow(
      '--trace brings its own arrival times, lengths and shared prefixes: leave out --rates, --input-len.',
    );
    expect(() => loadConfigFrom({ trace: 't.jsonl', turns: '3' })).toThrow('leave out --turns');
    for (const bad of ['0', '-1', 'fast', ''])
      expect(() => loadConfigFrom({ trace: 't.jsonl', traceSpeed: bad })).toThrow(
        `--trace-speed must be a positive number, got "${bad}".`,
      );
    expect(() => loadConfigFrom({ rates: '1', traceSpeed: '2' })).toThrow('--trace-speed goes with --trace FILE.');
  });

  it('--turns: conversations of two turns or more on the chat endpoint, think time 0 unless given', () => {
    expect(loadConfigFrom({ rates: '1', turns: '3' }).conversation).toEqual({ turns: 3, thinkSeconds: 0 });
    expect(loadConfigFrom({ rates: '1', turns: '2', thinkTime: '1.5' }).conversation).toEqual({
      turns: 2,
      thinkSeconds: 1.5,
    });
    expect(() => loadConfigFrom({ rates: '1', turns: '1' })).toThrow('--turns must be 2 or more');
    expect(() => loadConfigFrom({ rates: '1', turns: '2.5' })).toThrow('--turns must be a positive whole number');
    expect(() => loadConfigFrom({ rates: '1', thinkTime: '2' })).toThrow('--think-time goes with --turns.');
    expect(() => loadConfigFrom({ rates: '1', turns: '2', thinkTime: '-1' })).toThrow(
      '--think-time must be a number of seconds, 0 or more, got "-1".',
    );
    expect(() => loadConfigFrom({ rates: '1', turns: '2', endpoint: 'completions' })).toThrow(
      '--turns needs the chat endpoint',
    );
    // A file's conversations bring their own user messages: the file goes with --turns.
    expect(loadConfigFrom({ rates: '1', turns: '2', dataset: 'chats.json' }).conversation).toEqual({
      turns: 2,
      thinkSeconds: 0,
    });
  });

  it('every flag given', () => {
    const c = loadConfigFrom({
      rates: 'sweep',
      sweepPoints: '5',
      arrivals: 'gamma:2.5',
      maxInFlight: '32',
      duration: '90',
      warmup: '0',
      inputLen: '512-2k',
      outputLen: '256~64',
      sharedPrefix: '256',
      endpoint: 'completions',
      ignoreEos: false,
      seed: '42',
      slo: 'ttft<=500ms,tbt<=50ms,e2e<=20s',
    });
    expect(c).toMatchObject({
      rates: [],
      sweep: { points: 5 },
      arrivals: { kind: 'gamma', cv: 2.5 },
      maxInFlight: 32,
      durationSeconds: 90,
      warmupSeconds: 0,
      inputLength: { kind: 'uniform', min: 512, max: 2048 },
      outputLength: { kind: 'normal', mean: 256, sd: 64 },
      sharedPrefixTokens: 256,
      endpoint: 'completions',
      ignoreEos: false,
      seed: 42,
      slo: { ttftSeconds: 0.5, tbtSeconds: 0.05, e2eSeconds: 20 },
    });
    expect(loadConfigFrom({ demo: true }).sweep).toEqual({ points: 4 });
  });

  it.each([
    [{}, 'say which request rates to offer: --rates 0.5,1,2,4 or --rates sweep.'],
    [{ rates: '1,0' }, '--rates: "0" is not a positive number of requests per second'],
    [{ rates: 'fast' }, '--rates: "fast" is not a positive number'],
    [{ rates: ',' }, '--rates: give requests per second, comma-separated'],
    [{ rates: '1', sweepPoints: '3' }, '--sweep-points goes with --rates sweep.'],
    [{ rates: 'sweep', sweepPoints: '2.5' }, '--sweep-points must be a positive whole number, got "2.5".'],
    [{ rates: '1', maxInFlight: '0' }, '--max-in-flight must be a positive whole number, got "0".'],
    [{ rates: '1', duration: '-3' }, '--duration must be a positive number, got "-3".'],
    [{ rates: '1', warmup: 'soon' }, '--warmup must be a number of seconds, 0 or more, got "soon".'],
    [{ rates: '1', endpoint: 'responses' }, '--endpoint must be chat or completions, got "responses".'],
    [{ rates: '1', seed: '1.5' }, '--seed must be a whole number, got "1.5".'],
    [{ rates: '1', inputLen: '100', sharedPrefix: '100' }, '--shared-prefix 100 leaves no room'],
    [{ rates: '1', sharedPrefix: 'lots' }, '--shared-prefix: "lots" is not a positive whole number of tokens'],
  ])('refuses %j', (flags, message) => {
    expect(() => loadConfigFrom(flags)).toThrow(message);
  });

  it('rates, arrivals, lengths and targets: the forms and what is refused', () => {
    expect(parseRates(' 0.5, 1,2 ')).toEqual([0.5, 1, 2]);
    expect(parseRates('sweep')).toBe('sweep');
    expect(parseArrivals('constant')).toEqual({ kind: 'constant' });
    for (const bad of ['gamma', 'gamma:0', 'gamma:-1', 'uniform'])
      expect(() => parseArrivals(bad)).toThrow('--arrivals must be poisson, constant or gamma:CV');
    expect(parseLength('--input-len', '8k')).toEqual({ kind: 'fixed', tokens: 8192 });
    expect(() => parseLength('--input-len', '2048-512')).toThrow('--input-len: the range 2048-512 runs backwards');
    expect(() => parseLength('--output-len', '1.5')).toThrow('--output-len: "1.5" is not a positive whole number');
    expect(() => parseLength('--output-len', '100~x')).toThrow('--output-len: the spread "x" is not a number');
    expect(parseSlo('TTFT<=2s')).toEqual({ ttftSeconds: 2 });
    expect(() => parseSlo('ttft<=2')).toThrow('--slo: "ttft<=2" is not a target');
    expect(() => parseSlo('itl<=2ms')).toThrow('--slo: "itl<=2ms" is not a target');
    expect(() => parseSlo('e2e<=0s')).toThrow('--slo: "e2e<=0s" needs a positive time');
  });
});
