/** Linux /proc readings of another process (the simulator, the benchmark worker), and a busy core. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** utime + stime of a process, seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident set size now and at its peak (VmHWM), bytes. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

export const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** A child process that spins one core until stopped ("the machine's other core busy"). */
export function busyCore(): { stop(): void } {
  const child: ChildProcess = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return {
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
