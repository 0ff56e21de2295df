/**
 * The Run view's Load form into a load configuration: the same configuration `speedmatrix load`
 * makes of the same settings, and a bad value refused in words that name the form's field.
 */
import { describe, expect, it } from 'vitest';
import type { LoadForm } from '#shared/ipc/forms';
import { loadConfigFromForm } from '../../../src-main/hosts/app-core/load-control';
import { loadConfigFrom } from '../../../src-main/workflows/inputs/load-input';
import { DEFAULT_LOAD_FORM } from '../../../src-renderer/src/store/load-slice';

const form = (patch: Partial<LoadForm>): LoadForm => ({ ...DEFAULT_LOAD_FORM, ...patch });

describe('the Load form', () => {
  it("a trace replaces the form's rates and lengths; turns above 1 make conversations, in the load command's words", () => {
    const traced = loadConfigFromForm(form({ rates: [], trace: { file: '/t/mooncake.jsonl', speed: 2 }, slo: '' }));
    expect(traced).toEqual(loadConfigFrom({ trace: '/t/mooncake.jsonl', traceSpeed: '2' }));
    expect(loadConfigFromForm(form({ turns: 3, thinkSeconds: 1.5 })).conversation).toEqual({
      turns: 3,
      thinkSeconds: 1.5,
    });
    expect(loadConfigFromForm(form({ turns: 1, thinkSeconds: 4 })).conversation).toBeNull();
    expect(() => loadConfigFromForm(form({ turns: 2, thinkSeconds: -1 }))).toThrow(
      'Think time must be a number of seconds, 0 or more, got "-1".',
    );
  });

  it('makes the configuration the load command makes of the same settings', () => {
    const f = form({
      rates: [0.5, 2],
      arrivals: 'gamma:2',
      maxInFlight: 16,
      durationSeconds: 20,
      warmupSeconds: 0,
      inputLen: '512-2048',
      outputLen: '128~32',
      slo: 'ttft<=500ms,tbt<=50ms',
    });
    expect(loadConfigFromForm(f)).toEqual(
      loadConfigFrom({
        rates: '0.5,2',
        arrivals: 'gamma:2',
        maxInFlight: '16',
        duration: '20',
        warmup: '0',
        inputLen: '512-2048',
        outputLen: '128~32',
        slo: 'ttft<=500ms,tbt<=50ms',
      }),
    );
  });

  it('a sweep takes its points and leaves the rates to the sweep; no targets and no cap by default', () => {
    const c = loadConfigFromForm(form({ sweep: true, sweepPoints: 3, rates: [1] }));
    expect(c.sweep).toEqual({ points: 3 });
    expect(c.rates).toEqual([]);
    expect(c.slo).toBeNull();
    expect(c.maxInFlight).toBeNull();
  });

  it('refuses no rates, and a bad length, arrival or target, naming the field', () => {
    expect(() => loadConfigFromForm(form({ rates: [] }))).toThrow(/Add at least one request rate/);
    expect(() => loadConfigFromForm(form({ inputLen: 'lots' }))).toThrow(
      'Input: "lots" is not a positive whole number of tokens (e.g. Input 1024, Input 512-2048 or Input 1024~256).',
    );
    expect(() => loadConfigFromForm(form({ arrivals: 'bursty' }))).toThrow(
      /^Arrivals must be poisson, constant or gamma:CV/,
    );
    expect(() => loadConfigFromForm(form({ slo: 'ttft<500ms' }))).toThrow(/^Targets: "ttft<500ms" is not a target/);
  });
});
