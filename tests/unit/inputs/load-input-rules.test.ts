/**
 * The load settings' rules shared by the CLI and the app's Load form (src-shared): one rule, two
 * ways of saying it. The CLI's sentence names the flag and shows `--flag value`; the form's names
 * its field and shows the value as it is typed there.
 */
import { describe, expect, it } from 'vitest';
import { arrivalsRule, fieldWords, flagWords, lengthRule, rateOf, sloRule } from '#shared/load-input-rules';
import { parseArrivals, parseRates, parseSlo } from '../../../src-main/workflows/inputs/load-input';
import { parseLength } from '../../../src-main/workflows/inputs/lengths';

describe('the load input rules', () => {
  it("refuse a bad value in the form's words, with an example as typed in the field", () => {
    expect(arrivalsRule(fieldWords('Arrivals'), 'gamma:x')).toEqual({
      ok: false,
      error:
        'Arrivals must be poisson, constant or gamma:CV with CV a positive number (e.g. gamma:2 for bursts), got "gamma:x".',
    });
    expect(lengthRule(fieldWords('Input'), 'abc')).toEqual({
      ok: false,
      error: 'Input: "abc" is not a positive whole number of tokens (e.g. 1024, 512-2048 or 1024~256).',
    });
    expect(lengthRule(fieldWords('Output'), '-5')).toMatchObject({ ok: false });
    expect(lengthRule(fieldWords('Output'), '')).toMatchObject({ ok: false });
    expect(sloRule(fieldWords('Targets'), 'ttft<=2')).toEqual({
      ok: false,
      error:
        'Targets: "ttft<=2" is not a target: ttft, tbt or e2e, then <= and a time in ms or s (e.g. ttft<=500ms,tbt<=50ms,e2e<=20s).',
    });
  });

  it('accept what the CLI accepts, to the same values', () => {
    expect(arrivalsRule(fieldWords('Arrivals'), ' gamma:2 ')).toEqual({ ok: true, data: parseArrivals('gamma:2') });
    expect(lengthRule(fieldWords('Input'), '512-2k')).toEqual({ ok: true, data: parseLength('--input-len', '512-2k') });
    expect(lengthRule(fieldWords('Input'), '1024~256')).toEqual({
      ok: true,
      data: { kind: 'normal', mean: 1024, sd: 256 },
    });
    expect(sloRule(fieldWords('Targets'), 'ttft<=500ms, e2e<=20s')).toEqual({
      ok: true,
      data: parseSlo('ttft<=500ms,e2e<=20s'),
    });
    expect(['0.5', '4', ' 2 '].map(rateOf)).toEqual(parseRates('0.5,4,2'));
    expect(['-1', '0', 'abc', '', 'Infinity'].map(rateOf)).toEqual([null, null, null, null, null]);
  });

  it("the CLI's sentences keep naming the flag and showing it with a value", () => {
    expect(arrivalsRule(flagWords('--arrivals'), 'uniform')).toMatchObject({
      error: expect.stringContaining('(e.g. --arrivals gamma:2 for bursts), got "uniform".'),
    });
    expect(() => parseLength('--input-len', 'abc')).toThrow(
      '--input-len: "abc" is not a positive whole number of tokens (e.g. --input-len 1024, --input-len 512-2048 or --input-len 1024~256).',
    );
    expect(() => parseSlo('itl<=2ms')).toThrow('(e.g. --slo ttft<=500ms,tbt<=50ms,e2e<=20s)');
  });
});
