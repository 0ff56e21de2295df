/**
 * `speedmatrix sweep --slurm`: every variant a Slurm batch job, followed until the last ends
 * (Ctrl-C asks, then cancels the jobs with scancel); `sweep --status DIR` and `sweep --report DIR`
 * on any sweep folder; and `sweep --slurm-job VARIANT --out-dir DIR`, what each job runs on its
 * node. See docs/sweeps.md, "Sweeps on Slurm".
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { ProgressPrinter } from '../../../engine/bench/progress';
import type { RunConfigInput } from '../../../engine/bench/types';
import { detectHardware } from '../../../platform/hardware/detect';
import { sweepLauncher } from '../../../workflows/sweep/folder';
import { type SweepManifest, readManifest } from '../../../workflows/sweep/manifest';
import { writeSweepReports } from '../../../workflows/sweep/reports';
import { SweepRun } from '../../../workflows/sweep/run-sweep';
import { sharedStorage } from '../../../workflows/sweep/shared-storage';
import {
  type SlurmVariantStatus,
  cancelSweep,
  jobCommand,
  slurmCounts,
  slurmOptionProblems,
  slurmStatus,
  submitSweep,
  writeOutcome,
} from '../../../workflows/sweep/slurm-sweep';
import { labelOf } from '#shared/report/compare-model';
import { positiveNumber } from '../../../workflows/inputs/run-input';
import { sweepInputs } from './sweep-action';
import type { SweepFlags } from './flag-types';
import { EXIT } from './exit';
import { errorWriter } from './command-io';

const say = (t: string) => process.stdout.write(`${t}\n`);
const err = errorWriter('sweep');

/** --slurm, or --resume of a sweep that was submitted to Slurm. */
export async function isSlurmSweep(flags: SweepFlags): Promise<boolean> {
  if (flags.slurm) return true;
  if (!flags.resume) return false;
  const m = await readManifest(resolve(flags.resume));
  return m.ok && Boolean(m.data.slurm);
}

/** One line per variant, and a failed one's reason and the tail of its job's log. */
function printStatus(variants: readonly SlurmVariantStatus[]): void {
  variants.forEach((v, i) => {
    const job = v.jobId ? `job ${v.jobId}` : 'no job';
    const where = v.node && v.state !== 'pending' ? ` on ${v.node}` : '';
    say(`${labelOf(i)}  ${v.label || '(as given)'}  ${job}  ${v.state}${where}${v.reason ? `: ${v.reason}` : ''}`);
    for (const l of v.logTail) say(`     | ${l}`);
  });
  say(`Jobs: ${slurmCounts(variants)}`);
}

async function writeReports(dir: string, m: SweepManifest): Promise<void> {
  await writeSweepReports(dir, m);
  say(`Report: ${join(dir, 'sweep.md')} and sweep.html`);
}

/** Submit the variants still to run, then follow the jobs until the last one ends. */
export async function runSlurmSweep(cmd: string[], flags: SweepFlags): Promise<number> {
  const refused = slurmOptionProblems(flags.slurmOption, []).refuse;
  if (refused) {
    err(refused);
    return EXIT.usage;
  }
  const inputs = await sweepInputs(cmd, flags, err);
  if (typeof inputs === 'number') return inputs;
  const { dir, manifest, apiKey, readyTimeoutMs } = inputs;
  say(sharedStorage(dir).line);
  const portWarning = slurmOptionProblems([], manifest.command).warn;
  if (portWarning) say(`warning: ${portWarning}`);
  const submitted = await submitSweep({
    dir,
    manifest,
    // A resume keeps the options the sweep was submitted with, unless new ones are given.
    options: flags.slurmOption.length ? flags.slurmOption : (manifest.slurm?.options ?? []),
    readyTimeoutS: readyTimeoutMs ? readyTimeoutMs / 1000 : manifest.slurm?.readyTimeoutS,
    program: { node: process.execPath, cli: process.argv[1] },
    env: apiKey ? { SPEEDMATRIX_API_KEY: apiKey } : {},
    say,
  });
  if (!submitted.ok) {
    err(`${submitted.error}\nWhat was submitted is recorded; submit the rest with: speedmatrix sweep --resume ${dir}`);
    return EXIT.failed;
  }
  if (submitted.data.submitted === 0) say('Nothing to submit: every variant is done or has a job waiting or running.');
  return followSweep(dir, manifest, flags);
}

/** Whether the person wants the jobs cancelled (Ctrl-C): --yes cancels, a terminal asks, otherwise the jobs go on. */
async function askCancel(yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question("Cancel the sweep's jobs on the cluster (scancel)? [y/N] ");
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

async function followSweep(dir: string, manifest: SweepManifest, flags: SweepFlags): Promise<number> {
  let pollMs: number;
  try {
    pollMs = (flags.slurmPoll ? positiveNumber('--slurm-poll', flags.slurmPoll) : 10) * 1000;
  } catch (e) {
    err((e as Error).message);
    return EXIT.usage;
  }
  let decision: 'cancel' | 'detach' | null = null;
  let wake = () => undefined as void;
  const onSignal = () => {
    if (decision) process.exit(EXIT.cancelled);
    void askCancel(Boolean(flags.yes)).then((yes) => {
      decision = yes ? 'cancel' : 'detach';
      wake();
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let last = '';
    for (;;) {
      const st = await slurmStatus(dir, manifest);
      if (!st.ok) {
        err(st.error);
        return EXIT.failed;
      }
      const counts = slurmCounts(st.data.variants);
      if (counts !== last) say(`Jobs: ${counts}`);
      last = counts;
      if (st.data.ended) {
        printStatus(st.data.variants);
        await writeReports(dir, manifest);
        if (manifest.variants.some((v) => v.state !== 'done'))
          say(`Run what is not done with: speedmatrix sweep --resume ${dir}`);
        return EXIT.ok;
      }
      if (decision === 'detach') {
        say(`The jobs go on without this terminal; follow them with: speedmatrix sweep --status ${dir}`);
        return EXIT.cancelled;
      }
      if (decision === 'cancel') return await cancelAndReport(dir, manifest, pollMs);
      await new Promise<void>((r) => {
        const t = setTimeout(r, pollMs);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** scancel the jobs still waiting or running, let them save what they measured, write the reports. */
async function cancelAndReport(dir: string, manifest: SweepManifest, pollMs: number): Promise<number> {
  const cancelled = await cancelSweep(dir, manifest);
  if (!cancelled.ok) {
    err(cancelled.error);
    return EXIT.failed;
  }
  say(
    `Cancelled ${cancelled.data.length ? `job ${cancelled.data.join(', ')}` : 'nothing (no job was waiting or running)'}.`,
  );
  // A cancelled job saves its session on the way out; wait (a while) for every job to have ended.
  const until = Date.now() + 120_000;
  for (;;) {
    const st = await slurmStatus(dir, manifest);
    if (!st.ok || st.data.ended || Date.now() > until) {
      if (st.ok) printStatus(st.data.variants);
      break;
    }
    await new Promise((r) => setTimeout(r, Math.min(pollMs, 2000)));
  }
  await writeReports(dir, manifest);
  say(`Finish it with: speedmatrix sweep --resume ${dir}`);
  return EXIT.cancelled;
}

/** A sweep folder's index, or null when it cannot be read (said). */
async function openFolder(given: string): Promise<{ dir: string; m: SweepManifest } | null> {
  const dir = resolve(given);
  const m = await readManifest(dir);
  if (m.ok) return { dir, m: m.data };
  err(m.error);
  return null;
}

/** `sweep --status DIR`: each variant's state; a Slurm sweep's from its jobs (and its reports once all ended). */
export async function sweepStatusCommand(given: string): Promise<number> {
  const opened = await openFolder(given);
  if (!opened) return EXIT.failed;
  const { dir, m } = opened;
  if (!m.slurm) {
    m.variants.forEach((v, i) =>
      say(`${labelOf(i)}  ${v.label || '(as given)'}  ${v.state}${v.failure ? `: ${v.failure}` : ''}`),
    );
    return EXIT.ok;
  }
  const st = await slurmStatus(dir, m);
  if (!st.ok) {
    err(st.error);
    return EXIT.failed;
  }
  printStatus(st.data.variants);
  if (st.data.ended && !existsSync(join(dir, 'sweep.md'))) await writeReports(dir, m);
  return EXIT.ok;
}

/** `sweep --report DIR`: sweep.md and sweep.html from the folder as it is now (the jobs' outcomes folded in first). */
export async function sweepReportCommand(given: string): Promise<number> {
  const opened = await openFolder(given);
  if (!opened) return EXIT.failed;
  const { dir, m } = opened;
  // The jobs' outcome files folded in first (a sweep without Slurm jobs asks no scheduler).
  const st = await slurmStatus(dir, m);
  if (!st.ok) err(`warning: the jobs' states are not known (${st.error}); the report shows the folder as it is.`);
  await writeReports(dir, m);
  return EXIT.ok;
}

/**
 * One variant on the node this job landed on: its own free port (unless the command fixes one),
 * the node's own hardware in its session, the outcome file when it ends, Slurm's SIGTERM (scancel,
 * time limit) saving what was measured; the last job to end writes the sweep's reports.
 */
export async function runSlurmJob(slug: string, flags: SweepFlags): Promise<number> {
  const node = process.env.SLURMD_NODENAME ?? hostname();
  const log = (t: string) => process.stderr.write(`${t}\n`);
  const dir = resolve(flags.outDir ?? '.');
  const m = await readManifest(dir);
  if (!m.ok) {
    log(
      `speedmatrix sweep job on ${node}: ${m.error} The sweep folder must be on storage this node shares with the machine that submitted the sweep.`,
    );
    return EXIT.failed;
  }
  const index = m.data.variants.findIndex((v) => v.slug === slug);
  if (index < 0) {
    log(`speedmatrix sweep job on ${node}: ${dir} has no variant ${slug}.`);
    return EXIT.failed;
  }
  const v = m.data.variants[index];
  // An earlier job of this variant that was cancelled left a session: this one finishes it.
  if (v.state !== 'done' && existsSync(join(dir, v.file))) v.state = 'partial';
  const launchFor = sweepLauncher(await jobCommand(m.data), process.env.SPEEDMATRIX_API_KEY);
  const printer = new ProgressPrinter('plain', { write: (t) => process.stdout.write(t), columns: () => undefined });
  const jobId = process.env.SLURM_JOB_ID ?? 'unknown';
  const sweep = new SweepRun({
    dir,
    manifest: m.data,
    config: m.data.config as RunConfigInput,
    launchFor,
    readyTimeoutMs: m.data.slurm?.readyTimeoutS ? m.data.slurm.readyTimeoutS * 1000 : undefined,
    only: index,
    saveVariant: (_i, ended) => writeOutcome(dir, ended, { jobId, node }),
    hardware: {
      detectLocal: () =>
        detectHardware({ timeoutMs: 8000 })
          .then((h) => h.hardware)
          .catch(() => undefined),
    },
    say: (t) => printer.line(t),
    onEvent: (_i, e) => printer.handle(e),
  });
  const onSignal = () => void sweep.stop();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    await sweep.done;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  const fresh = await readManifest(dir);
  const st = fresh.ok ? await slurmStatus(dir, fresh.data) : null;
  if (fresh.ok && st?.ok && st.data.ended) await writeSweepReports(dir, fresh.data);
  return v.state === 'done' ? EXIT.ok : EXIT.failed;
}
