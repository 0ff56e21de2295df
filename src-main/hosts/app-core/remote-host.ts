/**
 * The Server view's "Remote host (SSH)": the server runs on the host under the supervisor of the
 * speedmatrix installed there (`speedmatrix serve --json`, detached, followed over the user's ssh:
 * src-main/workflows/remote), and its JSON events become this side's snapshots. The page knows
 * only the host and its ssh options (README "A GPU server over SSH").
 */
import type { RemoteHardware, ServerFailure } from '#shared/ipc/contract';
import type { RemoteHost, ServerForm } from '#shared/ipc/forms';
import type { ServerTarget } from '../../engine/server/target';
import { checkRemoteCli, remoteHardware } from '../../workflows/remote/remote-cli';
import {
  followRemoteRun,
  keyOutOfCommand,
  launchRemoteRun,
  newRunId,
  remoteRunState,
  resumeRemoteRun,
  stopRemoteRun,
} from '../../workflows/remote/remote-run';
import { followUntilEnded, type Stopper } from '../../workflows/remote/follow';
import { RemoteError, parseSshTarget, type SshTarget } from '../../workflows/remote/ssh';
import { pageSshOptionsProblem } from '../../workflows/remote/page-ssh-options';
import { UserError } from './user-error';
import { shellQuote } from '#shared/shell-quote';

const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The ssh options the page may pass (page-ssh-options.ts); what is wrong with them said with the field's label. */
export function checkPageSshOptions(options: readonly string[]): void {
  try {
    parseSshTarget('host', options);
  } catch (e) {
    throw new UserError((e as Error).message.replace(/^--ssh-option:/, 'SSH options:'));
  }
  const problem = pageSshOptionsProblem(options);
  if (problem) throw new UserError(problem);
}

/**
 * The ssh target of a host as the page names it; a bad host or option said with the field's label.
 * Every ssh the page can start (a host's hardware, a server or run there) takes its target from here.
 */
export function sshTargetOf(host: RemoteHost): SshTarget {
  if (!host.host.trim()) throw new UserError('SSH host: give an alias from ~/.ssh/config or user@host.');
  checkPageSshOptions(host.options);
  try {
    return parseSshTarget(host.host.trim(), host.options);
  } catch (e) {
    throw new UserError((e as Error).message.replace(/^--ssh:/, 'SSH host:'));
  }
}

/** The Server form's host: its `sshHost` and its options, one KEY=VALUE per line. */
export const remoteHostOf = (form: Pick<ServerForm, 'sshHost' | 'sshOptions'>): RemoteHost => ({
  host: form.sshHost,
  options: lines(form.sshOptions),
});

/** What the host's own speedmatrix detects there; its refusals (no key, unknown host key, no speedmatrix) as they are. */
export async function hardwareOn(host: RemoteHost, timeoutS = 20): Promise<RemoteHardware> {
  const target = sshTargetOf(host);
  try {
    return { host: target.host, ...(await remoteHardware(target, timeoutS)) };
  } catch (e) {
    if (e instanceof RemoteError) throw new UserError(e.message);
    throw e;
  }
}

/** What the remote `serve --json` tells, as the Server view shows it. */
export interface RemoteServeEvents {
  progress(phase: string): void;
  ready(target: ServerTarget): void;
  failed(failure: ServerFailure): void;
  crashed(message: string, lines: string[]): void;
  /** A line for the server log: the server's own there, or ours (a dropped link, a resume). */
  say(text: string): void;
  /** It ended there: exit code (0 stopped cleanly), and the tail of its log there. */
  ended(exit: number | null, stderrTail: string[]): void;
}

interface ServeLine {
  event?: string;
  phase?: string;
  target?: ServerTarget;
  failure?: { message: string; advice?: string; rootCauseLines?: string[]; logTail?: string[] };
  signal?: string | null;
  exitCode?: number | null;
  lastLines?: string[];
  line?: string;
}

function onServeLine(line: string, on: RemoteServeEvents): void {
  let e: ServeLine;
  try {
    e = JSON.parse(line) as ServeLine;
  } catch {
    return on.say(line);
  }
  if (e.event === 'progress' && e.phase) on.progress(e.phase);
  else if (e.event === 'log' && typeof e.line === 'string') on.say(e.line);
  else if (e.event === 'ready' && e.target) on.ready(e.target);
  else if (e.event === 'failed' && e.failure)
    on.failed({
      message: e.failure.message,
      advice: e.failure.advice || null,
      lines: e.failure.rootCauseLines?.length ? e.failure.rootCauseLines : (e.failure.logTail ?? []).slice(-15),
    });
  else if (e.event === 'crashed')
    on.crashed(
      `The server stopped unexpectedly (${e.signal ? `signal ${e.signal}` : `exit code ${e.exitCode}`}).`,
      (e.lastLines ?? []).slice(-20),
    );
}

/** A server started on a host: stop it there, or wait for it to end. */
export interface RemoteServer {
  target: SshTarget;
  id: string;
  stop(): Promise<void>;
  done: Promise<void>;
}

/**
 * Start `argv` (the server command as a person would type it) under `speedmatrix serve` on the
 * host, detached there, and follow its events until it ends; a dropped link is followed again.
 * Its API key reaches the server there in its environment only.
 */
export async function serveOn(target: SshTarget, argv: string[], on: RemoteServeEvents): Promise<RemoteServer> {
  await checkRemoteCli(target);
  const id = newRunId();
  const { argv: command, apiKey } = keyOutOfCommand(argv);
  const args = ['serve', '--json', '--', ...command];
  await launchRemoteRun(target, id, { args, resumeArgs: args, apiKey });
  const stopper: Stopper = { requested: false };
  const done = followUntilEnded(
    {
      follow: (offset) => followRemoteRun(target, id, offset, (l) => onServeLine(l, on)),
      state: () => remoteRunState(target, id),
      resume: () => resumeRemoteRun(target, id, apiKey),
      stopper,
      say: on.say,
    },
    target.host,
  ).then(
    (end) => on.ended(end.exit, end.stderrTail),
    (e: Error) =>
      on.failed({
        message: e.message,
        advice: `It may still run on ${target.host}: \`speedmatrix serve --ssh ${shellQuote(target.host)} --reattach ${id}\` follows it, and Ctrl-C there stops it.`,
        lines: [],
      }),
  );
  return {
    target,
    id,
    done,
    stop: async () => {
      stopper.requested = true;
      await stopRemoteRun(target, id);
    },
  };
}
