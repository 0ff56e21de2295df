/**
 * PDF for the CLI: print the HTML report with headless Chromium through playwright-core.
 * Debian's chromium package is used (SPEEDMATRIX_CHROMIUM overrides it; playwright's own
 * download is used when present). A fresh profile folder per print, network blocked, no
 * GPU, so printing is the same on a headless server as on a laptop.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { type Result, fail, ok } from '../../src-shared/result';

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

const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export const CHROMIUM_HELP =
  'Making a PDF needs Chromium. Install it (Debian/Ubuntu: sudo apt-get install chromium; Fedora: sudo dnf install chromium) or set SPEEDMATRIX_CHROMIUM to the path of a Chromium or Chrome executable. Markdown and HTML reports need nothing extra: use --format md or --format html.';

/** The Chromium to use, or an error that says how to get one. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): Result<string> {
  const fromEnv = env.SPEEDMATRIX_CHROMIUM?.trim();
  if (fromEnv) {
    return existsSync(fromEnv) ? ok(fromEnv) : fail(`SPEEDMATRIX_CHROMIUM is set to ${fromEnv}, but there is no such file. ${CHROMIUM_HELP}`);
  }
  for (const p of SYSTEM_CHROMIUMS) if (existsSync(p)) return ok(p);
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return ok(own);
  } catch {
    // playwright-core without a downloaded browser: fall through to the message below.
  }
  return fail(`No Chromium found. ${CHROMIUM_HELP}`);
}

export interface PdfOptions {
  paper?: PaperSize;
  env?: NodeJS.ProcessEnv;
  /** Milliseconds for Chromium to start and print; a busy machine can be slow. */
  timeoutMs?: number;
}

/** Print `html` to PDF bytes. Never throws: failures come back as a sentence. */
export async function htmlToPdf(html: string, opts: PdfOptions = {}): Promise<Result<Uint8Array>> {
  const exe = findChromium(opts.env);
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
    await rm(profile, { recursive: true, force: true }).catch(() => undefined);
  }
}
