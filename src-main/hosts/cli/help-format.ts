/**
 * One way every help shows an option's choices and default: unquoted and after a colon, as the
 * option texts write theirs (`(default: 1200)`, `(choices: a4, letter; default: a4)`). A
 * repeatable option that starts with none shows no default; a plain flag shows none either.
 */
import type { Option } from 'commander';

export function optionDescription(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices) extra.push(`choices: ${option.argChoices.join(', ')}`);
  const value: unknown = option.defaultValue;
  const none = value === undefined || (Array.isArray(value) && value.length === 0);
  if ((option.required || option.optional) && !none)
    extra.push(`default: ${option.defaultValueDescription ?? String(value)}`);
  return extra.length ? `${option.description} (${extra.join('; ')})` : option.description;
}
