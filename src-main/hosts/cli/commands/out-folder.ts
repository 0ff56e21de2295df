/**
 * Where a command writes, checked before it starts, in one wording for every command (run,
 * sweep, report, compare, site): a missing folder, a file where a folder should be, and a folder
 * that takes no new files, each named with its real cause and exit 2.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EXIT } from './exit';

export class Refusal extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Why a folder takes no new files: the file system's answer in words. */
function whyNotWritable(e: unknown): string {
  return (e as NodeJS.ErrnoException).code === 'EROFS' ? 'the file system is read-only' : 'permission denied';
}

/** `dir` must be a folder this process may write in. */
export function checkFolder(flag: string, dir: string): void {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new Refusal(`${flag}: the folder ${dir} does not exist; create it or choose another place.`, EXIT.usage);
  }
  if (!isDir) throw new Refusal(`${flag}: ${dir} is not a folder.`, EXIT.usage);
  try {
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new Refusal(`${flag}: cannot write in ${dir}: ${whyNotWritable(e)}; choose another place.`, EXIT.usage);
  }
}

/** The folder `file` goes into must exist and take new files. */
export function checkWritableFolder(flag: string, file: string): void {
  checkFolder(flag, dirname(file));
}

/** A folder to fill (sweep --out-dir): an existing folder, or one its parent can take. */
export function checkOutputFolder(flag: string, dir: string): void {
  let exists = true;
  try {
    statSync(dir);
  } catch {
    exists = false;
  }
  if (exists) checkFolder(flag, dir);
  else checkWritableFolder(flag, dir);
}

/** A folder made with its parents if need be (site --out): it, or the nearest folder above it, takes new files. */
export function checkFolderToMake(flag: string, dir: string): void {
  let at = resolve(dir);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  checkFolder(flag, at);
}
