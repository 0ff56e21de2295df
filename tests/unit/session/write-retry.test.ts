/**
 * Saving while another program briefly holds the file (Windows antivirus, OneDrive, the search
 * indexer): the rename is retried with a short backoff, so a brief lock never becomes an error
 * or a session moved to the temp folder; a lasting one is reported with its reason, the old
 * file kept and no temp file left.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { writeFileAtomic, writeSessionFile } from '../../../src-main/platform/session/write';
import { sampleSession } from '../../helpers/sample-session';

const dir = mkdtempSync(join(tmpdir(), 'sm-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A rename that fails like Windows does while the target is held, `times` times, then really renames. */
function lockedFor(times: number, code: string) {
  const calls: string[] = [];
  const fn = async (from: string, to: string) => {
    calls.push(to);
    if (calls.length <= times)
      throw Object.assign(new Error(`${code}: operation not permitted, rename '${from}' -> '${to}'`), {
        code,
        syscall: 'rename',
      });
    await rename(from, to);
  };
  return { fn, calls };
}
const tmpFiles = () => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

describe('atomic save with a briefly locked file', () => {
  it('EPERM twice, then the save goes through: the file is complete and no temp file is left', async () => {
    const file = join(dir, 'run.speedmatrix.json');
    const lock = lockedFor(2, 'EPERM');
    const saved = await writeSessionFile(file, sampleSession(), {
      platform: 'win32',
      rename: lock.fn,
      retryDelaysMs: [10, 20, 40],
    });
    expect(saved).toEqual({ ok: true, data: file });
    expect(lock.calls).toHaveLength(3);
    expect((await readSessionFile(file)).ok).toBe(true);
    expect(tmpFiles()).toEqual([]);
  });

  it('EBUSY that lasts: one clear reason after every retry, the old file untouched, no temp file', async () => {
    const file = join(dir, 'held.speedmatrix.json');
    writeFileSync(file, 'old contents');
    const lock = lockedFor(99, 'EBUSY');
    const t0 = Date.now();
    const saved = await writeFileAtomic(file, 'new contents', {
      platform: 'win32',
      rename: lock.fn,
      retryDelaysMs: [10, 20, 40],
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(70);
    expect(lock.calls).toHaveLength(4);
    expect(saved).toEqual({
      ok: false,
      error: `Could not save ${file}: another program keeps the file open (antivirus, OneDrive or the search indexer often do for a moment); try again.`,
    });
    expect(readFileSync(file, 'utf8')).toBe('old contents');
    expect(tmpFiles()).toEqual([]);
  });

  it('EACCES is a brief lock on Windows but a real refusal elsewhere (not retried)', async () => {
    const onLinux = lockedFor(1, 'EACCES');
    expect(
      (await writeFileAtomic(join(dir, 'a.json'), 'x', { platform: 'linux', rename: onLinux.fn, retryDelaysMs: [10] }))
        .ok,
    ).toBe(false);
    expect(onLinux.calls).toHaveLength(1);
    const onWindows = lockedFor(1, 'EACCES');
    expect(
      (
        await writeFileAtomic(join(dir, 'b.json'), 'x', {
          platform: 'win32',
          rename: onWindows.fn,
          retryDelaysMs: [10],
        })
      ).ok,
    ).toBe(true);
    expect(onWindows.calls).toHaveLength(2);
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe('x');
  });
});

describe('a save that cannot be made', () => {
  it('names the file asked for and the cause in words, never the temp file it wrote through', async () => {
    const plain = join(dir, 'plain.txt');
    writeFileSync(plain, 'x');
    const under = await writeFileAtomic(join(plain, 'r.md'), 'x');
    expect(under).toEqual({
      ok: false,
      error: `Could not save ${join(plain, 'r.md')}: part of the path is a file, not a folder.`,
    });
    const lock = lockedFor(1, 'EXDEV');
    const odd = await writeFileAtomic(join(dir, 'c.md'), 'x', { platform: 'linux', rename: lock.fn });
    expect(odd.ok).toBe(false);
    if (!odd.ok) expect(odd.error).toBe(`Could not save ${join(dir, 'c.md')}: EXDEV: operation not permitted.`);
    expect(tmpFiles()).toEqual([]);
  });
});
