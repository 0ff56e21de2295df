/**
 * The public entry of the engine layer: the benchmark engine and its worker, the server supervisor, the simulated vLLM server.
 * The layers above import from here and nowhere else in this folder; files inside the layer import each
 * other directly. `npm run lint` holds both (scripts/check-layers.ts, docs/architecture.md).
 */
export type { WorkerMessage } from './bench';
export { measurementsToRun, nothingToRun, planRun, progressUnit, tooLongReason } from './bench/plan';
export { EtaTracker, ProgressPrinter } from './bench/progress';
export { loadForResume, startRun } from './bench/start-run';
export type { RunHandle } from './bench/start-run';
export type { BenchEvent, RunConfigInput, RunPlan, TokenTargeting } from './bench/types';
export type { WorkerLauncher } from './bench/worker-transport';
export { describeProcesses, flagsTooNew, knownEngineVersion, parseHumanInt } from './server';
export type { BuiltLaunch, LeftoverProcess, Platform } from './server';
export { flagValue, launchOptionsFromCommand } from './server/command-line';
export type { StartupFailure } from './server/failures';
export { LAUNCH_DEFAULTS, buildLaunch, toServerLaunch } from './server/launch';
export type { LaunchOptions } from './server/launch';
export { LaunchedRegistry, describeLaunched, userDataDir } from './server/launched-registry';
export type { LaunchedServer } from './server/launched-registry';
export { killGroupNow } from './server/orphans';
export { copiesAsPowerShell, localLaunchNote } from './server/platform-support';
export { freePort, isPortFree } from './server/port';
export { displayAsPowerShell } from './server/powershell';
export { normalizeBaseUrl, probeServer } from './server/probe';
export { Supervisor } from './server/supervisor';
export type { StopReport } from './server/supervisor';
export type { ServerTarget } from './server/target';
export { simHelp } from './sim/help';
export { BUILTIN_PROFILES, DEFAULT_PROFILE, loadProfile } from './sim/profile';
export { runServe } from './sim/serve';
