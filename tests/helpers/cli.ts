import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths';
import { signalChild } from '../../src-main/platform/processes/signal-child';
import { readSessionFile } from '../../src-main/platform/session/read';
import type { Session } from '#shared/session/schema';

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

/** A matrix as `run`'s flags write it; contexts and concurrency as the flags take them ("0,8k", "1,4"). */
export interface MatrixFlags {
  contexts: string;
  concurrency: string;
  /** `--prefill-contexts` ("8k", or "none"). */
  prefill: string;
  /** Seconds per cell. */
  duration: number;
  /** `--max-output`, when the suite sets it. */
  maxOutput?: number;
  /** `--sim-speed` of the simulator measured, when it runs sped up. */
  simSpeed?: number;
}

/** `run --url URL` with a small matrix: the arguments the suites that measure a simulator share. */
export function matrixRunArgs(url: string, m: MatrixFlags): string[] {
  return [
    'run',
    '--url',
    url,
    '--contexts',
    m.contexts,
    '--concurrency',
    m.concurrency,
    '--prefill-contexts',
    m.prefill,
    '--duration',
    String(m.duration),
    ...(m.maxOutput === undefined ? [] : ['--max-output', String(m.maxOutput)]),
    ...(m.simSpeed === undefined ? [] : ['--sim-speed', String(m.simSpeed)]),
  ];
}

/**
 * Runs a measuring command (`run`, `load`) with `--out FILE` and reads the session it wrote; throws
 * with the command's own words when it failed or wrote nothing readable.
 */
export async function sessionFromCli(
  args: string[],
  out: string,
  opts: Parameters<typeof runCli>[1] = {},
): Promise<{ session: Session; result: CliResult }> {
  const result = await runCli([...args, '--out', out], { timeoutMs: 240_000, ...opts });
  if (result.code !== 0)
    throw new Error(`speedmatrix ${args[0]} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  const read = await readSessionFile(out);
  if (!read.ok) throw new Error(`${out}: ${read.error.message}`);
  return { session: read.data, result };
}
