/**
 * `speedmatrix sweep --ssh HOST ... --out-dir DIR -- CMD`: the sweep runs on HOST, by the
 * speedmatrix installed there, detached from the connection (./remote-drive.ts); its progress
 * shows here, and its folder (sessions, sweep.md, sweep.html, sweep.json) is copied into DIR at the
 * end. `--reattach ID` picks it up again (or resumes it there with `sweep --resume`).
 */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseSshTarget } from '../../../workflows/remote/ssh';
import { fetchRemoteFolder, keyOutOfCommand } from '../../../workflows/remote/remote-run';
import { EXIT } from './exit';
import { errorWriter, exitCodeFor, progressConsole } from './command-io';
import { Refusal, checkOutputFolder } from './out-folder';
import { apiKeyFrom } from './server-command';
import type { SshFlags } from './ssh-flags';
import type { SweepFlags } from './flag-types';
import { driveRemote, exitCodeOfRemote, passedFlags, progressJob, sayTail, type RemoteJob } from './remote-drive';

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
  const err = errorWriter('sweep');
  const json = Boolean(flags.jsonProgress);
  const io = progressConsole(json);
  const { say } = io;
  let job: RemoteJob;
  let outDir: string;
  try {
    const problem = refusedWith(flags, cmd);
    if (problem) throw new Refusal(problem, EXIT.usage);
    outDir = resolve(flags.outDir as string);
    checkOutputFolder('--out-dir', outDir);
    const target = parseSshTarget(flags.ssh as string, flags.sshOption);
    // A key inside the server command reaches the servers there in their environment only.
    const server = keyOutOfCommand(cmd);
    const apiKey = server.apiKey ?? apiKeyFrom(flags, say);
    const common = ['--json-progress'];
    job = {
      command: 'sweep',
      target,
      apiKey,
      launch: {
        args: ['sweep', ...passedFlags(flags, LOCAL_ONLY), ...common, '--out-dir', REMOTE_SWEEP, '--', ...server.argv],
        resumeArgs: ['sweep', '--resume', REMOTE_SWEEP, ...common, ...(flags.yes ? ['--yes'] : [])],
      },
      reattachFlags: ['--out-dir', flags.outDir as string],
      ...progressJob(flags.reattach, json, io),
    };
  } catch (e) {
    return exitCodeFor(e, err, EXIT.usage);
  }
  try {
    const end = await driveRemote(job);
    if (end.exit !== 0) sayTail(job, end.stderrTail);
    await fetchRemoteFolder(job.target, job.id, REMOTE_SWEEP, outDir);
    const what = end.exit === 130 ? 'Stopped; saved what was measured' : end.exit === 0 ? 'Done' : 'The sweep failed';
    say(`${what} on ${job.target.host}. The sweep folder: ${outDir}`);
    return exitCodeOfRemote(end.exit);
  } catch (e) {
    err((e as Error).message);
    return EXIT.failed;
  }
}
