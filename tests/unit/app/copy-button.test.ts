/**
 * The Server view's Copy button in real Chromium against the real core, with the core's
 * clipboard wired the way main wires Electron's: the text reaches main's clipboard over the
 * contract channel and the button says "Copied". Where the core cannot copy (the browser harness
 * with no clipboard, and a page the browser will not let write one), the person is told.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BridgeServer, startBridgeServer } from '../../helpers/bridge-server';
import { hasChromium, launchChromium, openPage, shot } from '../../web/browser';

describe.skipIf(!hasChromium)('the Copy button of the launch command', () => {
  let browser: Browser;
  const copied: string[] = [];
  let withClipboard: BridgeServer;
  let without: BridgeServer;
  beforeAll(async () => {
    withClipboard = await startBridgeServer({ core: { writeClipboard: (t: string) => void copied.push(t) } });
    without = await startBridgeServer();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await withClipboard?.close();
    await without?.close();
  });

  it('writes the exact command line to main’s clipboard and says Copied', async () => {
    const { page, problems } = await openPage(browser, withClipboard.url);
    await page.locator('nav button', { hasText: 'Server' }).click();
    const preview = await page.getByTestId('command-preview').innerText();
    const button = page.locator('.preview-head button');
    await button.click();
    await expect.poll(() => button.innerText()).toBe('Copied');
    expect(copied).toEqual([preview]);
    expect(problems).toEqual([]);
    await shot(page, 'server-copied', false);
  });

  it('says why when nothing could copy, instead of doing nothing', async () => {
    const { page } = await openPage(browser, without.url);
    // The page's own clipboard refuses too, as the app's session refuses every permission.
    await page.evaluate(() =>
      Object.defineProperty(navigator, 'clipboard', {
        value: { writeText: () => Promise.reject(new Error('denied')) },
      }),
    );
    await page.locator('nav button', { hasText: 'Server' }).click();
    const button = page.locator('.preview-head button');
    await button.click();
    await expect.poll(() => page.getByText(/Could not copy: Copying is not available here/).count()).toBe(1);
    expect(await button.innerText()).toBe('Copy');
  });
});
