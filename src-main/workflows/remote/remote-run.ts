/**
 * A run on another machine over SSH (README "A GPU server over SSH"). The `speedmatrix`
 * installed there does the work, detached from the connection (`setsid`) in a folder of its own,
 * `~/.speedmatrix/remote/ID`: its JSON progress lines go to `progress.jsonl`, its session and
 * journal beside them. The connection only follows that file from a byte offset, so a dropped
 * link loses nothing and repeats nothing: following again from the same offset, or resuming the
 * run there with its journal (`run --resume`) when the process is gone, picks up where it was.
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { RemoteError, remoteScript, runSsh, spawnSsh, sshProblem, type SshTarget } from './ssh';

/** The session file in the run's folder on the host. */
export const REMOTE_SESSION = 'session.speedmatrix.json';
/** Where the host keeps its runs, under its home. */
const RUNS_DIR = '.speedmatrix/remote';
const ID = /^[a-z0-9][a-z0-9-]{3,40}$/;

export const newRunId = (now = new Date()): string =>
  `${now.toISOString().slice(0, 19).replace(/[-:T]/g, '')}-${randomBytes(3).toString('hex')}`.toLowerCase();

export function checkRunId(id: string): string {
  if (!ID.test(id)) throw new RemoteError(`"${id}" is not a remote run id (like 20261201181500-3fa2c1).`);
  return id;
}

const dirOf = (id: string) => `${RUNS_DIR}/${checkRunId(id)}`;

/**
 * Start `speedmatrix ARGS...` detached in the run's folder; with no ARGS, again with the args it
 * was first started with plus `--resume` (resume.args). The first line of stdin is the API key
 * (or empty): it reaches the run in its environment only (SPEEDMATRIX_API_KEY for run and sweep,
 * VLLM_API_KEY for the server it starts), never a command line or a file there; a resume sends it again.
 */
const LAUNCH = `d=$1; shift
umask 077
cd "$HOME" && mkdir -p "$d" && cd "$d" || exit 3
IFS= read -r key
if [ -n "$key" ]; then SPEEDMATRIX_API_KEY=$key VLLM_API_KEY=$key; export SPEEDMATRIX_API_KEY VLLM_API_KEY; fi
unset key
if [ $# -gt 0 ]; then cat > resume.args; else
  cat > /dev/null; set --
  while IFS= read -r a; do set -- "$@" "$a"; done < resume.args
fi
rm -f exit wrapper.pid pid; touch progress.jsonl stderr.log
setsid sh -c 'echo $$ > wrapper.pid; speedmatrix "$@" >> progress.jsonl 2>> stderr.log < /dev/null & echo $! > pid; wait $!; echo $? > exit' sh "$@" < /dev/null > /dev/null 2>&1 &
echo launched`;

/** Print the progress file from byte $2 on, and follow it until the run's wrapper ends. */
const FOLLOW = `cd "$HOME" && cd "$1" || exit 3
i=0; while [ ! -s wrapper.pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
exec tail -c +$(($2 + 1)) --pid="$(cat wrapper.pid)" -f progress.jsonl`;

/** What the run's folder says: running, its exit code, whether there is a session. */
const STATE = `cd "$HOME" && cd "$1" || exit 3
# A written exit code means it is over, though the wrapper may not have ended yet.
alive=no; wp=$(cat wrapper.pid 2>/dev/null); [ -n "$wp" ] && [ ! -s exit ] && kill -0 "$wp" 2>/dev/null && alive=yes
echo "alive=$alive"; echo "exit=$(cat exit 2>/dev/null)"
[ -f ${REMOTE_SESSION} ] && echo session=yes
tail -n 8 stderr.log | sed 's/^/stderr=/'`;

const STOP = `cd "$HOME" && cd "$1" && kill -TERM "$(cat pid)"`;
const FETCH = `cd "$HOME" && cd "$1" && cat ${REMOTE_SESSION}`;

export interface RemoteState {
  running: boolean;
  /** The run's exit code there (0 done, 1 failed, 130 stopped); null while running or when it was killed. */
  exit: number | null;
  hasSession: boolean;
  stderrTail: string[];
}

async function ssh(target: SshTarget, script: string, args: string[], input?: string): Promise<string> {
  const r = await runSsh(target, remoteScript(script, args), { input });
  const problem = sshProblem(target, r);
  if (problem) throw new RemoteError(problem);
  if (r.code !== 0)
    throw new RemoteError(`on ${target.host}: ${r.stderr.trim() || `the command ended with exit code ${r.code}`}`);
  return r.stdout;
}

/**
 * A server command with its API key taken out (`--api-key K`, `--api-key=K`, `VLLM_API_KEY=K`
 * given to `env`), and the key: a run there gets it in its environment instead
 * (LAUNCH), where vLLM and the simulator read VLLM_API_KEY. A `docker run` passes it on with `-e`.
 */
export function keyOutOfCommand(argv: readonly string[]): { argv: string[]; apiKey?: string } {
  // The `NAME=VALUE` words `env` sets before the program.
  let assignments = argv[0] === 'env' ? 1 : 0;
  while (assignments && /^[A-Za-z_]\w*=/.test(argv[assignments] ?? '')) assignments++;
  let apiKey: string | undefined;
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (i < assignments && a.startsWith('VLLM_API_KEY=')) apiKey = a.slice('VLLM_API_KEY='.length);
    else if (i >= assignments && a === '--api-key' && i + 1 < argv.length) apiKey = argv[++i];
    else if (i >= assignments && a.startsWith('--api-key=')) apiKey = a.slice('--api-key='.length);
    else out.push(a);
  }
  if (apiKey === undefined) return { argv: [...argv] };
  const docker = out.findIndex((w, i) => /(^|\/)docker$/.test(w) && out[i + 1] === 'run');
  if (docker >= 0 && !out.includes('VLLM_API_KEY')) out.splice(docker + 2, 0, '-e', 'VLLM_API_KEY');
  return { argv: out, apiKey };
}

/** Start a run there: `args` are the remote `speedmatrix` arguments, `resumeArgs` what continues it. */
export async function launchRemoteRun(
  target: SshTarget,
  id: string,
  run: { args: string[]; resumeArgs: string[]; apiKey?: string },
): Promise<void> {
  if ([...run.args, ...run.resumeArgs].some((a) => a.includes('\n')))
    throw new RemoteError('an argument holds a line break, which a remote run cannot carry.');
  await ssh(target, LAUNCH, [dirOf(id), ...run.args], `${run.apiKey ?? ''}\n${run.resumeArgs.join('\n')}\n`);
}

/** Start it again from its journal and session (`run --resume`), the key sent anew. */
export async function resumeRemoteRun(target: SshTarget, id: string, apiKey?: string): Promise<void> {
  await ssh(target, LAUNCH, [dirOf(id)], `${apiKey ?? ''}\n`);
}

export async function remoteRunState(target: SshTarget, id: string): Promise<RemoteState> {
  const lines = (await ssh(target, STATE, [dirOf(id)])).split('\n');
  const value = (k: string) => lines.find((l) => l.startsWith(`${k}=`))?.slice(k.length + 1) ?? '';
  const exit = value('exit').trim();
  return {
    running: value('alive') === 'yes',
    exit: exit === '' ? null : Number(exit),
    hasSession: value('session') === 'yes',
    stderrTail: lines.filter((l) => l.startsWith('stderr=')).map((l) => l.slice(7)),
  };
}

/** Ask the run there to stop (SIGTERM: it cancels the cell in progress and saves, as on Ctrl-C). */
export async function stopRemoteRun(target: SshTarget, id: string): Promise<void> {
  await ssh(target, STOP, [dirOf(id)]);
}

/** The session file's text, as the run there wrote it. */
export function fetchRemoteSession(target: SshTarget, id: string): Promise<string> {
  return ssh(target, FETCH, [dirOf(id)]);
}

export interface Follow {
  /** The ssh client following the progress file: killing it is a dropped connection. */
  child: ChildProcess;
  /** Resolves when it ends: `ended` when the run there finished, else what dropped the link. */
  done: Promise<{ ended: boolean; offset: number; problem: string | null }>;
}

/** Follow the progress file from `offset`, one complete line at a time. */
export function followRemoteRun(target: SshTarget, id: string, offset: number, onLine: (line: string) => void): Follow {
  const child = spawnSsh(target, remoteScript(FOLLOW, [dirOf(id), String(offset)]));
  child.stdin!.end();
  let at = offset;
  let pending = Buffer.alloc(0);
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    pending = Buffer.concat([pending, d]);
    for (let nl = pending.indexOf(10); nl >= 0; nl = pending.indexOf(10)) {
      const line = pending.subarray(0, nl).toString('utf8');
      pending = pending.subarray(nl + 1);
      at += nl + 1;
      if (line.trim()) onLine(line);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ ended: boolean; offset: number; problem: string | null }>((resolve) => {
    child.on('error', (e) => resolve({ ended: false, offset: at, problem: e.message }));
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ ended: true, offset: at, problem: null });
      else
        resolve({
          ended: false,
          offset: at,
          problem: signal
            ? `the ssh client was ended (${signal})`
            : (sshProblem(target, { code, stdout: '', stderr }) ??
              `following ended with exit code ${code}: ${stderr.trim()}`),
        });
    });
  });
  return { child, done };
}

const PACK = `cd "$HOME" && cd "$1" && exec tar -cf - -C "$2" .`;

/** Copy the folder `folder` of the run's folder there into `localDir` here (tar over the ssh channel). */
export async function fetchRemoteFolder(
  target: SshTarget,
  id: string,
  folder: string,
  localDir: string,
): Promise<void> {
  await mkdir(localDir, { recursive: true });
  const ssh = spawnSsh(target, remoteScript(PACK, [dirOf(id), folder]));
  ssh.stdin!.end();
  const tar = spawn('tar', ['-xf', '-', '-C', localDir], { stdio: ['pipe', 'ignore', 'pipe'], windowsHide: true });
  ssh.stdout!.pipe(tar.stdin);
  let sshErr = '';
  let tarErr = '';
  ssh.stderr!.setEncoding('utf8').on('data', (d: string) => (sshErr += d));
  tar.stderr.setEncoding('utf8').on('data', (d: string) => (tarErr += d));
  const ended = (p: ChildProcess) =>
    new Promise<number | null>((res) => p.on('close', (code) => res(code)).on('error', () => res(null)));
  const [sshCode, tarCode] = await Promise.all([ended(ssh), ended(tar)]);
  const problem = sshProblem(target, { code: sshCode, stdout: '', stderr: sshErr });
  if (problem) throw new RemoteError(problem);
  if (sshCode !== 0) throw new RemoteError(`could not pack ${folder} on ${target.host}: ${sshErr.trim()}`);
  if (tarCode !== 0)
    throw new RemoteError(`could not unpack ${folder} into ${localDir}: ${tarErr.trim() || 'is tar installed?'}`);
}
