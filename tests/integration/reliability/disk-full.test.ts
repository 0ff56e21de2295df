/**
 * Disk full and read-only on save, on a real tiny tmpfs: the results stay in memory,
 * the message says so and why, the file that was there survives, no temp file is left, and
 * saving elsewhere works. The CLI's report export fails the same clean way.
 * Mounting needs root with CAP_SYS_ADMIN (as here); elsewhere these are reported as not run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { importText } from '../../../src-main/workflows/importers';
import type { Session } from '#shared/session/schema';
import { serializeSession } from '../../../src-main/platform/session/write';
import { createSession } from '../../../src-main/platform/session/create';
import { runCli } from '../../helpers/cli';
import { SYNTHETIC_REPORT } from '../../helpers/paths';
import { noGpu } from '../../helpers/core-sim';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-diskfull-'));
const mnt = join(dir, 'tiny');
mkdirSync(mnt);

function mount(opts: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', mnt], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
/** Why the suite is skipped without root; CI runs as root, so there the skip fails the run (tests/summary-reporter.ts). */
const NOT_RUN = 'not run: mounting a tmpfs needs root (CAP_SYS_ADMIN), and this process is not allowed to';
const canMount = mount('size=16k');
if (!canMount) process.stdout.write(`tests/integration/reliability/disk-full: ${NOT_RUN}\n`);
const remount = (opts: string) => execFileSync('mount', ['-o', `remount,${opts}`, mnt], { stdio: 'ignore' });

afterAll(() => {
  if (canMount) execFileSync('umount', [mnt], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
});

/** The synthetic report's results plus a server log, as a run keeps it: more than the 16 KiB disk holds. */
function reference(): Session {
  const r = importText(readFileSync(SYNTHETIC_REPORT, 'utf8'), 'reference.txt');
  if (!r.ok) throw new Error(r.error);
  const lines = Array.from(
    { length: 600 },
    (_, i) => `INFO 12-01 10:00:${String(i % 60).padStart(2, '0')} engine step ${i}`,
  );
  return { ...r.data, serverLog: { lines, truncated: false } };
}

describe('saving onto a full or read-only disk', () => {
  describe.skipIf(!canMount)(`on a 16 KiB tmpfs (${canMount ? 'mounted' : NOT_RUN})`, () => {
    const core = createAppCore({ host: 'bridge', dataDir: join(dir, 'app'), detectHardware: noGpu });
    const small = serializeSession(createSession({ simulated: true }));
    const big = serializeSession(reference());
    beforeAll(() => {
      expect(Buffer.byteLength(small)).toBeLessThan(8 * 1024);
      expect(Buffer.byteLength(big)).toBeGreaterThan(20 * 1024);
    });
    afterAll(() => core.dispose());

    it('disk full: the save fails saying so, results stay open, the old file survives, no temp file is left; Save As elsewhere works', async () => {
      const target = join(mnt, 'results.speedmatrix.json');
      writeFileSync(target, small);
      expect((await core.invoke('session:open-data', [{ name: 'big.speedmatrix.json', text: big }])).ok).toBe(true);
      const bad = await core.invoke('session:save-as', [target]);
      expect(bad.ok).toBe(false);
      expect(!bad.ok && bad.error).toMatch(
        /^Could not save .*results\.speedmatrix\.json: the disk is full\. Your results are still open here; use Save As/,
      );
      expect(readFileSync(target, 'utf8')).toBe(small);
      expect(readdirSync(mnt)).toEqual(['results.speedmatrix.json']);
      const view = await core.invoke('session:get', []);
      expect(view.ok && view.data.session?.cells.length).toBe(reference().cells.length);
      expect(view.ok && view.data.meta.saveError).toMatch(/the disk is full/);
      const elsewhere = join(dir, 'saved-elsewhere.speedmatrix.json');
      const good = await core.invoke('session:save-as', [elsewhere]);
      expect(good.ok && good.data).toMatchObject({ file: elsewhere, dirty: false, saveError: null });
      expect(JSON.parse(readFileSync(elsewhere, 'utf8')).cells.length).toBe(reference().cells.length);
    });

    it('read-only file system: the message says so, nothing changes on it', async () => {
      remount('ro');
      try {
        const bad = await core.invoke('session:save-as', [join(mnt, 'other.speedmatrix.json')]);
        expect(!bad.ok && bad.error).toMatch(/the file system is read-only\. Your results are still open here/);
        expect(readdirSync(mnt)).toEqual(['results.speedmatrix.json']);
        const view = await core.invoke('session:get', []);
        expect(view.ok && view.data.session).not.toBeNull();
      } finally {
        remount('rw');
      }
    });

    it('speedmatrix report onto the full disk: exit 1 with the reason, no partial file', async () => {
      const session = join(dir, 'saved-elsewhere.speedmatrix.json');
      const r = await runCli(['report', session, '--format', 'html', '--out', join(mnt, 'report.html')], {
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/report\.html.*the disk is full/);
      expect(readdirSync(mnt)).toEqual(['results.speedmatrix.json']);
    }, 90_000);
  });
});
