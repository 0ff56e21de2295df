/**
 * The public entry of the platform layer: OS processes, runtime paths, hardware detection and telemetry, session files.
 * The layers above import from here and nowhere else in this folder; files inside the layer import each
 * other directly. `npm run lint` holds both (scripts/check-layers.ts, docs/architecture.md).
 */
export type { GpuSample } from './hardware';
export { detectHardware } from './hardware/detect';
export { formatHardware } from './hardware/format-hw';
export { parseComputeApps } from './hardware/nvidia-smi-parse';
export { findNvidiaSmi } from './hardware/nvidia-smi-path';
export { GpuTelemetry, appendTelemetrySeries, summarizeCellTelemetry, toTelemetrySeries } from './hardware/telemetry';
export { batchFileMessage, resolveCommand } from './processes/command-lookup';
export { runCommand } from './processes/external-command';
export { adoptLoginShellPath } from './processes/login-shell-path';
export { ProcessControl, descendants, parseProcStat, parsePsOutput, processControl } from './processes/process-control';
export type { Platform, ProcInfo, ProcessTable } from './processes/process-control';
export { APP_NAME, APP_VERSION } from './runtime/app-version';
export { nodeProgram, projectRoot } from './runtime/node-entry';
export { removeTempDir } from './runtime/temp';
export { decodeText, hasExtension, readTextFileSync, stripBom } from './runtime/text';
export { createSession, newRunTag } from './session/create';
export { Journal, journalPathFor, recoverFromJournal } from './session/journal';
export { MAX_SESSION_BYTES, parseSessionText, readSessionFile } from './session/read';
export { countByStatus, summarizeSession } from './session/summary';
export { describeWriteError, writeFileAtomic, writeSessionFile } from './session/write';
