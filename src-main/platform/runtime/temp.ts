/**
 * Removing a temp folder after its work is done. On Windows a file just used by a browser or
 * an antivirus scan stays locked for a moment (EBUSY/EPERM), so removal is retried and then
 * left to the OS temp clean-up: a leftover temp file must never turn finished work into an error.
 */
import { rm } from 'node:fs/promises';

type RemoveFn = (
  path: string,
  opts: { recursive: true; force: true; maxRetries: number; retryDelay: number },
) => Promise<void>;

/** Remove `dir` and what is in it; true when it is gone. Never throws. */
export async function removeTempDir(dir: string, remove: RemoveFn = rm): Promise<boolean> {
  try {
    // rm itself retries EBUSY, EPERM, EMFILE, ENFILE and ENOTEMPTY with a linear backoff.
    await remove(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    return true;
  } catch {
    return false;
  }
}
