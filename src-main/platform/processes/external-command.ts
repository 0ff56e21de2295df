/**
 * Run an external program (nvidia-smi, amd-smi, lspci, docker) asynchronously with a deadline.
 * Drivers can hang these tools, so every call has a timeout and never blocks the event loop.
 */
import { spawn } from 'node:child_process';
import { signalChild } from './signal-child';

export interface CommandResult {
  /** 'ok' = exit 0; 'failed' = non-zero exit; 'not-found' = no such program; 'timeout' = killed at the deadline. */
  status: 'ok' | 'failed' | 'not-found' | 'timeout';
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export async function runCommand(
  command: string,
  args: readonly string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const started = Date.now();
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (status: CommandResult['status'], code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, code, stdout, stderr, ms: Date.now() - started });
    };
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
      windowsHide: true,
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e: NodeJS.ErrnoException) =>
      finish(e.code === 'ENOENT' || e.code === 'EACCES' ? 'not-found' : 'failed', null),
    );
    child.on('close', (code) => finish(code === 0 ? 'ok' : 'failed', code));
    // A process stuck in the driver may ignore even SIGKILL: resolve at the deadline regardless.
    const timer = setTimeout(() => {
      signalChild(child, 'SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
      finish('timeout', null);
    }, timeoutMs);
  });
}
