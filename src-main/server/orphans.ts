/**
 * Finding and ending what a server left behind. Killing vLLM's API server alone leaves its
 * engine processes alive and holding GPU memory, so after every stop (and after the leader
 * dies on its own) SpeedMatrix looks for survivors of the server's process group, on the GPU
 * (nvidia-smi --query-compute-apps) and in the process table, and reports them.
 */
import { readFile, readdir } from 'node:fs/promises';
import { parseComputeApps } from '../hardware/nvidia-smi-parse';
import { runCommand } from '../hardware/run-command';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state; Z = zombie (already dead, only waiting to be reaped). */
  state: string;
  command: string;
}

export interface LeftoverProcess {
  pid: number;
  command: string;
  /** GPU memory it holds, when nvidia-smi lists it. */
  gpuMemoryBytes: number | null;
  /** Where it was seen. */
  seenIn: 'nvidia-smi' | 'process-table';
}

/** Parse /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses. */
export function parseProcStat(text: string): Omit<ProcInfo, 'command'> & { comm: string } | null {
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

/** Every process on the machine (best effort). */
export async function listProcesses(): Promise<ProcInfo[]> {
  let entries: string[];
  try {
    entries = (await readdir('/proc')).filter((e) => /^\d+$/.test(e));
  } catch {
    const ps = await runCommand('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat=,args='], { timeoutMs: 5000 });
    return ps.status === 'ok' ? parsePsOutput(ps.stdout) : [];
  }
  const out: ProcInfo[] = [];
  await Promise.all(
    entries.map(async (e) => {
      try {
        const stat = parseProcStat(await readFile(`/proc/${e}/stat`, 'utf8'));
        if (!stat) return;
        const cmdline = await readFile(`/proc/${e}/cmdline`, 'utf8').catch(() => '');
        const command = cmdline.split('\0').filter(Boolean).join(' ') || `[${stat.comm}]`;
        out.push({ pid: stat.pid, ppid: stat.ppid, pgid: stat.pgid, state: stat.state, command });
      } catch {
        // The process ended while we looked.
      }
    }),
  );
  return out;
}

/** Living (non-zombie) members of a process group, plus any of `alsoPids` still alive. */
export async function findGroupProcesses(pgid: number, alsoPids: Iterable<number> = []): Promise<ProcInfo[]> {
  const extra = new Set(alsoPids);
  return (await listProcesses()).filter((p) => p.state !== 'Z' && (p.pgid === pgid || extra.has(p.pid)) && p.pid !== process.pid);
}

/** The process group plus every descendant by parent link (catches children that moved to their own group). */
export async function processTree(rootPid: number): Promise<ProcInfo[]> {
  const all = await listProcesses();
  const inTree = new Set<number>([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (!inTree.has(p.pid) && (inTree.has(p.ppid) || p.pgid === rootPid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => inTree.has(p.pid) && p.state !== 'Z');
}

/** GPU compute processes, or null when nvidia-smi is not there or does not answer. */
export async function gpuComputeApps(nvidiaSmi = 'nvidia-smi', timeoutMs = 5000) {
  const r = await runCommand(nvidiaSmi, ['--query-compute-apps=pid,process_name,used_memory', '--format=csv,noheader,nounits'], { timeoutMs });
  return r.status === 'ok' ? parseComputeApps(r.stdout) : null;
}

/**
 * What survives of a server: members of its process group and any pid recorded earlier, with
 * the GPU memory each holds where nvidia-smi can tell.
 */
export async function findLeftovers(pgid: number, knownPids: Iterable<number> = [], nvidiaSmi?: string): Promise<LeftoverProcess[]> {
  const [procs, gpu] = await Promise.all([findGroupProcesses(pgid, knownPids), gpuComputeApps(nvidiaSmi)]);
  const gpuByPid = new Map((gpu ?? []).map((a) => [a.pid, a]));
  return procs.map((p) => {
    const g = gpuByPid.get(p.pid);
    return g
      ? { pid: p.pid, command: p.command, gpuMemoryBytes: g.usedMemoryBytes, seenIn: 'nvidia-smi' as const }
      : { pid: p.pid, command: p.command, gpuMemoryBytes: null, seenIn: 'process-table' as const };
  });
}

/** Send a signal to a whole process group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * SIGKILL the group and the listed survivors, then wait (up to `waitMs`) until the group and
 * `alsoPids` are gone. Returns what is still alive (checked against the GPU list too).
 */
export async function endLeftovers(
  pgid: number,
  leftovers: readonly LeftoverProcess[],
  waitMs = 3000,
  nvidiaSmi?: string,
  alsoPids: readonly number[] = [],
): Promise<LeftoverProcess[]> {
  signalGroup(pgid, 'SIGKILL');
  for (const l of leftovers) signalPid(l.pid, 'SIGKILL');
  // A killed process can take a moment to go on a busy machine: wait on the cheap process table.
  const watch = [...leftovers.map((l) => l.pid), ...alsoPids];
  const deadline = Date.now() + waitMs;
  while ((await findGroupProcesses(pgid, watch)).length > 0 && Date.now() < deadline) await sleep(50);
  return findLeftovers(pgid, watch, nvidiaSmi);
}
