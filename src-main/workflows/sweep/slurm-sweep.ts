/**
 * A sweep run as Slurm batch jobs, one per variant. The submitting side writes the job script
 * and records each variant's job id in sweep.json; each job runs its variant on its node (a
 * free port unless the command fixes one) and writes its session file, its log and a small
 * outcome file into the sweep folder (one writer per file, so jobs that end together never
 * overwrite each other); whoever reads the folder next (`sweep --status`, the last job, the app)
 * folds the outcomes into sweep.json. See docs/sweeps.md, "Sweeps on Slurm".
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { type Result, fail, ok } from '#shared/result';
import { flagValue } from '../../engine/server/command-line';
import { freePort } from '../../engine/server/port';
import { writeFileAtomic } from '../../platform/session/write';
import { type SweepManifest, type VariantState, writeManifest } from './manifest';
import { type SchedulerJob, isLive, jobStates, sbatch, scancel } from './slurm-scheduler';

/** The sweep folder's sub-folder for the job script, the jobs' logs and their outcome files. */
export const SLURM_FOLDER = 'slurm';
const SCRIPT = 'job.sh';

/**
 * The batch script: the same text for every job. What it runs comes from the environment sbatch
 * exports to the job, so nothing in it is built from the command or the folder's name.
 */
const SCRIPT_TEXT = `#!/bin/sh
# One variant of the SpeedMatrix sweep in this folder, run as a Slurm batch job
# (written by: speedmatrix sweep --slurm). sbatch passes the variant in the environment.
exec "$SPEEDMATRIX_NODE" "$SPEEDMATRIX_CLI" sweep --slurm-job "$SPEEDMATRIX_VARIANT" --out-dir "$SPEEDMATRIX_SWEEP"
`;

const OutcomeSchema = z.object({
  jobId: z.string(),
  node: z.string(),
  state: z.enum(['done', 'partial', 'failed']),
  failure: z.string().nullable(),
  endedAt: z.string(),
});
type JobOutcome = z.infer<typeof OutcomeSchema>;

/** Where a variant stands on the cluster, as `sweep --status` and the app's Open sweep show it. */
export interface SlurmVariantStatus {
  slug: string;
  label: string;
  jobId: string | null;
  state: 'pending' | 'running' | 'done' | 'failed';
  /** Why it is waiting or why it failed (Slurm's reason, the server's root cause), or null. */
  reason: string | null;
  node: string | null;
  /** The last lines of a failed job's log. */
  logTail: string[];
}

const outcomePath = (dir: string, slug: string) => join(dir, SLURM_FOLDER, `${slug}.outcome.json`);
const logPath = (dir: string, slug: string, jobId: string) => join(dir, SLURM_FOLDER, `${slug}-${jobId}.log`);

/** How the job ran by this program: node and CLI entry, the same paths on every node (a shared install). */
export interface JobProgram {
  node: string;
  cli: string;
}

/**
 * Refusals and warnings about the sbatch options and the command, before anything is submitted:
 * the job's environment carries the variant, so --export must keep it; a fixed --port collides
 * when two jobs share a node.
 */
export function slurmOptionProblems(
  options: readonly string[],
  command: readonly string[],
): { refuse: string | null; warn: string | null } {
  const exportOpt = options.find((o) => o === '--export' || o.startsWith('--export='));
  const refuse =
    exportOpt && !/^--export=ALL(,|$)/.test(exportOpt)
      ? `--slurm-option ${exportOpt}: the job finds its variant in the environment sbatch exports; leave --export out (or start it with ALL).`
      : options.some((o) => /^--(output|chdir|job-name|parsable)\b/.test(o))
        ? '--slurm-option: --output, --chdir and --job-name are set by speedmatrix (logs go to the sweep folder).'
        : null;
  const port = flagValue(command, '--port');
  const warn = port
    ? `The command fixes --port ${port}: two jobs on one node would collide. Leave --port out to let each job take a free port, or add --slurm-option=--exclusive.`
    : null;
  return { refuse, warn };
}

/** The variants to submit: not done, and without a job that is still waiting or running. */
async function toSubmit(m: SweepManifest): Promise<Result<number[]>> {
  const jobs = m.slurm?.jobs ?? {};
  const states = await jobStates(Object.values(jobs).map((j) => j.id));
  if (!states.ok) return states;
  return ok(
    m.variants.flatMap((v, i) => {
      const job = jobs[v.slug] && states.data.get(jobs[v.slug].id);
      return v.state === 'done' || (job && isLive(job.state)) ? [] : [i];
    }),
  );
}

/** Submit one job per variant still to run; sweep.json records each job id as soon as it has one. */
export async function submitSweep(o: {
  dir: string;
  manifest: SweepManifest;
  options: string[];
  /** The servers' startup deadline in seconds (--ready-timeout), or undefined for the default. */
  readyTimeoutS?: number;
  program: JobProgram;
  /** More environment for the jobs (the API key, which is never saved in the folder). */
  env?: Record<string, string>;
  say: (t: string) => void;
}): Promise<Result<{ submitted: number }>> {
  const { dir, manifest: m } = o;
  const which = await toSubmit(m);
  if (!which.ok) return which;
  mkdirSync(join(dir, SLURM_FOLDER), { recursive: true });
  const script = join(dir, SLURM_FOLDER, SCRIPT);
  const w = await writeFileAtomic(script, SCRIPT_TEXT);
  if (!w.ok) return fail(w.error);
  await chmod(script, 0o755);
  m.slurm = { options: o.options, readyTimeoutS: o.readyTimeoutS, jobs: m.slurm?.jobs ?? {} };
  for (const i of which.data) {
    const v = m.variants[i];
    const id = await sbatch(
      [
        ...o.options,
        `--job-name=speedmatrix-${v.slug}`,
        `--output=${join(dir, SLURM_FOLDER, `${v.slug}-%j.log`)}`,
        `--chdir=${dir}`,
      ],
      script,
      {
        ...process.env,
        ...o.env,
        SPEEDMATRIX_NODE: o.program.node,
        SPEEDMATRIX_CLI: o.program.cli,
        SPEEDMATRIX_VARIANT: v.slug,
        SPEEDMATRIX_SWEEP: dir,
      },
    );
    if (!id.ok) return fail(`${v.label || '(as given)'}: ${id.error}`);
    rmSync(outcomePath(dir, v.slug), { force: true });
    m.slurm.jobs[v.slug] = { id: id.data, submittedAt: new Date().toISOString() };
    const saved = await writeManifest(dir, m);
    if (!saved.ok) return fail(`job ${id.data} was submitted but sweep.json could not record it: ${saved.error}`);
    o.say(`${v.label || '(as given)'}: job ${id.data} submitted.`);
  }
  return ok({ submitted: which.data.length });
}

/** The sweep's command as a job runs it: a port free on its node added when the command names none (jobs may share a node). */
export async function jobCommand(
  m: Pick<SweepManifest, 'command' | 'env'>,
): Promise<Pick<SweepManifest, 'command' | 'env'>> {
  if (flagValue(m.command, '--port')) return m;
  return { ...m, command: [...m.command, '--port', String(await freePort())] };
}

/** A job's last word on its variant, written on its node when the variant ends. */
export async function writeOutcome(
  dir: string,
  v: VariantState,
  o: Omit<JobOutcome, 'state' | 'failure' | 'endedAt'>,
): Promise<void> {
  const outcome: JobOutcome = {
    ...o,
    state: v.state === 'pending' ? 'partial' : v.state,
    failure: v.failure,
    endedAt: new Date().toISOString(),
  };
  const w = await writeFileAtomic(outcomePath(dir, v.slug), `${JSON.stringify(outcome, null, 2)}\n`);
  if (!w.ok) throw new Error(w.error);
}

async function readOutcome(dir: string, slug: string): Promise<JobOutcome | null> {
  try {
    const parsed = OutcomeSchema.safeParse(JSON.parse(await readFile(outcomePath(dir, slug), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function logTail(dir: string, slug: string, jobId: string, lines = 15): string[] {
  try {
    return readFileSync(logPath(dir, slug, jobId), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines);
  } catch {
    return [];
  }
}

/** What Slurm's end states mean, in words. */
const ENDED: Record<string, string> = {
  CANCELLED: 'cancelled',
  TIMEOUT: 'ran past its time limit',
  NODE_FAIL: 'its node failed',
  OUT_OF_MEMORY: 'ran out of memory',
  PREEMPTED: 'preempted',
  BOOT_FAIL: 'its node did not boot',
  DEADLINE: 'missed its deadline',
  FAILED: 'failed',
};

/** One variant's state from its job's outcome file (the job's own word) or else the scheduler's. */
export function variantStatus(
  v: Pick<VariantState, 'slug' | 'label' | 'state' | 'failure'>,
  jobId: string | null,
  outcome: Pick<JobOutcome, 'state' | 'failure' | 'node'> | null,
  job: SchedulerJob | undefined,
): Omit<SlurmVariantStatus, 'logTail'> {
  const base = { slug: v.slug, label: v.label, jobId, node: outcome?.node ?? job?.node ?? null };
  if (v.state === 'done' && !(job && isLive(job.state))) return { ...base, state: 'done', reason: null };
  const schedulerWord = job ? (ENDED[job.state] ?? job.state.toLowerCase()) : null;
  if (outcome) {
    if (outcome.state === 'done') return { ...base, state: 'done', reason: null };
    if (outcome.state === 'failed') return { ...base, state: 'failed', reason: outcome.failure };
    const stopped = 'stopped before its last cell; resume the sweep to finish it';
    return { ...base, state: 'failed', reason: schedulerWord ? `${schedulerWord}: ${stopped}` : stopped };
  }
  if (!jobId) return { ...base, state: 'pending', reason: 'not submitted: resume the sweep to submit it' };
  if (!job) return { ...base, state: 'failed', reason: `job ${jobId} is unknown to the scheduler and left no outcome` };
  if (job.state === 'PENDING') return { ...base, state: 'pending', reason: job.reason };
  if (isLive(job.state)) return { ...base, state: 'running', reason: null };
  const detail = [job.reason, job.exitCode && job.exitCode !== '0:0' ? `exit code ${job.exitCode}` : null]
    .filter(Boolean)
    .join(', ');
  return { ...base, state: 'failed', reason: `${schedulerWord}${detail ? ` (${detail})` : ''}` };
}

/**
 * Every variant's state, the jobs' outcomes folded into sweep.json (written when it changed).
 * `ended` says whether every variant is done or failed, so the sweep's reports can be written.
 */
export async function slurmStatus(
  dir: string,
  m: SweepManifest,
): Promise<Result<{ variants: SlurmVariantStatus[]; ended: boolean }>> {
  const jobs = m.slurm?.jobs ?? {};
  const states = await jobStates(Object.values(jobs).map((j) => j.id));
  if (!states.ok) return states;
  let changed = false;
  const variants: SlurmVariantStatus[] = [];
  for (const v of m.variants) {
    const jobId = jobs[v.slug]?.id ?? null;
    // An outcome counts when its job is the variant's latest (or the job was not submitted by speedmatrix:
    // `sweep --slurm-job` run by another scheduler, as in the README's Kubernetes notes).
    const found = await readOutcome(dir, v.slug);
    const outcome = found && (!jobId || found.jobId === jobId) ? found : null;
    if (outcome && (v.state !== outcome.state || v.failure !== outcome.failure)) {
      v.state = outcome.state;
      v.failure = outcome.failure;
      changed = true;
    } else if (!outcome && v.state === 'pending' && jobId && existsSync(join(dir, v.file))) {
      // A job stopped without a word (cancelled, killed) after measuring some cells: its session resumes.
      v.state = 'partial';
      changed = true;
    }
    const s = variantStatus(v, jobId, outcome, jobId ? states.data.get(jobId) : undefined);
    variants.push({ ...s, logTail: s.state === 'failed' && jobId ? logTail(dir, v.slug, jobId) : [] });
  }
  if (changed) {
    const w = await writeManifest(dir, m);
    if (!w.ok) return fail(w.error);
  }
  return ok({ variants, ended: variants.every((v) => v.state === 'done' || v.state === 'failed') });
}

/** Cancel the sweep's jobs that are still waiting or running; their ids. */
export async function cancelSweep(dir: string, m: SweepManifest): Promise<Result<string[]>> {
  const status = await slurmStatus(dir, m);
  if (!status.ok) return status;
  const live = status.data.variants.filter((v) => v.state === 'pending' || v.state === 'running');
  const ids = live.flatMap((v) => (v.jobId ? [v.jobId] : []));
  const r = await scancel(ids);
  return r.ok ? ok(ids) : r;
}

/** `pending 1, running 1, done 0, failed 0`: the sweep at a glance. */
export function slurmCounts(variants: readonly SlurmVariantStatus[]): string {
  const n = (s: SlurmVariantStatus['state']) => variants.filter((v) => v.state === s).length;
  return `pending ${n('pending')}, running ${n('running')}, done ${n('done')}, failed ${n('failed')}`;
}
