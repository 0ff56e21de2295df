/** A one-screen, plain-text summary of a session: model, GPU, engine, cells by status. */
import { fmtContextRange, fmtGigabytes, plural } from '#shared/report/format';
import type { CellStatus, Session } from '#shared/session/schema';
import { STATUS_WORDS } from '#shared/session/status-words';
import { countByStatus, isDoneForResume } from '#shared/session/status-words';

export { countByStatus } from '#shared/session/status-words';

/** "Valid 4, Over capacity 5" for the statuses that pass `keep`. */
function statusCounts(session: Session, keep: (status: CellStatus) => boolean): string {
  return Object.entries(countByStatus(session))
    .filter(([s]) => keep(s as CellStatus))
    .map(([s, n]) => `${STATUS_WORDS[s as CellStatus]} ${n}`)
    .join(', ');
}

/**
 * The cells by status; for a run stopped before its plan was done, how many of the plan's cells
 * are done and what is left ("9 of 28 done (Valid 4, Over capacity 5); Cancelled 1, not run 18").
 */
function cellsLine(session: Session): string {
  const planned = session.runConfig.contexts.length * session.runConfig.concurrency.length;
  const done = session.cells.filter((c) => isDoneForResume(c.status)).length;
  if (done >= planned) {
    const all = statusCounts(session, () => true);
    return `${session.cells.length}${all ? ` (${all})` : ''}`;
  }
  const finished = statusCounts(session, isDoneForResume);
  const stopped = statusCounts(session, (s) => !isDoneForResume(s));
  const notRun = planned - session.cells.length;
  const left = [stopped, notRun > 0 ? `not run ${notRun}` : ''].filter(Boolean).join(', ');
  return `${done} of ${planned} done${finished ? ` (${finished})` : ''}${left ? `; ${left}` : ''}`;
}

export function summarizeSession(session: Session): string {
  const gpu = session.hardware.gpus[0];
  const gpuLine = gpu
    ? `${session.hardware.gpus.length > 1 ? `${session.hardware.gpus.length} × ` : ''}${gpu.name}${gpu.vramBytes ? ` (${fmtGigabytes(gpu.vramBytes)})` : ''}`
    : 'no GPU recorded';
  const engine = [session.engine.name, session.engine.version, session.engine.quantization].filter(Boolean).join(' · ');
  const model = session.server.servedModel ?? session.server.model ?? 'unknown model';
  const rc = session.runConfig;
  return [
    `Model:     ${model}${session.simulated ? '  [SIMULATED]' : ''}`,
    `GPU:       ${gpuLine}`,
    `Engine:    ${engine || 'unknown'}`,
    `Matrix:    ${plural(rc.contexts.length, 'context')} (${fmtContextRange(rc.contexts)}) × ${plural(rc.concurrency.length, 'concurrency level')} (${rc.concurrency.join(', ') || '—'})`,
    `Prefill:   ${plural(session.prefill.length, 'context')} measured`,
    `Cells:     ${cellsLine(session)}`,
    `Created:   ${session.createdAt}  (SpeedMatrix ${session.appVersion}, format v${session.formatVersion})`,
  ].join('\n');
}
