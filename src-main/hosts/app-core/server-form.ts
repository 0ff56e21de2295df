/**
 * The Server view's form (strings as typed) turned into the supervisor's LaunchOptions, with
 * a clear sentence for each value that does not parse. Pure, so it is table-tested.
 */
import type { ServerForm } from '#shared/ipc/forms';
import { ServerFormSchema } from '#shared/ipc/forms';
import { type Result, fail, ok } from '#shared/result';
import {
  SWITCH_SETTINGS,
  TEXT_SETTINGS,
  type LaunchSettingKey,
  type TextSettingRow,
} from '#shared/server/launch-settings';
import {
  LAUNCH_DEFAULTS,
  buildLaunch,
  flagsTooNew,
  knownEngineVersion,
  parseHumanInt,
  type LaunchOptions,
} from '../../engine/server';

/** The simulator's defaults: a short load so the demo starts at once, speed 1 (true figures). */
export const FORM_DEFAULTS: ServerForm = ServerFormSchema.parse({
  kind: 'simulator',
  model: 'microsoft/Fara1.5-4B',
  servedModelName: 'fara',
  maxModelLen: '262144',
  gpuMemoryUtilization: '0.83',
  host: LAUNCH_DEFAULTS.host,
  dockerImage: `${LAUNCH_DEFAULTS.dockerImage}:${LAUNCH_DEFAULTS.dockerTag}`,
  simSpeed: 1,
  simLoadSeconds: 3,
});

const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** "--sim-loop-after 50" per line or space-separated: each word one argument. */
const words = (text: string): string[] => lines(text).flatMap((l) => l.split(/\s+/));

/** A token count as vLLM reads it (256k = 256,000, 256K = 262,144); the launch line carries the exact number. */
function parseTokens(label: string, text: string): Result<number | undefined> {
  const t = text.trim();
  if (!t) return ok(undefined);
  const v = parseHumanInt(t.replace(/,/g, '').replace(/\s+/g, ''));
  if (v === undefined)
    return fail(
      `${label}: "${text}" is not a token count; write it like 262144, 256K (= 262,144) or 256k (= 256,000).`,
    );
  return v > 0 ? ok(v) : fail(`${label} must be above 0.`);
}

function parseNumber(
  label: string,
  text: string,
  opts: { min: number; max: number; integer?: boolean },
): Result<number | undefined> {
  const t = text.trim();
  if (!t) return ok(undefined);
  const v = Number(t);
  if (!Number.isFinite(v) || (opts.integer && !Number.isInteger(v)) || v < opts.min || v > opts.max) {
    return fail(
      `${label}: "${text}" must be ${opts.integer ? 'a whole number' : 'a number'} from ${opts.min} to ${opts.max}.`,
    );
  }
  return ok(v);
}

function parseEnv(text: string): Result<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const line of lines(text)) {
    const eq = line.indexOf('=');
    if (eq <= 0) return fail(`Extra environment: "${line}" is not KEY=VALUE.`);
    env[line.slice(0, eq).trim()] = line.slice(eq + 1);
  }
  return ok(env);
}

/** One text field as its row says to read it: empty is unset; each error line begins with its label. */
function readText(
  { field }: TextSettingRow,
  kind: ServerForm['kind'],
  text: string,
): Result<number | string | undefined> {
  const { label, read } = field;
  switch (read.as) {
    case 'tokens':
      return parseTokens(label, text);
    case 'number':
      return parseNumber(label, text, read);
    case 'text':
      return ok(text.trim() || undefined);
    case 'choice': {
      const t = text.trim();
      if (!t || !read.checkedFor.includes(kind) || (read.choices as readonly string[]).includes(t))
        return ok(t || undefined);
      return fail(`${label}: "${t}" is not one of vLLM's choices: ${read.choices.join(', ')}.`);
    }
  }
}

type SettingValues = Partial<Record<LaunchSettingKey, number | string | boolean | undefined>>;

/**
 * The launch settings the form gives, each read as its row says (a check box only when it differs
 * from its initial value, so the engine's default is left alone), and every problem, in table order.
 */
function readSettings(form: ServerForm): { values: SettingValues; problems: string[] } {
  const values: SettingValues = {};
  const problems: string[] = [];
  for (const s of TEXT_SETTINGS) {
    const r = readText(s, form.kind, form[s.key]);
    if (r.ok) values[s.key] = r.data;
    else problems.push(r.error);
  }
  for (const s of SWITCH_SETTINGS) values[s.key] = form[s.key] !== s.field.initial ? form[s.key] : undefined;
  return { values, problems };
}

/**
 * LaunchOptions for every kind but attach (which launches nothing). Every field is checked before
 * any is refused: the error holds one line per bad field, each starting with the field's label,
 * so the form marks them all at once.
 */
export function formToLaunch(form: ServerForm, port: number): Result<LaunchOptions> {
  if (form.kind === 'attach') return fail('Attach mode launches nothing.');
  const model = form.model.trim();
  const required =
    !model && form.kind !== 'custom'
      ? fail('Model: give a Hugging Face id (org/name) or a local folder.')
      : form.kind === 'custom' && lines(form.customCommand).length === 0
        ? fail('Command: give the command that starts the server, one argument per line.')
        : ok(undefined);
  const settings = readSettings(form);
  const env = parseEnv(form.extraEnv);
  const problems = [...(required.ok ? [] : [required.error]), ...settings.problems, ...(env.ok ? [] : [env.error])];
  if (problems.length || !env.ok) return fail(problems.join('\n'));
  const opt = (s: string): string | undefined => s.trim() || undefined;
  const [image, tag] = (form.dockerImage.trim() || `${LAUNCH_DEFAULTS.dockerImage}:${LAUNCH_DEFAULTS.dockerTag}`).split(
    /:(?=[^/]*$)/,
  );
  const o: LaunchOptions = {
    engineKind: form.kind,
    model: model || 'custom',
    ...(settings.values as Partial<Pick<LaunchOptions, LaunchSettingKey>>),
    host: form.host.trim() || LAUNCH_DEFAULTS.host,
    port,
    apiKey: opt(form.apiKey),
    cudaVisibleDevices: opt(form.gpus),
    extraEnv: env.data,
    extraArgs: lines(form.extraArgs),
  };
  if (form.kind === 'vllm-native') o.executable = opt(form.executable);
  if (form.kind === 'vllm-docker') {
    o.dockerImage = image;
    o.dockerTag = tag;
  }
  const attention = takeAttentionBackend(o.extraArgs ?? []);
  if (attention && form.kind !== 'custom') {
    // Kept as an option so an older vLLM gets it as VLLM_ATTENTION_BACKEND instead.
    o.attentionBackend = attention.value;
    o.extraArgs = attention.rest;
  }
  if (form.kind === 'custom') o.customArgv = lines(form.customCommand);
  if (form.kind === 'simulator') {
    o.simProfile = opt(form.simProfile);
    o.simSpeed = form.simSpeed;
    o.simArgs = ['--sim-load-seconds', String(form.simLoadSeconds), ...words(form.simFlags)];
  }
  return ok(o);
}

/** `--attention-backend X` / `--attention-backend=X` taken out of the extra arguments. */
function takeAttentionBackend(args: string[]): { value: string; rest: string[] } | null {
  const i = args.findIndex((a) => a === '--attention-backend' || a.startsWith('--attention-backend='));
  if (i < 0) return null;
  const inline = args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : undefined;
  const value = inline ?? args[i + 1];
  if (!value) return null;
  return { value, rest: [...args.slice(0, i), ...args.slice(i + (inline !== undefined ? 1 : 2))] };
}

/**
 * Things to know before launching: flags the chosen vLLM version does not have (from a Docker
 * image's tag; a native vLLM's version is not known before it runs), and sizes written with k or
 * K, spelled out as the exact token count vLLM will use.
 */
export function formWarnings(form: ServerForm): string[] {
  if (form.kind === 'attach' || form.kind === 'simulator') return [];
  const launch = formToLaunch(form, form.port ?? LAUNCH_DEFAULTS.port);
  if (!launch.ok) return [];
  const warnings: string[] = [];
  const o = launch.data;
  const version = knownEngineVersion(o);
  if (o.maxModelLen !== undefined && /[kKmM]\s*$/.test(form.maxModelLen.trim())) {
    warnings.push(
      `Max model length ${form.maxModelLen.trim()} is ${o.maxModelLen.toLocaleString('en-US')} tokens (vLLM reads k as 1,000 and K as 1,024); the launch line gives the exact number.`,
    );
  }
  if (o.attentionBackend && version && buildLaunch(o).env.VLLM_ATTENTION_BACKEND) {
    warnings.push(
      `--attention-backend needs vLLM 0.13 or newer; for ${version} it is passed as VLLM_ATTENTION_BACKEND=${o.attentionBackend} instead.`,
    );
  }
  const argv = form.kind === 'custom' ? (o.customArgv ?? []) : (o.extraArgs ?? []);
  for (const { flag, entry } of flagsTooNew(argv, version)) {
    warnings.push(
      `${flag} needs vLLM ${entry.since} or newer, and this launch runs ${version}${entry.older ? `: set ${entry.older.env} in the extra environment instead` : ': choose a newer image'}.`,
    );
  }
  return warnings;
}
