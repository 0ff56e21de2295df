/**
 * What `run`, `sweep` and `serve` share with `--ssh HOST`: check the host's speedmatrix, start the
 * command there detached (or find it again with --reattach), follow its output lines across
 * dropped links, and on Ctrl-C stop it there (README "A GPU server over SSH"). The caller turns
 * the lines into progress and brings back what the command wrote.
 */
import type { BenchEvent } from '../../../engine/bench/types';
import { checkRemoteCli } from '../../../workflows/remote/remote-cli';
import {
  checkRunId,
  followRemoteRun,
  launchRemoteRun,
  newRunId,
  remoteRunState,
  resumeRemoteRun,
  stopRemoteRun,
} from '../../../workflows/remote/remote-run';
import { diedUnfinished, followUntilEnded, type Stopper } from '../../../workflows/remote/follow';
import type { SshTarget } from '../../../workflows/remote/ssh';
import { shellLine } from '#shared/shell-quote';
import { EXIT } from './exit';
import { onStopSignals, type ProgressConsole } from './command-io';

export interface RemoteJob {
  /** The CLI command run there: run, sweep or serve. */
  command: string;
  target: SshTarget;
  id: string;
  /** Find a job started earlier instead of starting one (`--reattach ID`). */
  reattach: boolean;
  apiKey?: string;
  /** The remote speedmatrix arguments, and those that continue it (used when not reattaching). */
  launch: { args: string[]; resumeArgs: string[] };
  /** The flags that, after `--reattach ID`, bring the results to the same place here. */
  reattachFlags: string[];
  onLine(line: string): void;
  say(text: string): void;
  /** Told when Ctrl-C asked the job there to stop. */
  onStopping?(): void;
}

/** The command line that picks the job up again from this machine. */
export const reattachLine = (j: RemoteJob): string =>
  shellLine([
    'speedmatrix',
    j.command,
    '--ssh',
    j.target.host,
    ...j.target.options.flatMap((o) => ['--ssh-option', o]),
    '--reattach',
    j.id,
    ...j.reattachFlags,
  ]);

/** Start or find the job, follow it to its end; its exit code there and the tail of its log. */
export async function driveRemote(j: RemoteJob): Promise<{ exit: number | null; stderrTail: string[] }> {
  const { target, id, say } = j;
  const stopper: Stopper = { requested: false };
  let started = j.reattach;
  const signals = onStopSignals(
    () => {
      stopper.requested = true;
      j.onStopping?.();
      say(
        `Stopping the ${j.command} on ${target.host}: it cancels what is in progress and saves (Ctrl-C again to leave)...`,
      );
      stopRemoteRun(target, id).catch((e: Error) => say(`warning: could not stop it: ${e.message}`));
    },
    () => say(`Leaving; the ${j.command} on ${target.host} is stopping. See it with: ${reattachLine(j)}`),
  );
  try {
    await checkRemoteCli(target);
    if (j.reattach) {
      say(`Reattaching to ${id} on ${target.host}...`);
      const state = await remoteRunState(target, id);
      if (!state.running && (diedUnfinished(state.exit) || state.exit === 130)) {
        say(`It is not running there (${state.exit === 130 ? 'it was stopped' : 'it was killed'}): resuming it.`);
        await resumeRemoteRun(target, id, j.apiKey);
      }
    } else {
      await launchRemoteRun(target, id, { ...j.launch, apiKey: j.apiKey });
      started = true;
      say(`Started ${j.command} ${id} on ${target.host}; it carries on there if this connection drops.`);
      say(`Reattach with: ${reattachLine(j)}`);
    }
    return await followUntilEnded(
      {
        follow: (offset) => followRemoteRun(target, id, offset, j.onLine),
        state: () => remoteRunState(target, id),
        resume: () => resumeRemoteRun(target, id, j.apiKey),
        stopper,
        say,
      },
      target.host,
    );
  } catch (e) {
    if (started) say(`It may still be going on ${target.host}: ${reattachLine(j)}`);
    throw e;
  } finally {
    signals.off();
  }
}

/**
 * A job whose lines are progress events (run, sweep): its id, new or the one to reattach to, and
 * its events shown here as a local run shows them (passed on as they are with --json-progress).
 */
export function progressJob(
  reattach: string | undefined,
  json: boolean,
  { printer, say }: ProgressConsole,
): Pick<RemoteJob, 'id' | 'reattach' | 'onLine' | 'onStopping' | 'say'> {
  return {
    id: reattach ? checkRunId(reattach) : newRunId(),
    reattach: Boolean(reattach),
    onLine: (line) => (json ? process.stdout.write(`${line}\n`) : printer.handle(JSON.parse(line) as BenchEvent)),
    onStopping: () => printer.stopping(),
    say,
  };
}

/** This side's exit code for the job's exit code there: done, cancelled (130) or failed. */
export const exitCodeOfRemote = (exit: number | null): number =>
  exit === 0 ? EXIT.ok : exit === 130 ? EXIT.cancelled : EXIT.failed;

/** The host's log lines, shown when the job there did not end well. */
export function sayTail(j: Pick<RemoteJob, 'target' | 'say'>, tail: string[]): void {
  for (const l of tail) j.say(`  ${j.target.host}: ${l}`);
}

/** Remote arguments from parsed flags: a flag per value, minus those that stay on this side. */
export function passedFlags(flags: object, localOnly: ReadonlySet<string>): string[] {
  const kebab = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const out: string[] = [];
  for (const [k, v] of Object.entries(flags)) {
    if (localOnly.has(k) || v === undefined || v === false) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push(...(one === true ? [kebab(k)] : [kebab(k), String(one)]));
  }
  return out;
}
