import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths';
import { signalChild } from '../../src-main/platform/processes/signal-child';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the real `speedmatrix` CLI (src-main/hosts/cli/bin.cjs) as a separate process; `wrap` is a command it runs
 * under (e.g. `taskset -c 0`), as argv, never through a shell.
 */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string; wrap?: string[] } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const argv = [...(opts.wrap ?? []), process.execPath, join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args];
    const child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => signalChild(child, 'SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
