/**
 * A run on the remote host the Server view started its server on: `speedmatrix run --url` there,
 * next to the server (network latency stays out of TTFT), detached, its JSON progress lines
 * followed over ssh into the same events a run here sends, so the Run view and Results fill in
 * as for a local run. The session is fetched at the run's start and end; a link lost for good
 * leaves the run going there, and Reattach follows it again from the byte it stopped at
 * (src-main/workflows/remote, README "A GPU server over SSH").
 */
import type { RunForm } from '#shared/ipc/forms';
import { countByStatus } from '#shared/session/status-words';
import type { ServerLaunch, Session } from '#shared/session/schema';
import type { BenchEvent, RunOutcome } from '../../engine/bench';
import type { ServerTarget } from '../../engine/server/target';
import { parseSessionText } from '../../platform/session/read';
import { serializeSession, writeFileAtomic } from '../../platform/session/write';
import { checkRemoteCli } from '../../workflows/remote/remote-cli';
import {
  REMOTE_SESSION,
  fetchRemoteSession,
  followRemoteRun,
  launchRemoteRun,
  newRunId,
  remoteRunState,
  resumeRemoteRun,
  stopRemoteRun,
} from '../../workflows/remote/remote-run';
import { Waker, followUntilEnded, type Stopper } from '../../workflows/remote/follow';
import type { SshTarget } from '../../workflows/remote/ssh';

/** The remote `speedmatrix run` arguments of a run form against the server there, and of its resume. */
export function remoteRunArgs(
  form: RunForm,
  server: { ready: ServerTarget; simSpeed: number | null },
): { args: string[]; resumeArgs: string[] } {
  const list = (xs: number[]) => xs.join(',');
  const common = [
    '--url',
    server.ready.baseUrl,
    ...(server.simSpeed ? ['--sim-speed', String(server.simSpeed)] : []),
    '--json-progress',
  ];
  const matrix = [
    ...['--model', server.ready.model, '--contexts', list(form.contexts)],
    // Automatic levels: the host's run decides them, against its server's KV cache, as here.
    ...(form.concurrency.length ? ['--concurrency', list(form.concurrency)] : []),
    ...(form.prefillContexts.length ? ['--prefill-contexts', list(form.prefillContexts)] : []),
    ...['--duration', String(form.secondsPerMeasurement)],
    ...(form.outputLen?.trim()
      ? ['--output-len', form.outputLen.trim()]
      : ['--max-output', String(form.maxOutputTokens)]),
    ...(form.sharedPrefix ? ['--shared-prefix', String(form.sharedPrefix)] : []),
    ...['--token-targeting', form.tokenTargeting, '--repeat', String(form.repeat)],
    ...(form.precisionPercent ? ['--precision', String(form.precisionPercent)] : []),
    ...(form.precisionPercent && form.minSecondsPerMeasurement
      ? ['--min-duration', String(form.minSecondsPerMeasurement)]
      : []),
  ];
  return {
    args: ['run', ...common, ...matrix, '--out', REMOTE_SESSION],
    resumeArgs: ['run', '--resume', REMOTE_SESSION, ...common],
  };
}

export interface RemoteRunHooks {
  onEvent(e: BenchEvent): void;
  /** The link to the host dropped (the run goes on there; why, and what happens next), or lines flow again (null). */
  onLink(lost: string | null): void;
  /** The run ended without a session to bring back, or could not start. */
  onFail(message: string): void;
}

export interface RemoteRunHandle {
  host: string;
  id: string;
  stop(): Promise<void>;
  /** Follow it again from where the lost link stopped, at once (the wait before the next try cut short). */
  reattach(): void;
  /** Continue it there after it was stopped (`run --resume` there, from its journal), followed from where it stopped. */
  resume(): Promise<void>;
  /** Settles when the run has ended and its session is here (or it failed), or the link is lost. */
  followed: Promise<'ended' | 'lost'>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The session file there, parsed; `tries` times a quarter second apart while it is being written.
 * The run there measured a server it attached to by URL; the session records the server as
 * launched, the command the person gave (as a local launch does).
 */
async function remoteSession(ssh: SshTarget, id: string, server: ServerLaunch, tries = 1): Promise<Session> {
  for (let i = 1; ; i++) {
    try {
      const parsed = parseSessionText(await fetchRemoteSession(ssh, id), REMOTE_SESSION);
      if (parsed.ok) return { ...parsed.data, server };
      if (i >= tries) throw new Error(parsed.error.message);
    } catch (e) {
      if (i >= tries) throw e;
    }
    await sleep(250);
  }
}

/** Start the run there and follow it; its session ends up in `workingFile` here. */
export async function startRemoteRun(o: {
  ssh: SshTarget;
  launch: { args: string[]; resumeArgs: string[] };
  /** The server as its launch there recorded it (`serve --json`'s ready target). */
  server: ServerLaunch;
  apiKey?: string;
  workingFile: string;
  hooks: RemoteRunHooks;
}): Promise<RemoteRunHandle> {
  const { ssh, hooks } = o;
  await checkRemoteCli(ssh);
  const id = newRunId();
  await launchRemoteRun(ssh, id, { ...o.launch, apiKey: o.apiKey });
  const cursor = { offset: 0 };
  const stopper: Stopper = { requested: false };
  const waker = new Waker();
  let linkDown = false;
  let gaveUp = false;
  let outcome: RunOutcome | null = null;
  let lines = Promise.resolve();

  const handle = async (line: string): Promise<void> => {
    let e: BenchEvent;
    try {
      e = JSON.parse(line) as BenchEvent;
    } catch {
      return;
    }
    // The last word comes with the whole session, fetched at the end.
    if (e.type === 'run-done') outcome = e.outcome;
    else hooks.onEvent(e);
    // The session is on disk there before the first cell starts: the open session takes the cells from here on.
    if (e.type === 'plan') hooks.onEvent({ type: 'session', session: await remoteSession(ssh, id, o.server, 20) });
  };

  const warn = (e: Error) => hooks.onEvent({ type: 'log', level: 'warn', message: e.message });

  const finish = async (exit: number | null, stderrTail: string[]): Promise<void> => {
    await lines;
    let session: Session;
    try {
      session = await remoteSession(ssh, id, o.server);
    } catch (e) {
      const tail = stderrTail.length ? ` Its last lines there: ${stderrTail.join(' / ')}` : '';
      return hooks.onFail(`The run on ${ssh.host} left no session to bring back (${(e as Error).message}).${tail}`);
    }
    const saved = await writeFileAtomic(o.workingFile, serializeSession(session));
    hooks.onEvent({
      type: 'run-done',
      outcome: outcome ?? (exit === 0 ? 'completed' : exit === 130 ? 'cancelled' : 'failed'),
      session,
      sessionFile: saved.ok ? o.workingFile : null,
      counts: countByStatus(session),
    });
  };

  const follow = async (): Promise<'ended' | 'lost'> => {
    try {
      const end = await followUntilEnded(
        {
          follow: (offset) =>
            followRemoteRun(ssh, id, offset, (l) => {
              if (linkDown) {
                linkDown = false;
                hooks.onLink(null);
              }
              lines = lines.then(() => handle(l).catch(warn));
            }),
          state: () => remoteRunState(ssh, id),
          resume: () => resumeRemoteRun(ssh, id, o.apiKey),
          stopper,
          say: (message) => hooks.onEvent({ type: 'log', level: 'warn', message }),
          cursor,
          waker,
          dropped: (problem, retryInS) => {
            linkDown = true;
            hooks.onLink(`${problem}. Following again in ${retryInS} s, or now with Reattach.`);
          },
        },
        ssh.host,
      );
      await finish(end.exit, end.stderrTail);
      return 'ended';
    } catch (e) {
      gaveUp = true;
      hooks.onLink((e as Error).message);
      return 'lost';
    }
  };

  const h: RemoteRunHandle = {
    host: ssh.host,
    id,
    followed: follow(),
    stop: async () => {
      stopper.requested = true;
      await stopRemoteRun(ssh, id);
    },
    resume: async () => {
      stopper.requested = false;
      outcome = null;
      await resumeRemoteRun(ssh, id, o.apiKey);
      h.followed = follow();
    },
    reattach: () => {
      if (!gaveUp && !linkDown) return;
      linkDown = false;
      hooks.onLink(null);
      if (!gaveUp) return waker.wake();
      gaveUp = false;
      h.followed = follow();
    },
  };
  return h;
}
