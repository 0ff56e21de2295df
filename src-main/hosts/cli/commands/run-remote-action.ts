/**
 * `speedmatrix run --ssh HOST ...`: the run happens on HOST, by the speedmatrix installed there,
 * detached from the connection (./remote-drive.ts); this side shows its progress lines as they
 * come and copies the session back at the end. `--reattach ID` picks up a run this side lost
 * (or resumes it there from its journal when it died).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseSessionText } from '../../../platform/session/read';
import { summarizeSession } from '../../../platform/session/summary';
import { writeFileAtomic } from '../../../platform/session/write';
import { parseSshTarget } from '../../../workflows/remote/ssh';
import { REMOTE_SESSION, fetchRemoteSession, keyOutOfCommand } from '../../../workflows/remote/remote-run';
import { EXIT } from './exit';
import { errorWriter, exitCodeFor, progressConsole } from './command-io';
import { Refusal } from './out-folder';
import type { RunFlags } from './flag-types';
import { usageProblem } from './run-action';
import { apiKeyFrom, checkOutputs, defaultSessionFile, writeReport } from './server-command';
import type { SshFlags } from './ssh-flags';
import { driveRemote, exitCodeOfRemote, passedFlags, progressJob, sayTail, type RemoteJob } from './remote-drive';

export interface RemoteRunFlags extends RunFlags, SshFlags {
  reattach?: string;
}

/** Flags that stay on this side: the session and report land here, the key travels on stdin. */
const LOCAL_ONLY = new Set(['ssh', 'sshOption', 'reattach', 'out', 'report', 'jsonProgress', 'apiKey', 'apiKeyFile']);

/** The remote `speedmatrix` arguments of this run, and of its resume (the key reaches it in its environment). */
export function remoteArgs(cmd: string[], flags: RemoteRunFlags): { args: string[]; resumeArgs: string[] } {
  const common = ['--json-progress'];
  const again = [
    ...(flags.url ? ['--url', flags.url] : []),
    ...(flags.simSpeed ? ['--sim-speed', flags.simSpeed] : []),
    ...(flags.yes ? ['--yes'] : []),
  ];
  return {
    args: [
      'run',
      ...passedFlags(flags, LOCAL_ONLY),
      ...common,
      '--out',
      REMOTE_SESSION,
      ...(cmd.length ? ['--', ...cmd] : []),
    ],
    resumeArgs: ['run', '--resume', REMOTE_SESSION, ...common, ...again],
  };
}

function refusedWith(flags: RemoteRunFlags, cmd: string[]): string | null {
  if (!flags.ssh) return '--reattach needs --ssh HOST: the host the run is on.';
  if (flags.hardware) return '--hardware is for a server on another machine; with --ssh the host detects its own.';
  if (flags.resume)
    return '--resume continues a session file here; a run on a host continues with --reattach ID (the id it printed).';
  if (flags.reattach) {
    if (flags.url || flags.launch || flags.demo || cmd.length)
      return '--reattach picks up a run already started; give no --url, --launch, --demo or server command.';
    return null;
  }
  if (flags.out && existsSync(resolve(flags.out)))
    return `--out: ${resolve(flags.out)} already exists; choose another --out.`;
  return usageProblem(cmd, flags);
}

/** Copy the finished session back and write what was asked here; returns the exit code. */
async function bringBack(j: RemoteJob, flags: RemoteRunFlags, end: { exit: number | null; stderrTail: string[] }) {
  const text = await fetchRemoteSession(j.target, j.id).catch((e: Error) => e);
  const parsed = typeof text === 'string' ? parseSessionText(text, REMOTE_SESSION) : null;
  if (typeof text !== 'string' || !parsed?.ok) {
    sayTail(j, end.stderrTail);
    const why = typeof text === 'string' ? (parsed?.ok === false ? parsed.error.message : '') : text.message;
    throw new Refusal(`the run on ${j.target.host} left no session to copy back: ${why}`, EXIT.failed);
  }
  const session = parsed.data;
  const file = resolve(flags.out ?? defaultSessionFile(session.server.servedModel ?? 'model', Boolean(flags.demo)));
  const written = await writeFileAtomic(file, text);
  if (!written.ok) throw new Refusal(`could not write ${file}: ${written.error}`, EXIT.failed);
  if (end.exit !== 0) sayTail(j, end.stderrTail);
  if (flags.report) {
    const r = await writeReport(resolve(flags.report), session);
    if (r.note) j.say(`warning: ${r.note}`);
    j.say(`Report: ${r.file}`);
  }
  if (!flags.jsonProgress) j.say(summarizeSession(session));
  const what = end.exit === 130 ? 'Stopped; saved what was measured' : end.exit === 0 ? 'Done' : 'The run failed';
  j.say(`${what} on ${j.target.host}.`);
  j.say(`Session file: ${file}`);
  return exitCodeOfRemote(end.exit);
}

/** The whole command; returns the exit code. */
export async function runRemoteCommand(cmd: string[], flags: RemoteRunFlags): Promise<number> {
  const err = errorWriter('run');
  const json = Boolean(flags.jsonProgress);
  const io = progressConsole(json);
  const { say } = io;
  let job: RemoteJob;
  try {
    const problem = refusedWith(flags, cmd);
    if (problem) throw new Refusal(problem, EXIT.usage);
    const target = parseSshTarget(flags.ssh as string, flags.sshOption);
    checkOutputs({ ...flags, out: flags.reattach ? undefined : flags.out });
    // A key inside the server command reaches it there in its environment only, as the run's does.
    const server = keyOutOfCommand(cmd);
    const apiKey = server.apiKey ?? apiKeyFrom(flags, say);
    job = {
      command: 'run',
      target,
      apiKey,
      launch: remoteArgs(server.argv, flags),
      reattachFlags: flags.out ? ['--out', flags.out] : [],
      ...progressJob(flags.reattach, json, io),
    };
  } catch (e) {
    return exitCodeFor(e, err, EXIT.usage);
  }
  try {
    return await bringBack(job, flags, await driveRemote(job));
  } catch (e) {
    return exitCodeFor(e, err, EXIT.failed);
  }
}
