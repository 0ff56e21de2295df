/**
 * The launch settings table is the one definition (docs/architecture.md, "One place per concept"):
 * each row is in the form's schema, in the Server view's fields for its engines, and its value goes
 * form -> formToLaunch -> vllmFlags -> the simulator's reader and comes out the same.
 */
import { describe, expect, it } from 'vitest';
import { ServerFormSchema } from '#shared/ipc/forms';
import {
  LAUNCH_SETTINGS,
  SWITCH_SETTINGS,
  TEXT_SETTINGS,
  negatedFlag,
  type LaunchSettingRow,
  type TextSettingRow,
} from '#shared/server/launch-settings';
import { FORM_DEFAULTS, formToLaunch } from '../../../src-main/hosts/app-core/server-form';
import { vllmFlags, type LaunchOptions } from '../../../src-main/engine/server/launch';
import { parseServeArgs } from '../../../src-main/engine/sim/args';
import { TEXT_FIELDS, errorsByField } from '../../../src-renderer/src/features/server/server-fields';

const form = (patch: Record<string, unknown>) =>
  ServerFormSchema.parse({ ...FORM_DEFAULTS, kind: 'vllm-native', ...patch });
const listen = { host: '127.0.0.1', port: 8000 };

/** A valid value for each setting: the text typed in the form (where it has a field) and the value it launches with. */
function sample(s: LaunchSettingRow): { text?: string; value: string | number | boolean } {
  if (!('field' in s)) return s.arg === 'int' ? { value: 2 } : { value: 'sample' };
  if (s.arg === 'switch') return { value: !s.field.initial };
  const read: TextSettingRow['field']['read'] = s.field.read;
  switch (read.as) {
    case 'tokens':
      return { text: '256K', value: 262_144 };
    case 'number':
      return { text: String(read.max), value: read.max };
    case 'choice':
      return { text: read.choices[2], value: read.choices[2] };
    case 'text':
      return { text: 'sample', value: 'sample' };
  }
}

/**
 * What the simulator records a given flag as (its `non-default args`), by vLLM's own name for it:
 * flags it does not model keep their text, so values are compared as text (the modelled ones are
 * compared exactly in its configuration).
 */
function simRead(s: LaunchSettingRow, value: unknown): [string, string] {
  const name = (flag: string) => flag.slice(2).replace(/-/g, '_');
  if (s.arg === 'switch') return value === false ? [name(negatedFlag(s.flag)), 'true'] : [name(s.flag), 'true'];
  return [name(s.flag), String(value)];
}

describe('the launch settings table', () => {
  it('gives the form its fields: text as typed, with its longest length, and check boxes at their initial value', () => {
    const empty = ServerFormSchema.parse({ kind: 'vllm-native', model: 'm' });
    for (const s of TEXT_SETTINGS) {
      expect(empty[s.key]).toBe('');
      const tooLong = ServerFormSchema.safeParse({
        kind: 'vllm-native',
        model: 'm',
        [s.key]: 'x'.repeat(s.field.maxLength + 1),
      });
      expect(tooLong.success, s.key).toBe(false);
    }
    for (const s of SWITCH_SETTINGS) expect(empty[s.key]).toBe(s.field.initial);
  });

  it('gives the Server view each text field once, with its label, help and engines', () => {
    for (const s of TEXT_SETTINGS) {
      const shown = TEXT_FIELDS.filter((f) => f.key === s.key);
      expect(shown).toEqual([{ key: s.key, label: s.field.label, help: s.field.help, kinds: s.field.kinds }]);
    }
  });

  it.each(TEXT_SETTINGS.filter((s) => s.field.read.as === 'tokens' || s.field.read.as === 'number'))(
    '$key: a bad value is said on a line that begins with its label, and the view marks that field',
    (s) => {
      const r = formToLaunch(form({ [s.key]: 'lots' }), 8000);
      expect(!r.ok && r.error.startsWith(`${s.field.label}`)).toBe(true);
      if (!r.ok) for (const kind of s.field.kinds) expect(errorsByField(r.error, kind)[s.key]).toBe(r.error);
    },
  );

  it.each(LAUNCH_SETTINGS.map((s) => [s.key, s] as const))(
    '%s goes from the form to the launch line to the simulator unchanged',
    (_key, s) => {
      const { text, value } = sample(s);
      let o: LaunchOptions = { engineKind: 'vllm-native', model: 'm', ...listen, [s.key]: value };
      if ('field' in s) {
        const r = formToLaunch(form({ [s.key]: text ?? value }), listen.port);
        if (!r.ok) throw new Error(r.error);
        o = r.data;
        expect(o[s.key]).toEqual(value);
      }
      const flags = vllmFlags(o, listen);
      expect(flags).toContain(value === false ? negatedFlag(s.flag) : s.flag);
      const cfg = parseServeArgs(['m', ...flags], {});
      if (!cfg.ok) throw new Error(cfg.error);
      const [name, read] = simRead(s, value);
      expect(String(cfg.data.nonDefault[name])).toBe(read);
      // The settings the simulator models land in its configuration under the same name.
      if (s.key in cfg.data) expect(cfg.data[s.key as keyof typeof cfg.data]).toEqual(value);
      expect(cfg.data.warnings).toEqual([]);
    },
  );

  it('orders the launch line as the table does, after --host and --port', () => {
    const o = Object.fromEntries(LAUNCH_SETTINGS.map((s) => [s.key, sample(s).value]));
    const flags = vllmFlags({ engineKind: 'vllm-native', model: 'm', ...listen, ...o }, listen);
    const given = flags.filter((f) => f.startsWith('--'));
    expect(given).toEqual([
      '--host',
      '--port',
      ...LAUNCH_SETTINGS.map((s) => (sample(s).value === false ? negatedFlag(s.flag) : s.flag)),
    ]);
  });
});
