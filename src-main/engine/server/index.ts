/** Launching, supervising, probing and stopping inference servers. */
export { flagsTooNew, olderThan, versionOf, VERSIONED_FLAGS } from './flag-versions';
export type { VersionedFlag } from './flag-versions';
export { parseHumanInt, parseMaxModelLenArg } from './human-int';
export {
  buildLaunch,
  knownEngineVersion,
  connectHost,
  defaultHfCacheDir,
  dockerContainerName,
  dockerImageOf,
  LAUNCH_DEFAULTS,
  toServerLaunch,
  vllmFlags,
} from './launch';
export type { BuiltLaunch, LaunchEngineKind, LaunchOptions } from './launch';
export { shellLine, shellQuote, shellSplit } from '#shared/shell-quote';
export { flagValue, launchOptionsFromCommand } from './command-line';
export { Supervisor } from './supervisor';
export { describeProcesses, stopSummary } from './stop-summary';
export type { CrashInfo, StopReport, SupervisorConfig, SupervisorEvents, SupervisorState } from './supervisor-types';
export { advicePlatform, executableNotFound, portBusy, readyTimeout, recognizeStartupFailure } from './failures';
export type { AdvicePlatform, FailureKind, StartupFailure } from './failures';
export { applyLogLine, emptyLogFacts, logKvBudget, parseLog, parseLogLine, stripAnsi } from './log-parse';
export type { LogEvent, LogFacts, LogKvBudget, StatsLine } from './log-parse';
export {
  attachLaunch,
  contextParallelOf,
  executableVersion,
  explainNetworkError,
  normalizeBaseUrl,
  probeServer,
  wrongModel,
} from './probe';
export type { ProbeOptions } from './probe';
export {
  endLeftovers,
  findGroupProcesses,
  findLeftovers,
  gpuComputeApps,
  killGroupNow,
  listProcesses,
  processTree,
  ProcessTableUnavailable,
} from './orphans';
export { ProcessControl, processControl } from '../../platform/processes/process-control';
export type { Platform, ProcessTable } from '../../platform/processes/process-control';
export { batchFileMessage, resolveCommand } from '../../platform/processes/command-lookup';
export type { LeftoverCheck, LeftoverProcess, ProcInfo } from './orphans';
export { isPortFree } from './port';
export { hasKnownSeries, kvFromCacheConfigBlocks, kvFromCacheConfigTokens, parsePrometheus } from './metrics-parse';
export type { ContextParallel, MetricSample, MetricsKv } from './metrics-parse';
export {
  backendFromVersion,
  buildOf,
  commitFromVersion,
  quantizationLabel,
  readLocalModelConfig,
} from './engine-facts';
export type { EngineKind, ServerTarget } from './target';
