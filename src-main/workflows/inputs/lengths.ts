/**
 * Token counts and length distributions as a person writes them (`4096`, `4k`, `512-2048`,
 * `1024~256`), for the matrix's prompt shapes and the load test alike (docs/load.md).
 */
import type { LengthSpec } from '#shared/session/schema-load';
import { parseTokenCount } from '#shared/report/format';
import { InputError } from './input-error';

/** A positive whole number of tokens (`4096`, `4k`) for a flag; a usage error naming it otherwise. */
export const parseTokens = (flag: string, text: string, example: string): number => {
  const v = parseTokenCount(text);
  if (v === null || v <= 0 || /\.\d*\s*$/.test(text))
    throw new InputError(`${flag}: "${text.trim()}" is not a positive whole number of tokens (e.g. ${example}).`);
  return v;
};

/** `1024` (fixed), `512-2048` (uniform range) or `1024~256` (normal: mean~standard deviation). */
export function parseLength(flag: string, text: string): LengthSpec {
  const example = `${flag} 1024, ${flag} 512-2048 or ${flag} 1024~256`;
  const range = /^([^-~]+)-([^-~]+)$/.exec(text.trim());
  if (range) {
    const [min, max] = [parseTokens(flag, range[1], example), parseTokens(flag, range[2], example)];
    if (min > max) throw new InputError(`${flag}: the range ${text.trim()} runs backwards (e.g. ${example}).`);
    return { kind: 'uniform', min, max };
  }
  const normal = /^([^-~]+)~([^-~]+)$/.exec(text.trim());
  if (normal) {
    const sd = Number(normal[2].trim());
    if (!Number.isFinite(sd) || sd < 0)
      throw new InputError(`${flag}: the spread "${normal[2].trim()}" is not a number of tokens (e.g. ${example}).`);
    return { kind: 'normal', mean: parseTokens(flag, normal[1], example), sd };
  }
  return { kind: 'fixed', tokens: parseTokens(flag, text, example) };
}

/** The shortest length a spec can draw. */
export const minLength = (s: LengthSpec): number => (s.kind === 'fixed' ? s.tokens : s.kind === 'uniform' ? s.min : 1);
