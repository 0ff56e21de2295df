/**
 * What a local launch can do on this operating system. vLLM needs Linux and an NVIDIA (or AMD)
 * GPU: it does not run natively on Windows and on macOS only as a CPU build, and Docker there has
 * no NVIDIA GPU access (Windows: only Docker Desktop with WSL 2). Reading results, exporting,
 * comparing, importing and benchmarking a server by URL work everywhere.
 */
import type { Platform } from '../../platform/processes/process-control';

type LaunchKind = 'simulator' | 'vllm-native' | 'vllm-docker' | 'custom' | 'attach';

const ATTACH =
  'Run vLLM on a Linux GPU machine and benchmark it from here with "Attach to URL" (in the CLI: speedmatrix run --url).';

/** A note to show before anything is launched, or null when this kind of launch works here. */
export function localLaunchNote(kind: LaunchKind, platform: Platform = process.platform): string | null {
  if (platform === 'win32') {
    if (kind === 'vllm-native')
      return `vLLM does not run natively on Windows, so it cannot be launched here (only inside WSL 2). ${ATTACH}`;
    if (kind === 'vllm-docker')
      return `vLLM's Docker image needs NVIDIA GPUs under Linux: on Windows only Docker Desktop with the WSL 2 backend and GPU support can run it. ${ATTACH}`;
  }
  if (platform === 'darwin') {
    if (kind === 'vllm-native')
      return `vLLM has no GPU support on macOS (only a CPU build), so a launch here does not measure GPU speed. ${ATTACH}`;
    if (kind === 'vllm-docker')
      return `Docker on macOS has no access to NVIDIA GPUs, so vLLM's image cannot run here. ${ATTACH}`;
  }
  return null;
}

/** Whether the launch command is offered for copying as PowerShell (Windows) rather than for a POSIX shell. */
export const copiesAsPowerShell = (platform: Platform = process.platform): boolean => platform === 'win32';
