/**
 * `speedmatrix serve --ssh HOST -- CMD`: the server runs on HOST under the supervisor of the
 * speedmatrix installed there, detached from the connection (./remote-drive.ts): its progress,
 * ready and stop lines show here; Ctrl-C stops it there. `--reattach ID` follows it again. An
 * `--api-key` in the command reaches the server there in its environment only.
 */
import { parseSshTarget } from '../../../workflows/remote/ssh';
import { checkRunId, keyOutOfCommand, newRunId } from '../../../workflows/remote/remote-run';
import { EXIT } from './exit';
import { errorWriter } from './command-io';
import type { ServeFlags } from './flag-types';
import type { SshFlags } from './ssh-flags';
import { driveRemote, exitCodeOfRemote, passedFlags, sayTail, type RemoteJob } from './remote-drive';

export interface RemoteServeFlags extends ServeFlags, SshFlags {
  reattach?: string;
}

const LOCAL_ONLY = new Set(['ssh', 'sshOption', 'reattach']);

export async function serveRemoteCommand(cmd: string[], flags: RemoteServeFlags): Promise<number> {
  const err = errorWriter('serve');
  let job: RemoteJob;
  try {
    if (!flags.ssh) throw new Error('--reattach needs --ssh HOST: the host the server is on.');
    // The command's API key reaches the server there in its environment only (a resume after
    // --reattach takes it from SPEEDMATRIX_API_KEY here).
    const { argv: command, apiKey } = keyOutOfCommand(cmd);
    const args = ['serve', ...passedFlags(flags, LOCAL_ONLY), '--', ...command];
    job = {
      command: 'serve',
      target: parseSshTarget(flags.ssh, flags.sshOption),
      id: flags.reattach ? checkRunId(flags.reattach) : newRunId(),
      reattach: Boolean(flags.reattach),
      apiKey: apiKey ?? process.env.SPEEDMATRIX_API_KEY,
      launch: { args, resumeArgs: args },
      reattachFlags: [],
      onLine: (line) => process.stdout.write(`${line}\n`),
      say: (t) => process.stderr.write(`${t}\n`),
    };
  } catch (e) {
    err((e as Error).message);
    return EXIT.usage;
  }
  try {
    const end = await driveRemote(job);
    if (end.exit !== 0 && end.exit !== 130) sayTail(job, end.stderrTail);
    return exitCodeOfRemote(end.exit);
  } catch (e) {
    err((e as Error).message);
    return EXIT.failed;
  }
}
