/**
 * macOS apps opened from Finder or the Dock get launchd's PATH (/usr/bin:/bin:/usr/sbin:/sbin),
 * so `vllm` in a Python environment and `docker` in /usr/local/bin or /opt/homebrew/bin are not
 * found, although they are in a terminal. The PATH the person's commands see is the one their
 * login shell builds; it is asked once, with a fixed script that takes no input (nothing of a
 * server command ever goes through it).
 */
import { spawn } from 'node:child_process';
import { delimiter } from 'node:path';

const START = '__SPEEDMATRIX_PATH_START__';
const END = '__SPEEDMATRIX_PATH_END__';
/** A slow shell start-up (plugins, version managers) must not hold the app's window back for long. */
const TIMEOUT_MS = 5000;

/**
 * The PATH the user's login shell ($SHELL, else zsh) sets, or null when it cannot be read. The
 * shell runs in a session of its own (no terminal): an interactive shell in a terminal's
 * background would be stopped the moment it touched the terminal, and a stopped process
 * ignores the timeout's kill unless it is SIGKILL.
 */
export function loginShellPath(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const shell = env.SHELL || '/bin/zsh';
  return new Promise((resolve) => {
    let stdout = '';
    // -i -l: rc and profile files both run, as in Terminal; markers skip anything they print.
    const child = spawn(shell, ['-ilc', `printf '%s%s%s' '${START}' "$PATH" '${END}'`], {
      env,
      detached: true,
      windowsHide: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }, TIMEOUT_MS);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', () => undefined);
    child.on('close', () => {
      clearTimeout(timer);
      const m = new RegExp(`${START}(.*?)${END}`, 's').exec(stdout);
      resolve(m && m[1].trim() ? m[1].trim() : null);
    });
  });
}

/** The login shell's PATH first, then any entry of the current one it lacks. */
export function mergePaths(login: string, current: string | undefined): string {
  const seen = new Set<string>();
  return [...login.split(delimiter), ...(current ?? '').split(delimiter)]
    .filter((d) => d && !seen.has(d) && seen.add(d))
    .join(delimiter);
}

/** macOS only: this process's PATH becomes the login shell's, so servers and tools are found as in a terminal. */
export async function adoptLoginShellPath(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (platform !== 'darwin') return;
  const login = await loginShellPath(env);
  if (login) env.PATH = mergePaths(login, env.PATH);
}
