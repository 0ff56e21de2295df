/**
 * The body of `speedmatrix sweep`: checks the flags and the folder before anything starts,
 * prints the plan (server starts, cells, ETA), runs the variants one server at a time, and
 * writes sweep.md and sweep.html at the end (also after Ctrl-C, with what was measured).
 */
import { join, resolve } from 'node:path';
import type { RunConfigInput } from '../../../engine/bench/types';
import { detectHardware } from '../../../platform/hardware/detect';
import { writeSweepReports } from '../../../workflows/sweep/reports';
import { LaunchedRegistry } from '../../../engine/server/launched-registry';
import { createSweep, needsApiKey, sweepLauncher, sweepOutcomeLine } from '../../../workflows/sweep/folder';
import { type SweepManifest, readManifest } from '../../../workflows/sweep/manifest';
import { planSweep, sweepPlanLine } from '../../../workflows/sweep/plan';
import { SweepRun } from '../../../workflows/sweep/run-sweep';
import { VaryError, parseVary } from '#shared/sweep/variants';
import type { Hardware } from '#shared/session/schema';
import { positiveNumber, runConfigFrom } from '../../../workflows/inputs/run-input';
import type { SweepFlags } from './flag-types';
import { EXIT } from './exit';
import { errorWriter, exitCodeFor, onStopSignals, progressConsole } from './command-io';
import { offerToEndLeftovers } from './leftovers';
import { apiKeyFrom } from './server-command';
import { Refusal, checkOutputFolder } from './out-folder';

/** A new sweep's index from the flags, or the stopped sweep's to resume. */
async function manifestFrom(
  cmd: string[],
  flags: SweepFlags,
  config: RunConfigInput,
): Promise<{ dir: string; manifest: SweepManifest }> {
  if (flags.resume) {
    if (cmd.length || flags.vary.length)
      throw new Refusal('--resume takes the command and the variants from the sweep folder: give neither.', EXIT.usage);
    const dir = resolve(flags.resume);
    const m = await readManifest(dir);
    if (!m.ok) throw new Refusal(m.error, EXIT.failed);
    return { dir, manifest: m.data };
  }
  if (!flags.outDir)
    throw new Refusal('say where the sweep goes: --out-dir DIR (or --resume DIR to finish one).', EXIT.usage);
  if (cmd.length === 0)
    throw new Refusal(
      'give the server command after --, e.g. speedmatrix sweep --vary --max-num-seqs=64,128 --out-dir sweep -- vllm serve MODEL --port 8000',
      EXIT.usage,
    );
  if (flags.vary.length === 0)
    throw new Refusal('give at least one --vary FLAG=V1,V2 (e.g. --vary --max-num-seqs=64,128).', EXIT.usage);
  const dir = resolve(flags.outDir);
  checkOutputFolder('--out-dir', dir);
  const made = await createSweep(dir, { command: cmd, axes: flags.vary.map(parseVary), config });
  if (!made.ok) {
    const { message, notEmpty } = made.error;
    throw new Refusal(
      `--out-dir: ${message}${notEmpty ? `; choose a new folder, or finish the sweep in it with --resume ${dir}` : ''}.`,
      EXIT.usage,
    );
  }
  return { dir, manifest: made.data };
}

interface SweepInputs {
  dir: string;
  manifest: SweepManifest;
  config: RunConfigInput;
  apiKey: string | undefined;
  readyTimeoutMs: number | undefined;
}

/** The folder and its index (new or resumed), the run configuration and the API key; else the exit code of a refusal, said. */
export async function sweepInputs(
  cmd: string[],
  flags: SweepFlags,
  err: (t: string) => void,
): Promise<SweepInputs | number> {
  let inputs: SweepInputs;
  try {
    const given = runConfigFrom(flags);
    const readyTimeoutMs = flags.readyTimeout
      ? positiveNumber('--ready-timeout', flags.readyTimeout) * 1000
      : undefined;
    const apiKey = apiKeyFrom(flags, (t) => process.stderr.write(`${t}\n`));
    const { dir, manifest } = await manifestFrom(cmd, flags, given);
    const config = flags.resume ? (manifest.config as RunConfigInput) : given;
    inputs = { dir, manifest, config, apiKey, readyTimeoutMs };
  } catch (e) {
    return exitCodeFor(e, err, e instanceof VaryError ? EXIT.usage : EXIT.failed);
  }
  if (needsApiKey(inputs.manifest) && !inputs.apiKey) {
    err('the server command had an API key, which is never saved: set SPEEDMATRIX_API_KEY or give --api-key-file.');
    return EXIT.usage;
  }
  return inputs;
}

export async function runSweepCommand(cmd: string[], flags: SweepFlags): Promise<number> {
  const err = errorWriter('sweep');
  const { printer, say } = progressConsole(Boolean(flags.jsonProgress));

  const inputs = await sweepInputs(cmd, flags, err);
  if (typeof inputs === 'number') return inputs;
  const { dir, manifest, config, apiKey, readyTimeoutMs } = inputs;
  const launchFor = sweepLauncher(manifest, apiKey);
  try {
    say(
      sweepPlanLine(
        planSweep(
          manifest.variants.map((v) => ({ state: v.state, launch: launchFor(v) })),
          config,
        ),
      ),
    );
  } catch (e) {
    err((e as Error).message);
    return EXIT.usage;
  }

  const registry = new LaunchedRegistry();
  await offerToEndLeftovers(registry, Boolean(flags.yes), say);
  let local: Promise<Hardware | undefined> | null = null;
  const sweep = new SweepRun({
    dir,
    manifest,
    config,
    launchFor,
    readyTimeoutMs,
    registry,
    hardware: {
      detectLocal: () =>
        (local ??= detectHardware({ timeoutMs: 8000 })
          .then((h) => h.hardware)
          .catch(() => undefined)),
    },
    say,
    onEvent: (_i, e) => printer.handle(e),
  });
  const signals = onStopSignals(() => {
    printer.stopping();
    say('Stopping: cancelling in-flight requests, saving, stopping the server (Ctrl-C again to quit at once)...');
    void sweep.stop();
  });
  try {
    const outcome = await sweep.done;
    await writeSweepReports(dir, manifest);
    say(sweepOutcomeLine(outcome, manifest));
    say(`Report: ${join(dir, 'sweep.md')} and sweep.html`);
    if (outcome === 'cancelled' || manifest.variants.some((v) => v.state === 'partial'))
      say(`Finish it with: speedmatrix sweep --resume ${dir}`);
    return outcome === 'cancelled' ? EXIT.cancelled : EXIT.ok;
  } finally {
    signals.off();
  }
}
