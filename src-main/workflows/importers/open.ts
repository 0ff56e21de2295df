/**
 * Open whatever a person points at: a SpeedMatrix session, or a file another tool wrote
 * (imported on the fly), by the same rule as File > Open. Used by `report`, `compare`, the app's
 * Compare Sessions and Open, so all take the same files.
 */
import { open } from 'node:fs/promises';
import { type Result, fail, ok } from '#shared/result';
import { readSessionFile } from '../../platform/session/read';
import type { Session } from '#shared/session/schema';
import { importFile } from './index';

/** Whether a file's first bytes look like JSON; true when it cannot be read (the read error says why). */
export async function startsLikeJson(file: string): Promise<boolean> {
  try {
    const fh = await open(file, 'r');
    try {
      const { buffer, bytesRead } = await fh.read(Buffer.alloc(1024), 0, 1024, 0);
      return /^\s*[{[]/.test(buffer.subarray(0, bytesRead).toString('utf8'));
    } finally {
      await fh.close();
    }
  } catch {
    return true;
  }
}

export async function openSessionOrImport(path: string): Promise<Result<Session>> {
  const read = await readSessionFile(path);
  if (read.ok) return ok(read.data);
  // Not a session at all (no format marker, or not JSON: report text): maybe another tool's results.
  if (read.error.path === 'format' || !(await startsLikeJson(path))) return importFile(path);
  return fail(read.error.message);
}
