/**
 * What machine is being measured: GPUs from the vendor tools themselves (systeminformation
 * misses the driver, memory.total and every zero value on NVIDIA), CPU, RAM and OS from
 * systeminformation. Every external command is asynchronous and has a deadline, because a
 * wedged driver can hang nvidia-smi.
 */
import si from 'systeminformation';
import type { Gpu, Hardware } from '#shared/session/schema';
import { parseAmdSmiStatic } from './amd-smi-parse';
import {
  parseComputeCaps,
  parseCudaVersion,
  parseDriverVersion,
  parseGpuIdentity,
  GPU_IDENTITY_FIELDS,
} from './nvidia-smi-parse';
import { processControl, type Platform, type ProcessControl } from '../processes/process-control';
import { findNvidiaSmi } from './nvidia-smi-path';
import { runCommand, type CommandResult } from '../processes/external-command';

export interface DetectOptions {
  /** nvidia-smi to run (default: on PATH). */
  nvidiaSmi?: string;
  /** amd-smi to run (default: on PATH). */
  amdSmi?: string;
  /** Deadline for each external command (default 10 s). */
  timeoutMs?: number;
  /** The operating system to detect for (default this one): lspci is Linux only. */
  platform?: Platform;
  /** Ends what systeminformation left running at a deadline (default: this machine's). */
  control?: ProcessControl;
}

export interface DetectResult {
  hardware: Hardware;
  /** What each source said, for diagnostics ("nvidia-smi: 1 GPU", "lspci: not installed"). */
  seen: string[];
  /** "No supported GPU found ..." with what was seen instead; null when a GPU was found. */
  noGpuMessage: string | null;
}

const describe = (what: string, r: CommandResult, timeoutMs: number): string =>
  r.status === 'not-found'
    ? `${what}: not installed`
    : r.status === 'timeout'
      ? `${what}: no answer within ${timeoutMs / 1000} s (driver hung?)`
      : `${what}: exit ${r.code}${r.stderr.trim() || r.stdout.trim() ? ` (${(r.stderr.trim() || r.stdout.trim()).split('\n')[0].slice(0, 160)})` : ''}`;

/** NVIDIA GPUs via nvidia-smi: identity query, compute_cap on its own (old drivers reject it), CUDA from the header or -q. */
export async function detectNvidia(nvidiaSmi: string, timeoutMs: number, seen: string[]): Promise<Gpu[]> {
  const id = await runCommand(
    nvidiaSmi,
    [`--query-gpu=${GPU_IDENTITY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'],
    { timeoutMs },
  );
  if (id.status !== 'ok') {
    seen.push(describe('nvidia-smi', id, timeoutMs));
    return [];
  }
  const gpus = parseGpuIdentity(id.stdout);
  seen.push(`nvidia-smi: ${gpus.length} GPU(s)`);
  if (gpus.length === 0) return [];
  const [caps, header] = await Promise.all([
    runCommand(nvidiaSmi, ['--query-gpu=index,compute_cap', '--format=csv,noheader'], { timeoutMs }),
    runCommand(nvidiaSmi, [], { timeoutMs }),
  ]);
  const capByIndex = caps.status === 'ok' ? parseComputeCaps(caps.stdout) : new Map<number, string>();
  if (caps.status !== 'ok')
    seen.push(`${describe('nvidia-smi compute_cap', caps, timeoutMs)}; compute capability unknown (driver too old?)`);
  let cuda = header.status === 'ok' ? parseCudaVersion(header.stdout) : null;
  let headerDriver = header.status === 'ok' ? parseDriverVersion(header.stdout) : null;
  if (cuda === null) {
    const q = await runCommand(nvidiaSmi, ['-q'], { timeoutMs });
    if (q.status === 'ok') {
      cuda = parseCudaVersion(q.stdout);
      headerDriver ??= parseDriverVersion(q.stdout);
    }
    if (cuda === null) seen.push('nvidia-smi: no CUDA version in the header or -q');
  }
  return gpus.map((g) => ({
    index: g.index,
    vendor: 'nvidia' as const,
    name: g.name,
    uuid: g.uuid,
    vramBytes: g.memoryTotalBytes,
    driver: g.driver ?? headerDriver,
    cuda,
    computeCapability: capByIndex.get(g.index) ?? null,
    powerLimitWatts: g.powerLimitWatts,
    busId: g.busId,
  }));
}

async function detectAmd(amdSmi: string, timeoutMs: number, seen: string[]): Promise<Gpu[]> {
  const r = await runCommand(amdSmi, ['static', '--json'], { timeoutMs });
  if (r.status !== 'ok') {
    seen.push(describe('amd-smi', r, timeoutMs));
    return [];
  }
  const gpus = parseAmdSmiStatic(r.stdout);
  seen.push(`amd-smi: ${gpus.length} GPU(s)`);
  return gpus.map((g) => ({
    index: g.index,
    vendor: 'amd' as const,
    name: g.name,
    uuid: g.uuid,
    vramBytes: g.vramBytes,
    driver: g.driver,
    cuda: null,
    computeCapability: g.target,
    powerLimitWatts: g.powerLimitWatts,
    busId: g.busId,
  }));
}

/** PowerShell processes this process started (systeminformation's WMI queries on Windows). */
const OWN_POWERSHELL = /(^|[\\/"\s])(powershell|pwsh)(\.exe)?("|\s|$)/i;

/**
 * A systeminformation call that gives up after ms. Its tools may hang (nvidia-smi, WMI), and on
 * Windows it runs PowerShell with no deadline of its own: at ours, the PowerShell processes this
 * process started are ended (taskkill /T /F) so none is left behind.
 */
export async function withDeadline<T>(
  p: Promise<T>,
  ms: number,
  control: ProcessControl = processControl(),
): Promise<T | null> {
  let timedOut = false;
  const v = await Promise.race([
    p.catch(() => null),
    new Promise<null>((r) =>
      setTimeout(() => {
        timedOut = true;
        r(null);
      }, ms).unref(),
    ),
  ]);
  if (timedOut && control.isWindows) await endOwnPowerShell(control);
  return v;
}

/** End the PowerShell processes that are children of this process; returns their pids. */
export async function endOwnPowerShell(control: ProcessControl): Promise<number[]> {
  const t = await control.list();
  if (!t.ok) return [];
  const mine = t.processes.filter((p) => p.ppid === process.pid && OWN_POWERSHELL.test(p.command));
  for (const p of mine) await control.killProcess(p.pid);
  return mine.map((p) => p.pid);
}

/** Display adapters lspci lists (VGA, 3D, Display controllers). */
export function parseLspciDisplays(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => /(VGA compatible|3D|Display) controller/i.test(l))
    .map((l) => l.replace(/^\S+\s+/, '').trim());
}

/** Apple silicon GPUs from systeminformation's graphics controllers (pure). Unified memory: VRAM is the system RAM. */
export function appleGpusFromSi(
  controllers: ReadonlyArray<{ vendor?: string; model?: string }>,
  ramBytes: number | null,
): Gpu[] {
  return controllers
    .filter((c) => /apple/i.test(`${c.vendor ?? ''} ${c.model ?? ''}`))
    .map((c, i) => ({
      index: i,
      vendor: 'apple' as const,
      name: c.model || 'Apple GPU',
      uuid: null,
      vramBytes: ramBytes,
      driver: null,
      cuda: null,
      computeCapability: null,
      powerLimitWatts: null,
      busId: null,
    }));
}

type SiCpu = Pick<si.Systeminformation.CpuData, 'manufacturer' | 'brand' | 'cores' | 'physicalCores'>;
type SiOs = Pick<si.Systeminformation.OsData, 'platform' | 'distro' | 'release' | 'kernel' | 'arch'>;

/** CPU, RAM and OS as the session records them, from systeminformation's answers (pure). */
export function systemFromSi(
  cpu: SiCpu | null,
  mem: { total: number } | null,
  os: SiOs | null,
): Pick<Hardware, 'cpu' | 'ramBytes' | 'os'> {
  return {
    cpu: cpu
      ? {
          model: [cpu.manufacturer, cpu.brand].filter(Boolean).join(' ') || 'unknown CPU',
          cores: cpu.physicalCores || null,
          threads: cpu.cores || null,
        }
      : null,
    ramBytes: mem?.total ?? null,
    os: os
      ? {
          platform: os.platform,
          distro: os.distro || null,
          release: os.release || null,
          kernel: os.kernel || null,
          arch: os.arch || null,
        }
      : null,
  };
}

/** Detect GPUs, CPU, RAM and OS. Never throws; what could not be found is said in `seen`/`notes`. */
export async function detectHardware(opts: DetectOptions = {}): Promise<DetectResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const platform = opts.platform ?? process.platform;
  const control = opts.control ?? processControl();
  const withTimeout = <T>(p: Promise<T>, ms: number) => withDeadline(p, ms, control);
  const seen: string[] = [];
  const [nvidia, amd, cpu, mem, os] = await Promise.all([
    detectNvidia(opts.nvidiaSmi ?? findNvidiaSmi({ platform }), timeoutMs, seen),
    detectAmd(opts.amdSmi ?? 'amd-smi', timeoutMs, seen),
    withTimeout(si.cpu(), timeoutMs),
    withTimeout(si.mem(), timeoutMs),
    withTimeout(si.osInfo(), timeoutMs),
  ]);
  let gpus: Gpu[] = [
    ...nvidia,
    ...amd.map((g, i) => ({ ...g, index: nvidia.length > 0 ? nvidia.length + i : g.index })),
  ];
  let gpuType: string | null = gpus.length > 0 ? 'Discrete GPU' : null;
  const notes: string[] = [];
  let noGpuMessage: string | null = null;

  if (gpus.length === 0) {
    // Apple GPUs (and "what else is there") come from systeminformation and lspci.
    // systeminformation's graphics() runs nvidia-smi synchronously with no deadline: a hung
    // nvidia-smi would freeze this process, so it is only asked when nvidia-smi is absent.
    const smiPresent = !seen.some((l) => l === 'nvidia-smi: not installed');
    const graphicsCall =
      smiPresent && platform !== 'darwin' ? Promise.resolve(null) : withTimeout(si.graphics(), timeoutMs);
    // lspci is a Linux tool: elsewhere it is neither run nor mentioned.
    const hasLspci = platform !== 'win32' && platform !== 'darwin';
    const [graphics, lspci] = await Promise.all([
      graphicsCall,
      hasLspci ? runCommand('lspci', [], { timeoutMs }) : Promise.resolve(null),
    ]);
    const controllers = graphics?.controllers ?? [];
    const apple = appleGpusFromSi(controllers, mem?.total ?? null);
    if (apple.length > 0) {
      gpuType = 'Integrated GPU';
      gpus = apple;
      seen.push(`systeminformation: ${apple.length} Apple GPU(s)`);
    } else {
      const siSaw = controllers.map((c) => [c.vendor, c.model].filter(Boolean).join(' ')).filter(Boolean);
      const lspciSaw = lspci?.status === 'ok' ? parseLspciDisplays(lspci.stdout) : null;
      seen.push(
        graphics
          ? `systeminformation graphics: ${siSaw.length > 0 ? siSaw.join('; ') : 'no display controllers'}`
          : 'systeminformation graphics: not asked (nvidia-smi misbehaves) or no answer',
      );
      if (lspci)
        seen.push(
          lspciSaw
            ? `lspci: ${lspciSaw.length > 0 ? lspciSaw.join('; ') : 'no display controllers'}`
            : describe('lspci', lspci, timeoutMs),
        );
      const saw = [
        graphics
          ? `systeminformation saw ${siSaw.length > 0 ? siSaw.join('; ') : 'no display controller'}`
          : `${seen.find((l) => l.startsWith('nvidia-smi')) ?? 'nvidia-smi failed'}`,
        ...(lspci
          ? [
              lspciSaw
                ? `lspci saw ${lspciSaw.length > 0 ? lspciSaw.join('; ') : 'no display controller'}`
                : lspci.status === 'not-found'
                  ? 'lspci is not installed'
                  : 'lspci gave no answer',
            ]
          : []),
      ];
      noGpuMessage = `No supported GPU found (no NVIDIA GPU via nvidia-smi, no AMD GPU via amd-smi, no Apple GPU); ${saw.join('; ')}.`;
      notes.push(noGpuMessage);
    }
  }
  for (const s of seen) if (/compute capability unknown|no CUDA version|no answer within/.test(s)) notes.push(s);

  const hardware: Hardware = { gpuType, gpus, ...systemFromSi(cpu, mem, os), notes };
  if (!cpu || !mem || !os) seen.push('systeminformation: some of cpu/mem/os did not answer in time');
  return { hardware, seen, noGpuMessage };
}
