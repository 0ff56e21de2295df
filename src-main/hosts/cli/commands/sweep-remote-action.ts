/**
 * `speedmatrix sweep --ssh HOST ... --out-dir DIR -- CMD`: the sweep runs on HOST, by the
 * speedmatrix installed there, detached from the connection (./remote-drive.ts); its progress
 * shows here, and its folder (sessions, sweep.md, sweep.html, sweep.json) is copied into DIR at the
 * end. `--reattach ID` picks it up again (or resumes it there with `sweep --resume`).
 */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ProgressPrinter } from '../../../engine/bench/progress';
import type { BenchEvent } from '../../../engine/bench/types';
import { parseSshTarget } from '../../../workflows/remote/ssh';
import { checkRunId, fetchRemoteFolder, newRunId } from '../../../workflows/remote/remote-run';
import { EXIT } from './exit';
import { Refusal, checkOutputFolder } from './out-folder';
import { apiKeyFrom } from './run-action';
import type { SshFlags } from './ssh-flags';
import type { SweepFlags } from './sweep-flags';
import { driveRemote, passedFlags, sayTail, type RemoteJob } from './remote-drive';

export interface RemoteSweepFlags extends SweepFlags, SshFlags {
  reattach?: string;
}

/** The sweep folder inside the run's folder on the host. */
const REMOTE_SWEEP = 'sweep';
const LOCAL_ONLY = new Set(['ssh', 'sshOption', 'reattach', 'outDir', 'jsonProgress', 'apiKey', 'apiKeyFile']);

const isEmptyOrMissing = (dir: string) => {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return true;
  }
};

function refusedWith(flags: RemoteSweepFlags, cmd: string[]): string | null {
  if (!flags.ssh) return '--reattach needs --ssh HOST: the host the sweep is on.';
  if (flags.resume) return 'a sweep on a host continues with --reattach ID (the id it printed), not --resume.';
  if (!flags.outDir) return 'say where the sweep is copied to at the end: --out-dir DIR.';
  if (flags.reattach && (cmd.length || flags.vary.length))
    return '--reattach picks up a sweep already started; give no --vary or server command.';
  if (!flags.reattach && !isEmptyOrMissing(resolve(flags.outDir)))
    return `--out-dir: ${resolve(flags.outDir)} is not empty; choose a new folder.`;
  return null;
}

export async function sweepRemoteCommand(cmd: string[], flags: RemoteSweepFlags): Promise<number> {
  const err = (m: string) => process.stderr.write(`speedmatrix sweep: ${m}\n`);
  const json = Boolean(flags.jsonProgress);
  const mode = json ? 'json' : process.stdout.isTTY ? 'tty' : 'plain';
  const printer = new ProgressPrinter(mode, {
    write: (t) => process.stdout.write(t),
    columns: () => process.stdout.columns,
  });
  const say = (t: string) => (json ? process.stderr.write(`${t}\n`) : printer.line(t));
  let job: RemoteJob;
  let outDir: string;
  try {
    const problem = refusedWith(flags, cmd);
    if (problem) throw new Refusal(problem, EXIT.usage);
    outDir = resolve(flags.outDir as string);
    checkOutputFolder('--out-dir', outDir);
    const target = parseSshTarget(flags.ssh as string, flags.sshOption);
    const apiKey = apiKeyFrom(flags, say);
    const common = ['--json-progress', ...(apiKey ? ['--api-key-file', 'api-key'] : [])];
    job = {
      command: 'sweep',
      target,
      id: flags.reattach ? checkRunId(flags.reattach) : newRunId(),
      reattach: Boolean(flags.reattach),
      apiKey,
      launch: {
        args: ['sweep', ...passedFlags(flags, LOCAL_ONLY), ...common, '--out-dir', REMOTE_SWEEP, '--', ...cmd],
        resumeArgs: ['sweep', '--resume', REMOTE_SWEEP, ...common, ...(flags.yes ? ['--yes'] : [])],
      },
      reattachFlags: ['--out-dir', flags.outDir as string],
      onLine: (line) => (json ? process.stdout.write(`${line}\n`) : printer.handle(JSON.parse(line) as BenchEvent)),
      onStopping: () => printer.stopping(),
      say,
    };
  } catch (e) {
    err((e as Error).message);
    return e instanceof Refusal ? e.code : EXIT.usage;
  }
  try {
    const end = await driveRemote(job);
    if (end.exit !== 0) sayTail(job, end.stderrTail);
    await fetchRemoteFolder(job.target, job.id, REMOTE_SWEEP, outDir);
    const what = end.exit === 130 ? 'Stopped; saved what was measured' : end.exit === 0 ? 'Done' : 'The sweep failed';
    say(`${what} on ${job.target.host}. The sweep folder: ${outDir}`);
    return end.exit === 0 ? EXIT.ok : end.exit === 130 ? EXIT.cancelled : EXIT.failed;
  } catch (e) {
    err((e as Error).message);
    return EXIT.failed;
  }
}
