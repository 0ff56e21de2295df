/**
 * Electron's single-instance lock lives in the user-data folder, and requestSingleInstanceLock()
 * returns false both when another SpeedMatrix holds it and when that folder cannot be made or
 * written (after one `sudo` run it belongs to root). Only the second is a failure to report.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';

/** The error that keeps the folder from holding the lock, or null when it is usable (another instance has the lock). */
export function userDataProblem(dir: string): NodeJS.ErrnoException | null {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return null;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    err.path ??= dir;
    return err;
  }
}
