/**
 * The hardware a session records is the server's, never just the machine SpeedMatrix runs on:
 *   this machine   detected here
 *   simulated      the simulator's profile GPU, labelled simulated (its /version names it)
 *   remote         "not recorded", unless the person gives it (`speedmatrix hw --json` run on
 *                  that host, passed as a file)
 */
import { readFile } from 'node:fs/promises';
import { fail, ok, type Result } from '#shared/result';
import { HardwareSchema, type Gpu, type Hardware } from '#shared/session/schema';
import { DEFAULT_PROFILE, loadProfile } from '../../engine/sim/profile';
import type { ServerTarget } from '../../engine/server/target';
import { serverPlacement, type ServerPlacement } from './placement';

const GIB = 1024 ** 3;

export const REMOTE_NOT_RECORDED =
  'Not recorded: the server runs on another machine. Run `speedmatrix hw --json > hw.json` there and pass --hardware hw.json to record it.';

/** A simulated server's hardware: its profile's GPU, marked simulated; nothing of this machine. */
function simulatedHardware(gpu: { name: string; memoryGiB: number | null } | null): Hardware {
  const simGpu: Gpu = {
    index: 0,
    vendor: 'simulated',
    name: `${gpu?.name ?? 'Simulated GPU'} (simulated)`,
    uuid: null,
    vramBytes: gpu?.memoryGiB ? Math.round(gpu.memoryGiB * GIB) : null,
    driver: null,
    cuda: null,
    computeCapability: null,
    powerLimitWatts: null,
    busId: null,
  };
  return {
    gpuType: 'Simulated GPU',
    gpus: [simGpu],
    cpu: null,
    ramBytes: null,
    os: null,
    notes: ['Simulated server: the figures come from SpeedMatrix’s performance model, not from any machine.'],
  };
}

export function notRecordedHardware(): Hardware {
  return { gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [REMOTE_NOT_RECORDED] };
}

/** The simulated GPU, from the simulator's GET /version, else the profile in its launch command. */
async function simulatedGpu(
  target: Pick<ServerTarget, 'baseUrl' | 'launch'>,
): Promise<{ name: string; memoryGiB: number | null } | null> {
  try {
    const res = await fetch(`${target.baseUrl}/version`, { signal: AbortSignal.timeout(5000) });
    const v = (await res.json()) as { sim_gpu?: { name?: unknown; memory_gib?: unknown } };
    if (typeof v.sim_gpu?.name === 'string')
      return {
        name: v.sim_gpu.name,
        memoryGiB: typeof v.sim_gpu.memory_gib === 'number' ? v.sim_gpu.memory_gib : null,
      };
  } catch {
    // an older simulator: fall back to its launch command
  }
  const argv = target.launch.argv;
  const i = argv.findIndex((a) => a === '--sim-profile' || a.startsWith('--sim-profile='));
  const named = i < 0 ? undefined : argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  const profile = loadProfile(named || DEFAULT_PROFILE);
  return profile.ok ? { name: profile.data.gpu.name, memoryGiB: profile.data.gpu.memoryGiB } : null;
}

export interface ServerHardwareOptions {
  /** Given by the person (a remote server's `speedmatrix hw --json`): recorded as is (not for a simulator). */
  given?: Hardware;
  /** This machine's hardware, detected on demand. */
  detectLocal: () => Promise<Hardware | undefined>;
}

export async function hardwareOfServer(
  placement: ServerPlacement,
  target: Pick<ServerTarget, 'baseUrl' | 'launch'>,
  opts: ServerHardwareOptions,
): Promise<Hardware | undefined> {
  if (placement === 'simulated') return simulatedHardware(await simulatedGpu(target));
  if (opts.given) return opts.given;
  if (placement === 'remote') return notRecordedHardware();
  return opts.detectLocal();
}

/** The hardware a session of this server records, from where it runs (a load run's; a matrix run places once for more). */
export async function hardwareOfTarget(
  target: Pick<ServerTarget, 'simulated' | 'baseUrl' | 'launch'>,
  opts: ServerHardwareOptions,
): Promise<Hardware | undefined> {
  return hardwareOfServer(await serverPlacement(target), target, opts);
}

/** A hardware file: `speedmatrix hw --json` output (its `hardware` object), or a session's hardware block. */
export async function readHardwareFile(file: string): Promise<Result<Hardware>> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return fail(
      err.code
        ? `Cannot read the hardware file ${file}: ${err.message}`
        : `The hardware file ${file} is not JSON (${err.message}).`,
    );
  }
  const obj = raw && typeof raw === 'object' && 'hardware' in raw ? (raw as { hardware: unknown }).hardware : raw;
  const parsed = HardwareSchema.safeParse(obj);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(
      `The hardware file ${file} is not what \`speedmatrix hw --json\` writes: ${issue.path.join('.') || '(top level)'}: ${issue.message}.`,
    );
  }
  return ok(parsed.data);
}
