/**
 * Writing a session: atomic (temp file in the same folder, fsync, rename), so a crash never
 * leaves half a file; secrets are scrubbed on the way out whatever the caller passed. On
 * Windows, antivirus, OneDrive and the search indexer hold files open for a moment, so a
 * rename that fails with EPERM/EBUSY (or EACCES there) is retried with a short backoff first.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Result, fail, ok } from '#shared/result';
import { type Session, SessionSchema } from '#shared/session/schema';
import { redactArgv, redactEnv } from '#shared/session/secrets';

/** The session as it may be written: launch argv and env with secrets redacted. */
export function scrubSession(session: Session): Session {
  return {
    ...session,
    server: { ...session.server, argv: redactArgv(session.server.argv), env: redactEnv(session.server.env) },
  };
}

/** Serialise compactly: per-request columns make pretty-printing balloon the file. */
export function serializeSession(session: Session): string {
  const clean = SessionSchema.parse(scrubSession(session));
  return JSON.stringify(clean);
}

/** Write bytes to `file` atomically. The error says what happened and that nothing was lost. */
export interface AtomicWriteOptions {
  platform?: NodeJS.Platform;
  /** The rename to use (default fs/promises rename). */
  rename?: (from: string, to: string) => Promise<void>;
  /** Waits between rename attempts, in ms (default 50, 100, 200, 400, 800: about 1.5 s in all). */
  retryDelaysMs?: readonly number[];
}

const RETRY_DELAYS_MS = [50, 100, 200, 400, 800];

/** A brief lock by another program, not a lasting refusal. */
export function isTransientLock(e: unknown, platform: NodeJS.Platform = process.platform): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'EBUSY' || code === 'EPERM' || (platform === 'win32' && code === 'EACCES');
}

/** Rename, retrying while another program briefly holds the file. */
export async function renameWithRetry(from: string, to: string, opts: AtomicWriteOptions = {}): Promise<void> {
  const doRename = opts.rename ?? rename;
  const delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await doRename(from, to);
    } catch (e) {
      if (attempt >= delays.length || !isTransientLock(e, opts.platform)) throw e;
      await new Promise((r) => setTimeout(r, delays[attempt]));
    }
  }
}

export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<Result<string>> {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await renameWithRetry(tmp, file, opts);
    return ok(file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    return fail(`Could not save ${file}: ${describeWriteError(e)}.`);
  }
}

export async function writeSessionFile(
  file: string,
  session: Session,
  opts: AtomicWriteOptions = {},
): Promise<Result<string>> {
  const updated: Session = { ...session, updatedAt: new Date().toISOString() };
  return writeFileAtomic(file, serializeSession(updated), opts);
}

export function describeWriteError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is exceeded';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOENT':
      return 'the folder does not exist';
    case 'EBUSY':
      return 'another program keeps the file open (antivirus, OneDrive or the search indexer often do for a moment); try again';
    case 'EFBIG':
      return 'the file is larger than this file system allows';
    case 'ENOTDIR':
      return 'part of the path is a file, not a folder';
    case 'EISDIR':
      return 'it is a folder';
    default:
      // Node names the path it failed on, which here is the temp file: the person knows the file.
      return (err.message ?? String(e)).replace(/, \w+ '[^']*'( -> '[^']*')?$/, '');
  }
}
