/**
 * The append-only journal beside a session file (`<file>.journal`). Each finished cell is
 * appended the moment it completes, so a run that dies loses at most the cell in progress.
 * One JSON record per line; a torn last line (the crash itself) is ignored on recovery.
 */
import { appendFileSync, existsSync, readFileSync, unlinkSync } from 'node:fs';
import type { DecodeCell, PrefillResult, Session, SessionEvent } from '#shared/session/schema';
import { cellKey } from '#shared/cell-key';
import { checkSession } from './read';
import { scrubSession } from './write';

type JournalRecord =
  | { kind: 'start'; session: Session }
  | { kind: 'prefill'; result: PrefillResult }
  | { kind: 'cell'; cell: DecodeCell }
  | { kind: 'event'; event: SessionEvent }
  | { kind: 'server-log'; lines: string[] };

export const journalPathFor = (sessionFile: string): string => `${sessionFile}.journal`;

export class Journal {
  constructor(readonly path: string) {}

  /** Appends synchronously: the record is on disk (in the page cache) before we go on. */
  append(record: JournalRecord): void {
    const rec = record.kind === 'start' ? { ...record, session: scrubSession(record.session) } : record;
    appendFileSync(this.path, `${JSON.stringify(rec)}\n`);
  }

  remove(): void {
    if (existsSync(this.path)) unlinkSync(this.path);
  }
}

/** Replay a journal into a session. Later records for the same cell replace earlier ones. */
export function recoverFromJournal(path: string): Session | null {
  if (!existsSync(path)) return null;
  let session: Session | null = null;
  const cells = new Map<string, DecodeCell>();
  const prefill = new Map<number, PrefillResult>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let rec: JournalRecord;
    try {
      rec = JSON.parse(line) as JournalRecord;
    } catch {
      continue; // the torn line written as the process died
    }
    if (rec.kind === 'start') {
      const checked = checkSession(rec.session, path);
      if (!checked.ok) return null;
      session = checked.data;
      for (const c of session.cells) cells.set(cellKey(c), c);
      for (const p of session.prefill) prefill.set(p.context, p);
    } else if (!session) {
      continue;
    } else if (rec.kind === 'cell') cells.set(cellKey(rec.cell), rec.cell);
    else if (rec.kind === 'prefill') prefill.set(rec.result.context, rec.result);
    else if (rec.kind === 'event') session.events.push(rec.event);
    else if (rec.kind === 'server-log') session.serverLog.lines.push(...rec.lines);
  }
  if (!session) return null;
  const recovered = { ...session, cells: [...cells.values()], prefill: [...prefill.values()] };
  const checked = checkSession(recovered, path);
  return checked.ok ? checked.data : null;
}
