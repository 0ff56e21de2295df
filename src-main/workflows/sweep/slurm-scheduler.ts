/**
 * The Slurm commands a sweep uses, each run as an argument array (never through a shell) with
 * a deadline: `sbatch` submits a variant's job, `squeue` says which jobs are waiting or running,
 * `sacct` (or `scontrol` where the cluster keeps no accounting) how an ended job ended, `scancel`
 * cancels. The clients find the cluster as they do for the person (slurm.conf, SLURM_CONF).
 * See docs/sweeps.md, "Sweeps on Slurm".
 */
import { type CommandResult, runCommand } from '../../platform/processes/external-command';
import { type Result, fail, ok } from '#shared/result';

/** A job as the scheduler reports it: its state word (PENDING, RUNNING, FAILED, …) and reason. */
export interface SchedulerJob {
  id: string;
  state: string;
  /** Slurm's reason (Priority, Resources, NonZeroExitCode, …), or null when it gives none. */
  reason: string | null;
  node: string | null;
  exitCode: string | null;
}

const DEADLINE_MS = 30_000;

const problem = (cmd: string, r: CommandResult): string =>
  r.status === 'not-found'
    ? `${cmd} was not found: run this where the Slurm client commands are installed (a login node).`
    : r.status === 'timeout'
      ? `${cmd} did not answer in ${DEADLINE_MS / 1000} s: is slurmctld up?`
      : `${cmd} failed: ${(r.stderr || r.stdout).trim() || `exit code ${r.code}`}`;

/** Submit a batch script; the job's id. `env` is the job's environment (sbatch exports it to the job). */
export async function sbatch(
  options: readonly string[],
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<Result<string>> {
  const r = await runCommand('sbatch', ['--parsable', ...options, script], { timeoutMs: DEADLINE_MS, env });
  if (r.status !== 'ok') return fail(problem('sbatch', r));
  // --parsable prints "ID" or "ID;CLUSTER".
  const id = r.stdout.trim().split(';')[0];
  return /^\d+$/.test(id) ? ok(id) : fail(`sbatch printed no job id: ${r.stdout.trim()}`);
}

const unset = (v: string | undefined): string | null => (!v || v === 'None' || v === '(null)' ? null : v);

/** squeue's lines "ID|STATE|REASON|NODE" for the jobs still known to the controller. */
export function parseSqueue(text: string): SchedulerJob[] {
  return text
    .split('\n')
    .filter((l) => l.includes('|'))
    .map((l) => {
      const [id, state, reason, node] = l.split('|').map((s) => s.trim());
      return { id, state, reason: unset(reason), node: unset(node), exitCode: null };
    });
}

/** sacct's parsable lines "ID|STATE|REASON|NODE|EXIT": the jobs themselves, not their steps (ID.batch). */
export function parseSacct(text: string): SchedulerJob[] {
  return text
    .split('\n')
    .filter((l) => l.includes('|'))
    .map((l) => l.split('|').map((s) => s.trim()))
    .filter(([id]) => /^\d+$/.test(id))
    .map(([id, state, reason, node, exitCode]) => ({
      id,
      // "CANCELLED by 0" → CANCELLED
      state: state.split(' ')[0],
      reason: unset(reason),
      node: unset(node),
      exitCode: unset(exitCode),
    }));
}

/** `scontrol show job -o` lines: one job a line, KEY=VALUE fields. */
export function parseScontrol(text: string): SchedulerJob[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('JobId='))
    .map((l) => {
      const f = new Map(
        l.split(/\s+/).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]),
      );
      return {
        id: f.get('JobId') ?? '',
        state: f.get('JobState') ?? 'UNKNOWN',
        reason: unset(f.get('Reason')),
        node: unset(f.get('NodeList')),
        exitCode: unset(f.get('ExitCode')),
      };
    });
}

/** The scheduler's word on each job: squeue for the live ones, then sacct (or scontrol) for those that ended. */
export async function jobStates(ids: readonly string[]): Promise<Result<Map<string, SchedulerJob>>> {
  const found = new Map<string, SchedulerJob>();
  if (ids.length === 0) return ok(found);
  const q = await runCommand('squeue', ['-h', '-o', '%i|%T|%r|%N', '-j', ids.join(',')], { timeoutMs: DEADLINE_MS });
  // squeue fails outright when every listed job has left the controller's memory: that is no answer, not an error.
  if (q.status === 'ok') for (const j of parseSqueue(q.stdout)) found.set(j.id, j);
  else if (q.status !== 'failed') return fail(problem('squeue', q));
  const ended = ids.filter((id) => !found.has(id) || !isLive(found.get(id)!.state));
  if (ended.length === 0) return ok(found);
  const a = await runCommand(
    'sacct',
    ['-n', '-P', '-X', '-o', 'JobID,State,Reason,NodeList,ExitCode', '-j', ended.join(',')],
    { timeoutMs: DEADLINE_MS },
  );
  if (a.status === 'ok') for (const j of parseSacct(a.stdout)) found.set(j.id, j);
  else
    for (const id of ended) {
      // No accounting database on this cluster: the controller still knows recent jobs (MinJobAge).
      const s = await runCommand('scontrol', ['show', 'job', '-o', id], { timeoutMs: DEADLINE_MS });
      if (s.status === 'ok') for (const j of parseScontrol(s.stdout)) found.set(j.id, j);
    }
  return ok(found);
}

/** PENDING, RUNNING and their kin: the job has not ended. */
export function isLive(state: string): boolean {
  return ['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED', 'REQUEUED', 'RESIZING'].includes(state);
}

export async function scancel(ids: readonly string[]): Promise<Result<void>> {
  if (ids.length === 0) return ok(undefined);
  const r = await runCommand('scancel', [...ids], { timeoutMs: DEADLINE_MS });
  return r.status === 'ok' ? ok(undefined) : fail(problem('scancel', r));
}
