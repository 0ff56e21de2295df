/**
 * The pure rules for a load test's settings as a person writes them (docs/load.md): arrivals,
 * token lengths, per-request targets. One definition for the CLI (workflows/inputs, which turns a
 * failure into an InputError naming its flag) and the app's Load form (which shows it at the
 * field before Start). A failure is a sentence in the caller's words: `Say` names the setting
 * (`--arrivals`, or the field's label) and writes an example value as that caller takes it.
 */
import type { Arrivals, LengthSpec, Slo } from './session/schema-load';
import { type Result, fail, ok } from './result';
import { parseTokenCount } from './report/format';

/** How a caller names a setting and shows an example of it: the CLI's `--input-len 1024`, the form's `1024`. */
export interface Say {
  name: string;
  example(value: string): string;
}

/** A CLI flag's words: the flag, and examples written as the flag with its value. */
export const flagWords = (flag: string): Say => ({ name: flag, example: (v) => `${flag} ${v}` });

/** A form field's words: its label, and examples written as typed into the field. */
export const fieldWords = (label: string): Say => ({ name: label, example: (v) => v });

/** A request rate: a positive number of requests per second (`0.5`, `4`), else null. */
export function rateOf(text: string): number | null {
  const v = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(v) && v > 0 ? v : null;
}

/** A positive whole number of tokens (`4096`, `4k`); `example` is shown in the failure. */
export function tokensRule(name: string, text: string, example: string): Result<number> {
  const v = parseTokenCount(text);
  if (v === null || v <= 0 || /\.\d*\s*$/.test(text))
    return fail(`${name}: "${text.trim()}" is not a positive whole number of tokens (e.g. ${example}).`);
  return ok(v);
}

/** `1024` (fixed), `512-2048` (uniform range) or `1024~256` (normal: mean~standard deviation). */
export function lengthRule(say: Say, text: string): Result<LengthSpec> {
  const { name } = say;
  const example = `${say.example('1024')}, ${say.example('512-2048')} or ${say.example('1024~256')}`;
  const range = /^([^-~]+)-([^-~]+)$/.exec(text.trim());
  if (range) {
    const [min, max] = [tokensRule(name, range[1], example), tokensRule(name, range[2], example)];
    if (!min.ok) return min;
    if (!max.ok) return max;
    if (min.data > max.data) return fail(`${name}: the range ${text.trim()} runs backwards (e.g. ${example}).`);
    return ok({ kind: 'uniform', min: min.data, max: max.data });
  }
  const normal = /^([^-~]+)~([^-~]+)$/.exec(text.trim());
  if (normal) {
    const sd = Number(normal[2].trim());
    if (!Number.isFinite(sd) || sd < 0)
      return fail(`${name}: the spread "${normal[2].trim()}" is not a number of tokens (e.g. ${example}).`);
    const mean = tokensRule(name, normal[1], example);
    return mean.ok ? ok({ kind: 'normal', mean: mean.data, sd }) : mean;
  }
  const tokens = tokensRule(name, text, example);
  return tokens.ok ? ok({ kind: 'fixed', tokens: tokens.data }) : tokens;
}

/** `poisson`, `constant` or `gamma:CV` (CV > 0; above 1 is burstier than Poisson). */
export function arrivalsRule(say: Say, text: string): Result<Arrivals> {
  const t = text.trim();
  if (t === 'poisson' || t === 'constant') return ok({ kind: t });
  const m = /^gamma:(.+)$/.exec(t);
  const cv = m ? Number(m[1]) : Number.NaN;
  if (m && Number.isFinite(cv) && cv > 0) return ok({ kind: 'gamma', cv });
  return fail(
    `${say.name} must be poisson, constant or gamma:CV with CV a positive number (e.g. ${say.example('gamma:2')} for bursts), got "${text}".`,
  );
}

const SLO_KEYS = { ttft: 'ttftSeconds', tbt: 'tbtSeconds', e2e: 'e2eSeconds' } as const;

/**
 * `ttft<=500ms,tbt<=50ms,e2e<=20s`: per-request ceilings, written as the matrix's targets are
 * (docs/repeats-and-targets.md) but met by each request on its own, not by a percentile.
 */
export function sloRule(say: Say, text: string): Result<Slo> {
  const slo: Slo = {};
  const example = `e.g. ${say.example('ttft<=500ms,tbt<=50ms,e2e<=20s')}`;
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const m = /^\s*(\w+)\s*<=\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/.exec(part);
    const key = m?.[1].toLowerCase();
    if (!m || !key || !(key in SLO_KEYS))
      return fail(
        `${say.name}: "${part.trim()}" is not a target: ttft, tbt or e2e, then <= and a time in ms or s (${example}).`,
      );
    const v = Number(m[2]) / (m[3] === 'ms' ? 1000 : 1);
    if (v <= 0) return fail(`${say.name}: "${part.trim()}" needs a positive time (${example}).`);
    slo[SLO_KEYS[key as keyof typeof SLO_KEYS]] = v;
  }
  if (Object.keys(slo).length === 0) return fail(`${say.name}: give at least one target (${example}).`);
  return ok(slo);
}
