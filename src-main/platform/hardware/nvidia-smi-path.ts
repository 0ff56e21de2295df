/**
 * Where nvidia-smi is. On Windows the driver installs nvidia-smi.exe in System32 (DCH drivers)
 * or, with older drivers, in Program Files\NVIDIA Corporation\NVSMI, neither always on PATH.
 */
import { win32 } from 'node:path';
import { resolveCommand, type LookupDeps } from '../processes/command-lookup';

/** The places Windows drivers put nvidia-smi.exe, from the environment (SystemRoot, ProgramFiles). */
function windowsNvidiaSmiPlaces(env: NodeJS.ProcessEnv): string[] {
  const get = (name: string, dflt: string) =>
    Object.entries(env).find(([k]) => k.toUpperCase() === name.toUpperCase())?.[1] || dflt;
  return [
    win32.join(get('SystemRoot', 'C:\\Windows'), 'System32', 'nvidia-smi.exe'),
    win32.join(get('ProgramFiles', 'C:\\Program Files'), 'NVIDIA Corporation', 'NVSMI', 'nvidia-smi.exe'),
  ];
}

/** nvidia-smi to run: the one on PATH, else (Windows) where the driver installs it, else the bare name. */
export function findNvidiaSmi(deps: LookupDeps = {}): string {
  const platform = deps.platform ?? process.platform;
  const onPath = resolveCommand('nvidia-smi', deps);
  if (onPath.path || platform !== 'win32') return onPath.path ?? 'nvidia-smi';
  for (const place of windowsNvidiaSmiPlaces(deps.env ?? process.env))
    if (resolveCommand(place, deps).path) return place;
  return 'nvidia-smi';
}
