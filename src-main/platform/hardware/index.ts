/** Hardware detection (GPUs, CPU, RAM, OS) and GPU telemetry during runs. */
export { appleGpusFromSi, detectHardware, detectNvidia, parseLspciDisplays, systemFromSi } from './detect';
export type { DetectOptions, DetectResult } from './detect';
export { formatHardware, hardwareRows, shortGpuName } from './format-hw';
export { GpuTelemetry, summarizeCellTelemetry, toTelemetrySeries } from './telemetry';
export type { GpuSample, TelemetryEvents, TelemetryOptions } from './telemetry';
export {
  decodeThrottleReasons,
  parseComputeApps,
  parseComputeCaps,
  parseCudaVersion,
  parseGpuIdentity,
  parseTelemetryLine,
  TELEMETRY_FIELDS,
} from './nvidia-smi-parse';
export { parseAmdSmiStatic } from './amd-smi-parse';
export { runCommand } from '../processes/external-command';
export type { CommandResult } from '../processes/external-command';
