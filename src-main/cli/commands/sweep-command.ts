/**
 * The body of `speedmatrix sweep`: checks the flags and the folder before anything starts,
 * prints the plan (server starts, cells, ETA), runs the variants one server at a time, and
 * writes sweep.md and sweep.html at the end (also after Ctrl-C, with what was measured).
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ProgressPrinter } from '../../bench/progress';
import { planRun } from '../../bench/plan';
import type { RunConfigInput } from '../../bench/types';
import { detectHardware } from '../../hardware/detect';
import { renderSweepHtml, renderSweepMarkdown, type SweepEntry } from '../../report/sweep';
import { launchOptionsFromCommand } from '../../server/command-line';
import { LaunchedRegistry } from '../../server/launched-registry';
import type { LaunchOptions } from '../../server/launch';
import { readSessionFile } from '../../session/read';
import { type SweepManifest, readManifest, variantState, writeManifest } from '../../sweep/manifest';
import { SweepRun } from '../../sweep/run-sweep';
import { VaryError, applyVariant, parseVary, variantsOf } from '../../../src-shared/sweep/variants';
import { fmtDuration } from '../../../src-shared/report/format';
import { REDACTED, redactArgv } from '../../../src-shared/session/secrets';
import type { Hardware } from '../../../src-shared/session/schema';
import { configFromFlags, positiveNumber } from './run';
import type { SweepFlags } from './sweep';
import { EXIT } from './exit';
import { offerToEndLeftovers } from './leftovers';
import { Refusal, apiKeyFrom } from './run-command';

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
  const axes = flags.vary.map(parseVary);
  const variants = variantsOf(axes);
  const dir = resolve(flags.outDir);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new Refusal(
      `--out-dir: ${dir} is not empty; choose a new folder, or finish the sweep in it with --resume ${dir}.`,
      EXIT.usage,
    );
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new Refusal(`--out-dir: cannot create ${dir}: ${(e as Error).message}`, EXIT.usage);
  }
  const manifest: SweepManifest = {
    format: 'speedmatrix-sweep',
    formatVersion: 1,
    createdAt: new Date().toISOString(),
    command: redactArgv(cmd),
    axes,
    config: { ...config },
    variants: variants.map(variantState),
  };
  const w = await writeManifest(dir, manifest);
  if (!w.ok) throw new Refusal(`--out-dir: ${w.error}`, EXIT.usage);
  return { dir, manifest };
}

/** The plan before anything starts: server starts, cells, an ETA from the method's phases. */
function planLine(m: SweepManifest, config: RunConfigInput, first: LaunchOptions): string {
  const todo = m.variants.filter((v) => v.state !== 'done');
  const plan = planRun(config, {
    maxModelLen: first.maxModelLen ?? null,
    kvBudget: { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null },
    simulated: first.engineKind === 'simulator',
    simSpeed: config.simSpeed,
  });
  const cells = plan.counts.toRun;
  return `Sweep plan: ${todo.length} of ${m.variants.length} variants to run (${todo.length} server starts), up to ${cells} cells each (${cells * todo.length} in all; Over capacity is known once each server is up), about ${fmtDuration(plan.etaSeconds * todo.length)} of measuring plus the server starts.`;
}

async function writeSweepReports(dir: string, m: SweepManifest): Promise<void> {
  const entries: SweepEntry[] = [];
  for (const v of m.variants) {
    const file = join(dir, v.file);
    const read = existsSync(file) ? await readSessionFile(file) : null;
    entries.push({
      variant: { settings: v.settings, label: v.label, slug: v.slug },
      file: v.file,
      session: read?.ok ? read.data : null,
      failure: v.failure,
    });
  }
  await writeFile(join(dir, 'sweep.md'), renderSweepMarkdown(entries));
  await writeFile(join(dir, 'sweep.html'), renderSweepHtml(entries));
}

export async function runSweepCommand(cmd: string[], flags: SweepFlags): Promise<number> {
  const err = (t: string) => process.stderr.write(`speedmatrix sweep: ${t}\n`);
  const mode = flags.jsonProgress ? 'json' : process.stdout.isTTY ? 'tty' : 'plain';
  const printer = new ProgressPrinter(mode, {
    write: (t) => process.stdout.write(t),
    columns: () => process.stdout.columns,
  });
  const say = (t: string) => (mode === 'json' ? process.stderr.write(`${t}\n`) : printer.line(t));

  let dir: string;
  let manifest: SweepManifest;
  let config: RunConfigInput;
  let apiKey: string | undefined;
  let readyTimeoutMs: number | undefined;
  try {
    const given = configFromFlags(flags);
    readyTimeoutMs = flags.readyTimeout ? positiveNumber('--ready-timeout', flags.readyTimeout) * 1000 : undefined;
    apiKey = apiKeyFrom(flags, (t) => process.stderr.write(`${t}\n`));
    ({ dir, manifest } = await manifestFrom(cmd, flags, given));
    config = flags.resume ? (manifest.config as RunConfigInput) : given;
  } catch (e) {
    err((e as Error).message);
    return e instanceof Refusal ? e.code : e instanceof VaryError ? EXIT.usage : EXIT.failed;
  }
  if (manifest.command.some((a) => a.includes(REDACTED)) && !apiKey) {
    err('the server command had an API key, which is never saved: set SPEEDMATRIX_API_KEY or give --api-key-file.');
    return EXIT.usage;
  }
  const command = manifest.command.map((a) => (a.includes(REDACTED) ? a.replace(REDACTED, apiKey as string) : a));
  const launchFor = (v: { settings: { flag: string; value: string }[] }): LaunchOptions => {
    const launch = launchOptionsFromCommand(applyVariant(command, { settings: v.settings, label: '', slug: '' }));
    if (apiKey && !launch.apiKey) launch.apiKey = apiKey;
    return launch;
  };
  try {
    say(planLine(manifest, config, launchFor(manifest.variants[0])));
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
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(EXIT.cancelled);
    interrupted = true;
    printer.stopping();
    say('Stopping: cancelling in-flight requests, saving, stopping the server (Ctrl-C again to quit at once)...');
    void sweep.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await sweep.done;
    await writeSweepReports(dir, manifest);
    const failed = manifest.variants.filter((v) => v.state === 'failed').length;
    say(
      `${outcome === 'cancelled' ? 'Stopped; saved what was measured' : 'Sweep done'}: ${manifest.variants.filter((v) => v.state === 'done').length} of ${manifest.variants.length} variants measured${failed ? `, ${failed} did not start` : ''}.`,
    );
    say(`Report: ${join(dir, 'sweep.md')} and sweep.html`);
    if (outcome === 'cancelled' || manifest.variants.some((v) => v.state === 'partial'))
      say(`Finish it with: speedmatrix sweep --resume ${dir}`);
    return outcome === 'cancelled' ? EXIT.cancelled : EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
