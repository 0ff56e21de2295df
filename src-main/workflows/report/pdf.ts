/**
 * PDF for the CLI: print the HTML report with headless Chromium through playwright-core.
 * The browser is SPEEDMATRIX_CHROMIUM if set, else Chromium, Chrome or Edge where this OS
 * installs them, else playwright's own download. A fresh profile folder per print, network
 * blocked, no GPU, so printing is the same on a headless server as on a laptop.
 */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import { chromium } from 'playwright-core';
import { type Result, fail, ok } from '#shared/result';
import { removeTempDir } from '../../platform/runtime/temp';

export type PaperSize = 'a4' | 'letter';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export interface BrowserLookup {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** The user's home folder (macOS installs apps in ~/Applications too). */
  home?: string;
  exists?: (path: string) => boolean;
}

const envValue = (env: NodeJS.ProcessEnv, name: string): string | undefined =>
  Object.entries(env).find(([k]) => k.toUpperCase() === name.toUpperCase())?.[1];

/** Where each OS installs Chromium, Chrome and Edge, in the order they are tried. */
export function systemChromiums(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string[] {
  if (platform === 'win32') {
    // Per-user installs (LOCALAPPDATA) first, then machine-wide; Edge comes with Windows.
    const roots = ['LOCALAPPDATA', 'ProgramFiles', 'ProgramFiles(x86)']
      .map((n) => envValue(env, n))
      .filter((r): r is string => !!r);
    const apps = [
      'Google\\Chrome\\Application\\chrome.exe',
      'Chromium\\Application\\chrome.exe',
      'Microsoft\\Edge\\Application\\msedge.exe',
    ];
    return apps.flatMap((a) => roots.map((r) => win32.join(r, a)));
  }
  if (platform === 'darwin') {
    const apps = [
      'Google Chrome.app/Contents/MacOS/Google Chrome',
      'Chromium.app/Contents/MacOS/Chromium',
      'Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    ];
    return apps.flatMap((a) => [posix.join('/Applications', a), posix.join(home, 'Applications', a)]);
  }
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/usr/bin/microsoft-edge',
    '/snap/bin/chromium',
  ];
}

const MD_HTML = 'Markdown and HTML reports need nothing extra: use --format md or --format html.';

/** How to get a browser for PDFs, in this OS's terms. */
export function chromiumHelp(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    return `Making a PDF needs Microsoft Edge, Google Chrome or Chromium. Edge comes with Windows; if it was removed, install Edge or Chrome, or set SPEEDMATRIX_CHROMIUM to the browser's .exe (for example C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe). ${MD_HTML}`;
  }
  if (platform === 'darwin') {
    return `Making a PDF needs Google Chrome, Microsoft Edge or Chromium. Install one (or brew install --cask chromium), or set SPEEDMATRIX_CHROMIUM to the program inside the app (for example "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"). ${MD_HTML}`;
  }
  return `Making a PDF needs Chromium. Install it (Debian/Ubuntu: sudo apt-get install chromium; Fedora: sudo dnf install chromium) or set SPEEDMATRIX_CHROMIUM to the path of a Chromium or Chrome executable. ${MD_HTML}`;
}

/** The Chromium to use, or an error that says how to get one on this OS. */
export function findChromium(lookup: BrowserLookup = {}): Result<string> {
  const platform = lookup.platform ?? process.platform;
  const env = lookup.env ?? process.env;
  const exists = lookup.exists ?? existsSync;
  const fromEnv = env.SPEEDMATRIX_CHROMIUM?.trim();
  if (fromEnv) {
    return exists(fromEnv)
      ? ok(fromEnv)
      : fail(`SPEEDMATRIX_CHROMIUM is set to ${fromEnv}, but there is no such file. ${chromiumHelp(platform)}`);
  }
  for (const p of systemChromiums(platform, env, lookup.home ?? homedir())) if (exists(p)) return ok(p);
  try {
    const own = chromium.executablePath();
    if (own && exists(own)) return ok(own);
  } catch {
    // playwright-core without a downloaded browser: fall through to the message below.
  }
  return fail(`No Chromium, Chrome or Edge found. ${chromiumHelp(platform)}`);
}

export interface PdfOptions {
  paper?: PaperSize;
  env?: NodeJS.ProcessEnv;
  /** Milliseconds for Chromium to start and print; a busy machine can be slow. */
  timeoutMs?: number;
}

/** Print `html` to PDF bytes. Never throws: failures come back as a sentence. */
export async function htmlToPdf(html: string, opts: PdfOptions = {}): Promise<Result<Uint8Array>> {
  const exe = findChromium({ env: opts.env });
  if (!exe.ok) return exe;
  const timeout = opts.timeoutMs ?? 90_000;
  const profile = await mkdtemp(join(tmpdir(), 'speedmatrix-pdf-'));
  let context: Awaited<ReturnType<typeof chromium.launchPersistentContext>> | null = null;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: exe.data,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout,
      offline: true,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(timeout);
    // A report needs nothing from the network; refuse anything it might ask for.
    await page.route('**/*', (route) => route.abort());
    await page.setContent(html, { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({
      format: opts.paper === 'letter' ? 'Letter' : 'A4',
      printBackground: true,
      preferCSSPageSize: false,
      margin: { top: '12mm', bottom: '12mm', left: '12mm', right: '12mm' },
    });
    return ok(new Uint8Array(pdf));
  } catch (e) {
    return fail(`Chromium (${exe.data}) could not print the report: ${(e as Error).message.split('\n')[0]}`);
  } finally {
    await context?.close().catch(() => undefined);
    await removeTempDir(profile);
  }
}
