/** A one-screen, plain-text summary of a session: model, GPU, engine, cells by status. */
import { fmtContextRange, fmtGigabytes, plural } from '#shared/report/format';
import { type CellStatus, STATUS_WORDS, type Session } from '#shared/session/schema';
import { countByStatus } from '#shared/session/status-words';

export { countByStatus } from '#shared/session/status-words';

export function summarizeSession(session: Session): string {
  const gpu = session.hardware.gpus[0];
  const gpuLine = gpu
    ? `${session.hardware.gpus.length > 1 ? `${session.hardware.gpus.length} × ` : ''}${gpu.name}${gpu.vramBytes ? ` (${fmtGigabytes(gpu.vramBytes)})` : ''}`
    : 'no GPU recorded';
  const engine = [session.engine.name, session.engine.version, session.engine.quantization].filter(Boolean).join(' · ');
  const model = session.server.servedModel ?? session.server.model ?? 'unknown model';
  const counts = countByStatus(session);
  const statusLine = Object.entries(counts)
    .map(([s, n]) => `${STATUS_WORDS[s as CellStatus]} ${n}`)
    .join(', ');
  const rc = session.runConfig;
  return [
    `Model:     ${model}${session.simulated ? '  [SIMULATED]' : ''}`,
    `GPU:       ${gpuLine}`,
    `Engine:    ${engine || 'unknown'}`,
    `Matrix:    ${plural(rc.contexts.length, 'context')} (${fmtContextRange(rc.contexts)}) × ${plural(rc.concurrency.length, 'concurrency level')} (${rc.concurrency.join(', ') || '—'})`,
    `Prefill:   ${plural(session.prefill.length, 'context')} measured`,
    `Cells:     ${session.cells.length}${statusLine ? ` (${statusLine})` : ''}`,
    `Created:   ${session.createdAt}  (SpeedMatrix ${session.appVersion}, format v${session.formatVersion})`,
  ].join('\n');
}
