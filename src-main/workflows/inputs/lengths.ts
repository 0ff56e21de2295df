/**
 * Token counts and length distributions as a person writes them (`4096`, `4k`, `512-2048`,
 * `1024~256`), for the matrix's prompt shapes and the load test alike (docs/load.md). The rules
 * are src-shared's (the app's forms check by them too); here a failure is a usage error naming
 * the flag.
 */
import type { LengthSpec } from '#shared/session/schema-load';
import { flagWords, lengthRule, tokensRule } from '#shared/load-input-rules';
import type { Result } from '#shared/result';
import { InputError } from './input-error';

/** The value of a rule's result, or the InputError its sentence makes. */
export function orThrow<T>(r: Result<T>): T {
  if (!r.ok) throw new InputError(r.error);
  return r.data;
}

/** A positive whole number of tokens (`4096`, `4k`) for a flag; a usage error naming it otherwise. */
export const parseTokens = (flag: string, text: string, example: string): number =>
  orThrow(tokensRule(flag, text, example));

/** `1024` (fixed), `512-2048` (uniform range) or `1024~256` (normal: mean~standard deviation). */
export const parseLength = (flag: string, text: string): LengthSpec => orThrow(lengthRule(flagWords(flag), text));

/** The shortest length a spec can draw. */
export const minLength = (s: LengthSpec): number => (s.kind === 'fixed' ? s.tokens : s.kind === 'uniform' ? s.min : 1);
