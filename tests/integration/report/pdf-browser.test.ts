/**
 * Which browser prints PDFs on each OS: Chrome, Chromium and Edge where Windows and macOS install
 * them, per-OS help when there is none, and a temp-folder clean-up that never turns a printed
 * PDF into an error.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { chromiumHelp, findChromium, htmlToPdf } from '../../../src-main/workflows/report/pdf';
import { removeTempDir } from '../../../src-main/platform/runtime/temp';

const WIN_ENV = {
  LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local',
  ProgramFiles: 'C:\\Program Files',
  'ProgramFiles(x86)': 'C:\\Program Files (x86)',
};
const EDGE = 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe';
const USER_CHROME = 'C:\\Users\\me\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe';
const on = (platform: NodeJS.Platform, files: string[], env: NodeJS.ProcessEnv = {}) =>
  findChromium({ platform, env, home: '/Users/me', exists: (p) => files.includes(p) });

describe('findChromium on Windows', () => {
  it('finds Edge where Windows installs it', () => {
    expect(on('win32', [EDGE], WIN_ENV)).toEqual({ ok: true, data: EDGE });
  });
  it('prefers Chrome (a per-user install first) over Edge', () => {
    expect(
      on('win32', [EDGE, USER_CHROME, 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'], WIN_ENV),
    ).toEqual({ ok: true, data: USER_CHROME });
  });
  it('none: Windows help, not apt-get', () => {
    const r = on('win32', [], WIN_ENV);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBe(`No Chromium, Chrome or Edge found. ${chromiumHelp('win32')}`);
    expect(r.error).toContain('Edge comes with Windows');
    expect(r.error).toContain('SPEEDMATRIX_CHROMIUM');
    expect(r.error).not.toContain('apt-get');
  });
});

describe('findChromium on macOS', () => {
  it('finds Chrome, Chromium or Edge in /Applications or ~/Applications', () => {
    expect(on('darwin', ['/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge'])).toEqual({
      ok: true,
      data: '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    });
    expect(on('darwin', ['/Users/me/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'])).toEqual({
      ok: true,
      data: '/Users/me/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    });
  });
  it('none: macOS help', () => {
    const r = on('darwin', []);
    expect(!r.ok && r.error).toContain('brew install --cask chromium');
    expect(!r.ok && r.error).not.toContain('apt-get');
  });
});

describe('findChromium on Linux, and SPEEDMATRIX_CHROMIUM everywhere', () => {
  it("finds this machine's Chromium, which prints a real PDF", async () => {
    const r = findChromium({ platform: 'linux' });
    expect(r.ok).toBe(true);
    const pdf = await htmlToPdf('<h1>hello</h1>');
    expect(pdf.ok && Buffer.from(pdf.data.subarray(0, 5)).toString()).toBe('%PDF-');
  }, 120_000);
  it('a SPEEDMATRIX_CHROMIUM that does not exist is named, with the OS help', () => {
    const r = on('win32', [EDGE], { ...WIN_ENV, SPEEDMATRIX_CHROMIUM: 'D:\\chrome.exe' });
    expect(r).toEqual({
      ok: false,
      error: `SPEEDMATRIX_CHROMIUM is set to D:\\chrome.exe, but there is no such file. ${chromiumHelp('win32')}`,
    });
  });
});

describe('removeTempDir', () => {
  it('removes a real folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-print-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'report.html'), '<p>x</p>');
    expect(await removeTempDir(dir)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });
  it('a folder still locked (EBUSY, as Windows does) is left for the OS, and nothing throws', async () => {
    const calls: unknown[] = [];
    const locked = async (_p: string, opts: unknown) => {
      calls.push(opts);
      throw Object.assign(new Error('EBUSY: resource busy or locked'), { code: 'EBUSY' });
    };
    expect(await removeTempDir('C:\\Temp\\speedmatrix-print-x', locked)).toBe(false);
    expect(calls).toEqual([{ recursive: true, force: true, maxRetries: 5, retryDelay: 100 }]);
  });
});
