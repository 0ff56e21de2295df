/**
 * `speedmatrix run --ssh HOST ...`: the run happens on HOST, by the speedmatrix installed there,
 * detached from the connection; this side starts it, shows its progress lines as they come,
 * follows it again when the link drops, and copies the session back at the end.
 * `--reattach ID` picks up a run this side lost (or resumes it there when it died).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ProgressPrinter } from '../../../engine/bench/progress';
import type { BenchEvent } from '../../../engine/bench/types';
import { parseSessionText } from '../../../platform/session/read';
import { summarizeSession } from '../../../platform/session/summary';
import { writeFileAtomic } from '../../../platform/session/write';
import { RemoteError, parseSshTarget, type SshTarget } from '../../../workflows/remote/ssh';
import { checkRemoteCli } from '../../../workflows/remote/remote-cli';
import {
  REMOTE_SESSION,
  checkRunId,
  fetchRemoteSession,
  followRemoteRun,
  launchRemoteRun,
  newRunId,
  remoteRunState,
  resumeRemoteRun,
  stopRemoteRun,
} from '../../../workflows/remote/remote-run';
import { followUntilEnded, type Stopper } from '../../../workflows/remote/follow';
import { shellLine } from '#shared/shell-quote';
import type { Session } from '#shared/session/schema';
import { EXIT } from './exit';
import { Refusal } from './out-folder';
import type { RunFlags } from './run-flags';
import { apiKeyFrom, checkOutputs, defaultSessionFile, usageProblem, writeReport } from './run-action';
import type { SshFlags } from './ssh-flags';

export interface RemoteRunFlags extends RunFlags, SshFlags {
  reattach?: string;
}

/** Flags that stay on this side: the session and report land here, the key travels on stdin. */
const LOCAL_ONLY = new Set(['ssh', 'sshOption', 'reattach', 'out', 'report', 'jsonProgress', 'apiKey', 'apiKeyFile']);

const kebab = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The remote `speedmatrix` arguments of this run, and of its resume; the key file is the run folder's. */
export function remoteArgs(
  cmd: string[],
  flags: RemoteRunFlags,
  withKey: boolean,
): { args: string[]; resumeArgs: string[] } {
  const passed: string[] = [];
  for (const [k, v] of Object.entries(flags)) {
    if (LOCAL_ONLY.has(k) || v === undefined || v === false) continue;
    passed.push(...(v === true ? [kebab(k)] : [kebab(k), String(v)]));
  }
  const key = withKey ? ['--api-key-file', 'api-key'] : [];
  const common = ['--json-progress', ...key];
  const again = [
    ...(flags.url ? ['--url', flags.url] : []),
    ...(flags.simSpeed ? ['--sim-speed', flags.simSpeed] : []),
    ...(flags.yes ? ['--yes'] : []),
  ];
  return {
    args: ['run', ...passed, ...common, '--out', REMOTE_SESSION, ...(cmd.length ? ['--', ...cmd] : [])],
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
  return usageProblem(cmd, flags);
}

/** What this side keeps of the remote run. */
interface Ctx {
  target: SshTarget;
  id: string;
  flags: RemoteRunFlags;
  apiKey?: string;
  say: (t: string) => void;
}

const reattachLine = (c: Ctx) =>
  shellLine([
    'speedmatrix',
    'run',
    '--ssh',
    c.target.host,
    ...c.target.options.flatMap((o) => ['--ssh-option', o]),
    '--reattach',
    c.id,
    ...(c.flags.out ? ['--out', c.flags.out] : []),
  ]);

/** Copy the finished session back, write what was asked here; returns the exit code. */
async function bringBack(c: Ctx, exit: number | null, stderrTail: string[], printer: ProgressPrinter, json: boolean) {
  let session: Session;
  let text: string;
  try {
    text = await fetchRemoteSession(c.target, c.id);
    const parsed = parseSessionText(text, REMOTE_SESSION);
    if (!parsed.ok) throw new RemoteError(parsed.error.message);
    session = parsed.data;
  } catch (e) {
    for (const l of stderrTail) c.say(`  ${c.target.host}: ${l}`);
    throw new Refusal(`the run on ${c.target.host} left no session to copy back: ${(e as Error).message}`, EXIT.failed);
  }
  const file = resolve(c.flags.out ?? defaultSessionFile(session.server.servedModel ?? 'model', Boolean(c.flags.demo)));
  const written = await writeFileAtomic(file, text);
  if (!written.ok) throw new Refusal(`could not write ${file}: ${written.error}`, EXIT.failed);
  if (exit !== 0) for (const l of stderrTail) c.say(`  ${c.target.host}: ${l}`);
  if (c.flags.report) {
    const r = await writeReport(resolve(c.flags.report), session);
    if (r.note) c.say(`warning: ${r.note}`);
    c.say(`Report: ${r.file}`);
  }
  if (!json) printer.line(summarizeSession(session));
  c.say(
    `${exit === 130 ? 'Stopped; saved what was measured' : exit === 0 ? 'Done' : 'The run failed'} on ${c.target.host}.`,
  );
  c.say(`Session file: ${file}`);
  return exit === 0 ? EXIT.ok : exit === 130 ? EXIT.cancelled : EXIT.failed;
}

/** The whole command; returns the exit code. */
export async function runRemoteCommand(cmd: string[], flags: RemoteRunFlags): Promise<number> {
  const err = (m: string) => process.stderr.write(`speedmatrix run: ${m}\n`);
  const json = Boolean(flags.jsonProgress);
  const mode = json ? 'json' : process.stdout.isTTY ? 'tty' : 'plain';
  const printer = new ProgressPrinter(mode, {
    write: (t) => process.stdout.write(t),
    columns: () => process.stdout.columns,
  });
  const say = (t: string) => (json ? process.stderr.write(`${t}\n`) : printer.line(t));
  let c: Ctx;
  try {
    const problem = refusedWith(flags, cmd);
    if (problem) throw new Refusal(problem, EXIT.usage);
    const target = parseSshTarget(flags.ssh as string, flags.sshOption);
    if (flags.out && existsSync(resolve(flags.out)) && !flags.reattach)
      throw new Refusal(`--out: ${resolve(flags.out)} already exists; choose another --out.`, EXIT.usage);
    checkOutputs({ ...flags, out: flags.out && !existsSync(resolve(flags.out)) ? flags.out : undefined });
    const apiKey = apiKeyFrom(flags, say);
    c = { target, id: flags.reattach ? checkRunId(flags.reattach) : newRunId(), flags, apiKey, say };
  } catch (e) {
    err((e as Error).message);
    return e instanceof Refusal ? e.code : EXIT.usage;
  }
  const stopper: Stopper = { requested: false };
  let quitting = false;
  let started = Boolean(flags.reattach);
  const onSignal = () => {
    if (stopper.requested) {
      quitting = true;
      say(`Leaving; the run on ${c.target.host} is stopping and saving. See it with: ${reattachLine(c)}`);
      process.exit(EXIT.cancelled);
    }
    stopper.requested = true;
    printer.stopping();
    say(`Stopping the run on ${c.target.host}: it cancels the cell in progress and saves (Ctrl-C again to leave)...`);
    stopRemoteRun(c.target, c.id).catch((e: Error) => say(`warning: could not stop it: ${e.message}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await checkRemoteCli(c.target);
    if (flags.reattach) {
      say(`Reattaching to run ${c.id} on ${c.target.host}...`);
      const state = await remoteRunState(c.target, c.id);
      if (!state.running && (state.exit === null || state.exit === 130)) {
        say(
          `It is not running there (${state.exit === null ? 'it was killed' : 'it was stopped'}): resuming it from its journal.`,
        );
        await resumeRemoteRun(c.target, c.id, c.apiKey);
      }
    } else {
      const { args, resumeArgs } = remoteArgs(cmd, flags, Boolean(c.apiKey));
      await launchRemoteRun(c.target, c.id, { args, resumeArgs, apiKey: c.apiKey });
      started = true;
      say(`Started run ${c.id} on ${c.target.host}; it carries on there if this connection drops.`);
      say(`Reattach with: ${reattachLine(c)}`);
    }
    const onLine = (line: string) => {
      if (json) process.stdout.write(`${line}\n`);
      else printer.handle(JSON.parse(line) as BenchEvent);
    };
    const end = await followUntilEnded(
      {
        follow: (offset) => followRemoteRun(c.target, c.id, offset, onLine),
        state: () => remoteRunState(c.target, c.id),
        resume: () => resumeRemoteRun(c.target, c.id, c.apiKey),
        stopper,
        say,
      },
      c.target.host,
    );
    return await bringBack(c, end.exit, end.stderrTail, printer, json);
  } catch (e) {
    if (!quitting) err((e as Error).message);
    if (started && !(e instanceof Refusal)) say(`The run may still be going on ${c.target.host}: ${reattachLine(c)}`);
    return e instanceof Refusal ? e.code : EXIT.failed;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
