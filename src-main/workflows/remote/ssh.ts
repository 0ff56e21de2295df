/**
 * The user's own OpenSSH client, so keys, agents, jump hosts and known_hosts work as they set
 * them up (README "A GPU server over SSH"). `ssh` is spawned from an argument array; only the
 * remote command becomes one string, because ssh joins its words for the remote shell: every
 * word of it is quoted with `shellQuote`, and scripts are fixed text that take what varies as
 * positional arguments (`sh -c SCRIPT sh ARG...`). SpeedMatrix never asks for or stores a password.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { shellLine } from '#shared/shell-quote';
import { signalChild } from '../../platform/processes/signal-child';

export interface SshTarget {
  /** As the user's `ssh` understands it: an alias from ~/.ssh/config or user@host. */
  host: string;
  /** `KEY=VALUE` pairs, passed on as `-o KEY=VALUE`, before our defaults so the user's win. */
  options: string[];
}

export interface SshResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Something the host or the connection refused, said so a person can act on it. */
export class RemoteError extends Error {}

const OPTION = /^[A-Za-z][A-Za-z0-9]*=\S.*$/;

/** The target from `--ssh HOST` and `--ssh-option KEY=VALUE ...`, or what is wrong with them. */
export function parseSshTarget(host: string, options: readonly string[] = []): SshTarget {
  if (!host.trim() || host.startsWith('-') || /\s/.test(host))
    throw new Error(`--ssh: "${host}" is not a host: give an alias from ~/.ssh/config or user@host.`);
  for (const o of options)
    if (!OPTION.test(o))
      throw new Error(`--ssh-option: "${o}" is not KEY=VALUE (e.g. --ssh-option Port=2222), as ssh's -o takes it.`);
  return { host, options: [...options] };
}

/** Run `script` with `sh` on the host, `args` as its $1, $2...: the one string ssh sends, every word quoted. */
export function remoteScript(script: string, args: readonly string[] = []): string {
  return shellLine(['sh', '-c', script, 'sh', ...args]);
}

/** The argv of `ssh` running `remoteCommand` (already one quoted line) on the target. */
export function sshArgs(target: SshTarget, remoteCommand: string): string[] {
  const user = target.options.flatMap((o) => ['-o', o]);
  return [...user, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=20', '-T', '--', target.host, remoteCommand];
}

/** The program to spawn: the system ssh, or SPEEDMATRIX_SSH (a path) where it lives elsewhere. */
const sshProgram = (): string => process.env.SPEEDMATRIX_SSH || 'ssh';

/**
 * Start ssh running `remoteCommand`; the caller reads its output as it comes. In a process group
 * of its own: Ctrl-C at the terminal reaches the CLI, which stops the job there, and does not
 * cut the connection that follows the job to its end.
 */
export function spawnSsh(target: SshTarget, remoteCommand: string): ChildProcess {
  return spawn(sshProgram(), sshArgs(target, remoteCommand), {
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    detached: process.platform !== 'win32',
  });
}

/** Run `remoteCommand` to the end, `input` on its stdin; collects what it prints. */
export function runSsh(
  target: SshTarget,
  remoteCommand: string,
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<SshResult> {
  return new Promise((resolve) => {
    const child = spawnSsh(target, remoteCommand);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => signalChild(child, 'SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${e.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(opts.input ?? '');
  });
}

/**
 * What went wrong with the connection itself (ssh's own exit code 255), said so a person can
 * act on it; null when ssh connected and the remote command answered.
 */
export function sshProblem(target: SshTarget, r: SshResult): string | null {
  if (r.code === null && /ENOENT/.test(r.stderr))
    return 'the ssh command was not found: install OpenSSH\'s client ("ssh") on this machine.';
  if (r.code !== 255 && r.code !== null) return null;
  const said = r.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' / ');
  const h = target.host;
  if (/Host key verification failed|No .* host key is known|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(r.stderr))
    return `${h}'s host key is not one ssh knows (known_hosts): connect once with \`ssh ${h}\`, check the key it shows and accept it, then try again. (${said})`;
  if (/Permission denied|password|keyboard-interactive/i.test(r.stderr))
    return `${h} refused the login without a password: SpeedMatrix runs ssh with BatchMode=yes and never asks for or stores a password. Set up a key (\`ssh-copy-id ${h}\`) or an ssh agent so that \`ssh ${h} true\` works without a prompt. (${said})`;
  return `could not connect to ${h} over ssh: ${said || `ssh ended with ${r.code === null ? 'no exit code' : `exit code ${r.code}`}`}`;
}
