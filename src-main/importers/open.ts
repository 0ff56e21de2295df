/**
 * Open whatever a person points at: a SpeedMatrix session, or a file another tool wrote
 * (imported on the fly). Used by `report` and `compare`, so both take either.
 */
import { type Result, fail, ok } from '../../src-shared/result';
import { readSessionFile } from '../session/read';
import type { Session } from '../../src-shared/session/schema';
import { importFile } from './index';

export async function openSessionOrImport(path: string): Promise<Result<Session>> {
  const read = await readSessionFile(path);
  if (read.ok) return ok(read.data);
  // Not a session at all (no format marker): maybe another tool's results.
  if (read.error.path === 'format') return importFile(path);
  return fail(read.error.message);
}
