/**
 * A server's start time in words, from the phases the supervisor timed (docs/method.md, "Server
 * start time"): one text for the app's Server view, the reports' Run block and the sweep tables.
 */
import { START_PHASE_LABELS, startSeconds, type StartPhase } from '../session/start-phases';
import { NONE, fmtSeconds } from './format';

/** What the start time is called wherever it is shown. */
export const START_TIME_LABEL = 'Server start';

/** "129.0 s" for the whole start; "—" when the session recorded none (attached, imported, older files). */
export function fmtStartTime(phases: readonly StartPhase[] | null | undefined): string {
  return phases?.length ? fmtSeconds(startSeconds(phases)) : NONE;
}

/** "Process start 22.0 s · Weights loaded 38.0 s · … · API server ready 3.0 s": only the phases the log showed. */
export function fmtStartPhases(phases: readonly StartPhase[]): string {
  return phases.map((p) => `${START_PHASE_LABELS[p.phase]} ${fmtSeconds(p.seconds)}`).join(' · ');
}

/** The whole start, then its phases: "129.0 s (Process start 22.0 s · …)"; null when none was recorded. */
export function startTimeText(phases: readonly StartPhase[] | null | undefined): string | null {
  return phases?.length ? `${fmtStartTime(phases)} (${fmtStartPhases(phases)})` : null;
}
