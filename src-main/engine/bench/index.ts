/**
 * SpeedMatrix's benchmark engine: the public API for the app and the CLI.
 *
 * - `planRun(config, target)`: the plan of a run (cells, statuses known in advance, order,
 *   ETA), pure, for the UI to show before the user presses Start.
 * - `startRun({target, config, sessionFile, onEvent, ...})`: runs the plan in a separate
 *   worker process, streams typed `BenchEvent`s, journals every finished cell at once and
 *   saves the session atomically. Returns `{stop(), done}`; `done` resolves with the session.
 * - `WorkerLauncher`: how the worker process is started (plain Node `forkLauncher` by default;
 *   the app passes one built on Electron's utilityProcess).
 */
export { planRun, resolveConfig, largestContext, DEFAULT_CONTEXTS } from './plan';
export { readinessTimeoutSeconds } from './readiness';
export { MAX_STREAMS, streamsCeilingReason } from './http';
export type { PlanTarget } from './plan';
export type {
  BenchEvent,
  PlannedAction,
  PlannedCell,
  PlannedPrefill,
  PlanStep,
  ResolvedRunConfig,
  RunConfigInput,
  RunOutcome,
  RunPlan,
  TokenTargeting,
} from './types';
export { loadForResume, planForResume, startRun } from './start-run';
export type { RunHandle, StartRunOptions } from './start-run';
export { forkLauncher } from './worker-transport';
export type { WorkerChannel, WorkerLauncher } from './worker-transport';
export type { ParentMessage, WorkerMessage } from './worker-protocol';
export { eventToJsonLine, ProgressPrinter } from './progress';
export type { ProgressMode } from './progress';
