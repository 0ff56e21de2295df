/**
 * Finding and ending what a server left behind. Killing vLLM's API server alone leaves its
 * engine processes alive and holding GPU memory, so after every stop (and after the leader
 * dies on its own) SpeedMatrix looks for survivors of the server's process group (on Windows:
 * its process tree), on the GPU (nvidia-smi --query-compute-apps) and in the process table, and
 * reports them. Where the process table cannot be read, it says so instead of reporting none.
 */
import { findNvidiaSmi } from '../../platform/hardware/nvidia-smi-path';
import { parseComputeApps } from '../../platform/hardware/nvidia-smi-parse';
import { runCommand } from '../../platform/processes/external-command';
import { dockerContainerOf } from './command-line';
import {
  descendants,
  processControl,
  type ProcessControl,
  type ProcInfo,
} from '../../platform/processes/process-control';

export { parseProcStat, parsePsOutput, type ProcInfo } from '../../platform/processes/process-control';

export interface LeftoverProcess {
  pid: number;
  command: string;
  /** GPU memory it holds, when nvidia-smi lists it. */
  gpuMemoryBytes: number | null;
  /** Where it was seen. */
  seenIn: 'nvidia-smi' | 'process-table';
}

/** What a look for leftovers found; `unchecked` says why it could not look (then `found` means nothing). */
export interface LeftoverCheck {
  found: LeftoverProcess[];
  unchecked: string | null;
}

interface LeftoverOptions {
  /** nvidia-smi to ask for GPU processes (default on PATH). */
  nvidiaSmi?: string;
  control?: ProcessControl;
}

/** The process table could not be read: a check that found nothing would be a false "all clear". */
export class ProcessTableUnavailable extends Error {}

/** Every process on the machine; throws ProcessTableUnavailable when the table cannot be read. */
export async function listProcesses(control: ProcessControl = processControl()): Promise<ProcInfo[]> {
  const t = await control.list();
  if (!t.ok) throw new ProcessTableUnavailable(t.why);
  return t.processes;
}

function groupOf(
  all: readonly ProcInfo[],
  pgid: number,
  alsoPids: Iterable<number>,
  control: ProcessControl,
): ProcInfo[] {
  const members = new Set(control.groupMembers(all, pgid).map((p) => p.pid));
  for (const p of alsoPids) members.add(p);
  return all.filter((p) => p.state !== 'Z' && members.has(p.pid) && p.pid !== process.pid);
}

/** Living (non-zombie) members of a server's group, plus any of `alsoPids` still alive. Throws when it cannot look. */
export async function findGroupProcesses(
  pgid: number,
  alsoPids: Iterable<number> = [],
  control: ProcessControl = processControl(),
): Promise<ProcInfo[]> {
  return groupOf(await listProcesses(control), pgid, alsoPids, control);
}

/** The group plus every descendant by parent link (catches children that moved to their own group). Throws when it cannot look. */
export async function processTree(rootPid: number, control: ProcessControl = processControl()): Promise<ProcInfo[]> {
  const all = await listProcesses(control);
  const group = new Set(control.groupMembers(all, rootPid).map((p) => p.pid));
  const tree = new Set(descendants(all, rootPid, true).map((p) => p.pid));
  // Children of group members that started their own group belong too.
  for (const g of group) for (const d of descendants(all, g, true)) tree.add(d.pid);
  return all.filter((p) => (tree.has(p.pid) || group.has(p.pid)) && p.state !== 'Z');
}

/** GPU compute processes, or null when nvidia-smi is not there or does not answer. */
export async function gpuComputeApps(nvidiaSmi = findNvidiaSmi(), timeoutMs = 5000) {
  const r = await runCommand(
    nvidiaSmi,
    ['--query-compute-apps=pid,process_name,used_memory', '--format=csv,noheader,nounits'],
    { timeoutMs },
  );
  return r.status === 'ok' ? parseComputeApps(r.stdout) : null;
}

/**
 * What survives of a server: members of its group and any pid recorded earlier, with the GPU
 * memory each holds where nvidia-smi can tell. Never throws.
 */
export async function findLeftovers(
  pgid: number,
  knownPids: Iterable<number> = [],
  opts: LeftoverOptions = {},
): Promise<LeftoverCheck> {
  const control = opts.control ?? processControl();
  const [table, gpu] = await Promise.all([control.list(), gpuComputeApps(opts.nvidiaSmi)]);
  if (!table.ok) return { found: [], unchecked: table.why };
  const gpuByPid = new Map((gpu ?? []).map((a) => [a.pid, a]));
  const found = groupOf(table.processes, pgid, knownPids, control).map((p) => {
    const g = gpuByPid.get(p.pid);
    return g
      ? { pid: p.pid, command: p.command, gpuMemoryBytes: g.usedMemoryBytes, seenIn: 'nvidia-smi' as const }
      : { pid: p.pid, command: p.command, gpuMemoryBytes: null, seenIn: 'process-table' as const };
  });
  return { found, unchecked: null };
}

/** Force a whole group (POSIX) or process tree (Windows) to end, synchronously; for exit hooks and a second Ctrl-C. */
export function killGroupNow(pgid: number, control: ProcessControl = processControl()): void {
  control.killGroupSync(pgid);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Force the group and the listed survivors to end, then wait (up to `waitMs`) until the group
 * and `alsoPids` are gone. Returns what is still alive (checked against the GPU list too).
 */
export async function endLeftovers(
  pgid: number,
  leftovers: readonly LeftoverProcess[],
  waitMs = 3000,
  opts: LeftoverOptions = {},
  alsoPids: readonly number[] = [],
): Promise<LeftoverCheck> {
  const control = opts.control ?? processControl();
  await control.killGroup(pgid);
  for (const l of leftovers) await control.killProcess(l.pid);
  // A killed process can take a moment to go on a busy machine: wait on the cheap process table.
  const watch = [...leftovers.map((l) => l.pid), ...alsoPids];
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const t = await control.list();
    if (!t.ok || groupOf(t.processes, pgid, watch, control).length === 0) break;
    await sleep(control.isWindows ? 250 : 50);
  }
  return findLeftovers(pgid, watch, opts);
}

/**
 * A killed `docker run` client leaves its container running: remove it by the name its command
 * gave (command-line.ts); what was removed, as a leftover, or null.
 */
export async function removeLeftContainer(argv: readonly string[]): Promise<LeftoverProcess | null> {
  const container = dockerContainerOf(argv);
  if (!container) return null;
  const rm = await runCommand('docker', ['rm', '-f', container], { timeoutMs: 20_000 });
  if (rm.status !== 'ok' || !rm.stdout.trim()) return null;
  return { pid: 0, command: `docker container ${rm.stdout.trim()}`, gpuMemoryBytes: null, seenIn: 'process-table' };
}
