/** Debian's Chromium through playwright-core, headless, with nothing reaching the network. */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type ConsoleMessage, type Page, chromium } from 'playwright-core';
import { findChromium } from '../../src-main/workflows/report/pdf';
import { ARTIFACTS } from '../helpers/paths';

/** The browser the PDF export would use on this OS (CHROMIUM_PATH overrides it). */
const found = findChromium();
export const CHROMIUM = process.env.CHROMIUM_PATH ?? (found.ok ? found.data : '/usr/bin/chromium');
/**
 * Without Chromium the browser suites are reported as skipped on a developer's machine; in CI
 * (.ci/run installs it) they always run, so a missing browser fails loudly instead.
 */
export const hasChromium = existsSync(CHROMIUM) || Boolean(process.env.CI);

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** A page that records console errors and CSP violations, so a test can assert there were none. */
export async function openPage(
  browser: Browser,
  url: string,
  opts: { colorScheme?: 'light' | 'dark' } = {},
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport: { width: 1400, height: 1000 },
    colorScheme: opts.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  return { page, problems };
}

export async function shot(page: Page, name: string, fullPage = true): Promise<string> {
  const dir = join(ARTIFACTS, 'web');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}
