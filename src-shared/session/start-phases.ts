/**
 * The phases of a server's start, in the order vLLM goes through them, each ended by a line of
 * its startup log (the lines: src-main/engine/server/start-phases.ts; the method: docs/method.md).
 * One definition for the session schema, the supervisor, the app and the reports.
 */
export const START_PHASES = ['process', 'weights', 'compile', 'kv-profile', 'graph-capture', 'ready'] as const;

export type StartPhaseId = (typeof START_PHASES)[number];

/** One phase of a start: the seconds from the end of the phase before it (or the launch) to its own end. */
export interface StartPhase {
  phase: StartPhaseId;
  seconds: number;
}

export const START_PHASE_LABELS: Readonly<Record<StartPhaseId, string>> = {
  process: 'Process start',
  weights: 'Weights loaded',
  compile: 'Compilation (torch.compile)',
  'kv-profile': 'KV cache profiling',
  'graph-capture': 'CUDA graph capture',
  ready: 'API server ready',
};

/** The whole start, launch to ready, in seconds; null when no phase was recorded. */
export function startSeconds(phases: readonly StartPhase[] | null | undefined): number | null {
  if (!phases?.length) return null;
  return phases.reduce((sum, p) => sum + p.seconds, 0);
}
