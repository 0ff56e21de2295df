/**
 * Process control per operating system: list processes, ask a process tree to stop, force it.
 * POSIX has process groups and signals; Windows has neither, so there a server's tree is its
 * descendants by parent id, `taskkill /T` asks it to close and `taskkill /T /F` ends it, and the
 * process table comes from PowerShell's Get-CimInstance Win32_Process. The platform is a
 * parameter so every branch can be tested on any machine with the exact commands it runs.
 */
import { spawnSync } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { runCommand, type CommandResult } from './external-command';

export type Platform = NodeJS.Platform;

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Process group id; null on Windows, which has no process groups. */
  pgid: number | null;
  /** One-letter state; Z = zombie (already dead, only waiting to be reaped). */
  state: string;
  command: string;
}

/** The process table, or why it could not be read (then nothing can be said about leftovers). */
export type ProcessTable = { ok: true; processes: ProcInfo[] } | { ok: false; why: string };

type RunFn = (command: string, args: readonly string[], opts: { timeoutMs?: number }) => Promise<CommandResult>;

interface ProcessControlDeps {
  platform?: Platform;
  /** Runs ps, taskkill and PowerShell (default: runCommand). */
  run?: RunFn;
  /** Sends POSIX signals (default: process.kill). */
  kill?: (pid: number, signal: NodeJS.Signals | 0) => void;
  /** Runs taskkill synchronously, for the process 'exit' hook where nothing asynchronous runs. */
  runSync?: (command: string, args: readonly string[]) => void;
  /** Reads /proc (default: the real one); null makes Linux use ps like other POSIX systems. */
  procDir?: string | null;
}

/** The exact commands each platform runs. */
const PS_ARGS = ['-A', '-o', 'pid=,ppid=,pgid=,stat=,args='] as const;
const POWERSHELL = 'powershell.exe';
const POWERSHELL_LIST_ARGS = [
  '-NoProfile',
  '-NonInteractive',
  '-Command',
  'Get-CimInstance Win32_Process | Select-Object ProcessId,ParentProcessId,CommandLine,Name | ConvertTo-Json -Compress',
] as const;
const taskkillArgs = (pid: number, force: boolean): string[] => ['/PID', String(pid), '/T', ...(force ? ['/F'] : [])];

/** Parse /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses. */
export function parseProcStat(
  text: string,
): (Omit<ProcInfo, 'command' | 'pgid'> & { pgid: number; comm: string }) | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(' ');
  const pid = Number(text.slice(0, open).trim());
  if (!Number.isInteger(pid) || rest.length < 3) return null;
  return { pid, comm: text.slice(open + 1, close), state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]) };
}

/** Parse `ps -A -o pid=,ppid=,pgid=,stat=,args=` (macOS and other systems without /proc). */
export function parsePsOutput(text: string): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m) out.push({ pid: +m[1], ppid: +m[2], pgid: +m[3], state: m[4][0], command: m[5] });
  }
  return out;
}

/** Parse PowerShell's `ConvertTo-Json` of Win32_Process rows (one object when only one process matched). */
export function parseWin32Processes(text: string): ProcInfo[] | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  const rows = Array.isArray(doc) ? doc : [doc];
  const out: ProcInfo[] = [];
  for (const r of rows as Array<Record<string, unknown>>) {
    if (typeof r?.ProcessId !== 'number') continue;
    const command = typeof r.CommandLine === 'string' && r.CommandLine ? r.CommandLine : `[${String(r.Name ?? '?')}]`;
    out.push({
      pid: r.ProcessId,
      ppid: typeof r.ParentProcessId === 'number' ? r.ParentProcessId : 0,
      pgid: null,
      state: 'R',
      command,
    });
  }
  return out;
}

const describeRun = (what: string, r: CommandResult): string =>
  r.status === 'not-found'
    ? `${what} is not available`
    : r.status === 'timeout'
      ? `${what} did not answer in time`
      : `${what} failed (exit ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n')[0].slice(0, 160)}` : ''})`;

export class ProcessControl {
  readonly platform: Platform;
  private readonly run: RunFn;
  private readonly kill: (pid: number, signal: NodeJS.Signals | 0) => void;
  private readonly runSync: (command: string, args: readonly string[]) => void;
  private readonly procDir: string | null;

  constructor(deps: ProcessControlDeps = {}) {
    this.platform = deps.platform ?? process.platform;
    this.run = deps.run ?? runCommand;
    this.kill = deps.kill ?? ((pid, signal) => process.kill(pid, signal));
    this.runSync =
      deps.runSync ??
      ((command, args) => void spawnSync(command, args, { stdio: 'ignore', windowsHide: true, timeout: 5000 }));
    this.procDir = deps.procDir === undefined ? (this.platform === 'linux' ? '/proc' : null) : deps.procDir;
  }

  get isWindows(): boolean {
    return this.platform === 'win32';
  }

  /**
   * How a server is spawned: on POSIX in its own process group (so the whole group can be
   * signalled); on Windows not detached (that would give it a console of its own). Never a
   * console window either way.
   */
  spawnOptions(): { detached: boolean; windowsHide: true } {
    return { detached: !this.isWindows, windowsHide: true };
  }

  /** Every process on the machine, or why the table could not be read. */
  async list(): Promise<ProcessTable> {
    if (this.isWindows) {
      const r = await this.run(POWERSHELL, POWERSHELL_LIST_ARGS, { timeoutMs: 15_000 });
      if (r.status !== 'ok') return { ok: false, why: describeRun('PowerShell (Get-CimInstance Win32_Process)', r) };
      const ps = parseWin32Processes(r.stdout);
      return ps
        ? { ok: true, processes: ps }
        : { ok: false, why: 'PowerShell (Get-CimInstance Win32_Process) gave no process list' };
    }
    if (this.procDir) {
      const fromProc = await this.listProc(this.procDir);
      if (fromProc) return { ok: true, processes: fromProc };
    }
    const r = await this.run('ps', PS_ARGS, { timeoutMs: 5000 });
    return r.status === 'ok'
      ? { ok: true, processes: parsePsOutput(r.stdout) }
      : { ok: false, why: describeRun('ps', r) };
  }

  private async listProc(dir: string): Promise<ProcInfo[] | null> {
    let entries: string[];
    try {
      entries = (await readdir(dir)).filter((e) => /^\d+$/.test(e));
    } catch {
      return null;
    }
    const out: ProcInfo[] = [];
    await Promise.all(
      entries.map(async (e) => {
        try {
          const stat = parseProcStat(await readFile(`${dir}/${e}/stat`, 'utf8'));
          if (!stat) return;
          const cmdline = await readFile(`${dir}/${e}/cmdline`, 'utf8').catch(() => '');
          const command = cmdline.split('\0').filter(Boolean).join(' ') || `[${stat.comm}]`;
          out.push({ pid: stat.pid, ppid: stat.ppid, pgid: stat.pgid, state: stat.state, command });
        } catch {
          // The process ended while we looked.
        }
      }),
    );
    return out;
  }

  /**
   * The members of a server's "group" in `all`: its process group on POSIX; on Windows the
   * leader and its descendants by parent id (Windows does not re-parent orphans, so they still
   * name the dead leader).
   */
  groupMembers(all: readonly ProcInfo[], leader: number): ProcInfo[] {
    if (!this.isWindows) return all.filter((p) => p.pgid === leader);
    return descendants(all, leader, true);
  }

  /** Ask the leader to stop: SIGTERM (POSIX) or `taskkill /PID N /T` (Windows). False when it could not be asked. */
  async askToStop(pid: number): Promise<boolean> {
    if (this.isWindows)
      return (await this.run('taskkill', taskkillArgs(pid, false), { timeoutMs: 10_000 })).status === 'ok';
    return this.signal(pid, 'SIGTERM');
  }

  /** Force the whole group (POSIX) or tree (Windows) to end. False when it was already gone. */
  async killGroup(leader: number): Promise<boolean> {
    if (this.isWindows)
      return (await this.run('taskkill', taskkillArgs(leader, true), { timeoutMs: 10_000 })).status === 'ok';
    return this.signal(-leader, 'SIGKILL');
  }

  /** Force one process (and, on Windows, its children) to end. */
  async killProcess(pid: number): Promise<void> {
    if (this.isWindows) await this.run('taskkill', taskkillArgs(pid, true), { timeoutMs: 10_000 });
    else this.signal(pid, 'SIGKILL');
  }

  /** The same as killGroup, synchronously: for process 'exit' hooks and a second Ctrl-C. */
  killGroupSync(leader: number): void {
    if (this.isWindows) this.runSync('taskkill', taskkillArgs(leader, true));
    else this.signal(-leader, 'SIGKILL');
  }

  private signal(target: number, signal: NodeJS.Signals): boolean {
    try {
      // A pid or group from the process table, never a child object (signal-child.ts).
      // eslint-disable-next-line no-restricted-syntax
      this.kill(target, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** `root` (when alive and `withRoot`) and every process below it by parent link. */
export function descendants(all: readonly ProcInfo[], root: number, withRoot: boolean): ProcInfo[] {
  const inTree = new Set<number>([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => inTree.has(p.pid) && (withRoot || p.pid !== root));
}

let shared: ProcessControl | null = null;

/** This machine's process control. */
export function processControl(): ProcessControl {
  shared ??= new ProcessControl();
  return shared;
}
