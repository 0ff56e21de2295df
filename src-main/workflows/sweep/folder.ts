/**
 * A sweep folder as the CLI and the app both make and use it: a new one is checked (missing or
 * empty) and gets its sweep.json; each variant's server launch comes from the saved command with
 * the variant's settings applied (the API key, never saved, given again). See docs/sweeps.md.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import type { RunConfigInput } from '../../engine/bench/types';
import { launchOptionsFromCommand } from '../../engine/server/command-line';
import type { LaunchOptions } from '../../engine/server/launch';
import { type Result, fail, ok } from '#shared/result';
import { REDACTED, redactArgv, redactEnv } from '#shared/session/secrets';
import { type Setting, type VaryAxis, applyVariant, variantsOf } from '#shared/sweep/variants';
import { SWEEP_FORMAT, type SweepManifest, variantState, writeManifest } from './manifest';

interface NewSweep {
  /** The server command, API key included: it is saved redacted. */
  command: string[];
  /** Environment the server gets beyond the inherited one (GPU selection, HF_HOME); secrets saved redacted. */
  env?: Record<string, string>;
  axes: VaryAxis[];
  config: RunConfigInput;
}

/** Why a folder cannot take a new sweep: `notEmpty` when it holds files already (perhaps a sweep to resume). */
type NewSweepRefusal = { message: string; notEmpty: boolean };

/** Create the sweep folder (missing or empty) and its sweep.json with every variant pending. */
export async function createSweep(dir: string, s: NewSweep): Promise<Result<SweepManifest, NewSweepRefusal>> {
  const variants = variantsOf(s.axes);
  if (existsSync(dir) && readdirSync(dir).length > 0) return fail({ message: `${dir} is not empty`, notEmpty: true });
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    return fail({ message: `cannot create ${dir}: ${(e as Error).message}`, notEmpty: false });
  }
  const manifest: SweepManifest = {
    format: SWEEP_FORMAT,
    formatVersion: 1,
    createdAt: new Date().toISOString(),
    command: redactArgv(s.command),
    ...(s.env && Object.keys(s.env).length ? { env: redactEnv(s.env) } : {}),
    axes: s.axes,
    config: { ...s.config },
    variants: variants.map(variantState),
  };
  const w = await writeManifest(dir, manifest);
  if (!w.ok) return fail({ message: w.error, notEmpty: false });
  return ok(manifest);
}

/** Whether the saved command or environment held an API key, which must be given again. */
export const needsApiKey = (m: SweepManifest): boolean =>
  [...m.command, ...Object.values(m.env ?? {})].some((a) => a.includes(REDACTED));

/** Each variant's server launch: the saved command with its settings applied, the key put back. */
export function sweepLauncher(
  m: Pick<SweepManifest, 'command' | 'env'>,
  apiKey?: string,
): (v: { settings: Setting[] }) => LaunchOptions {
  const unredact = (a: string) => (apiKey && a.includes(REDACTED) ? a.replace(REDACTED, apiKey) : a);
  const command = m.command.map(unredact);
  const env = Object.fromEntries(Object.entries(m.env ?? {}).map(([k, v]) => [k, unredact(v)]));
  return (v) => {
    const launch = launchOptionsFromCommand(applyVariant(command, { settings: v.settings, label: '', slug: '' }));
    if (apiKey && !launch.apiKey) launch.apiKey = apiKey;
    if (Object.keys(env).length) launch.extraEnv = { ...env, ...launch.extraEnv };
    return launch;
  };
}

/** What a finished or stopped sweep measured, in one line. */
export function sweepOutcomeLine(outcome: 'completed' | 'cancelled', m: SweepManifest): string {
  const done = m.variants.filter((v) => v.state === 'done').length;
  const failed = m.variants.filter((v) => v.state === 'failed').length;
  return `${outcome === 'cancelled' ? 'Stopped; saved what was measured' : 'Sweep done'}: ${done} of ${m.variants.length} variants measured${failed ? `, ${failed} did not start` : ''}.`;
}
