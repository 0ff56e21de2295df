/**
 * The Server view's Copy button in real Chromium against the real core, with the core's
 * clipboard wired the way main wires Electron's: the text reaches main's clipboard over the
 * contract channel and the button says "Copied". Where the core cannot copy (the browser harness
 * with no clipboard, and a page the browser will not let write one), the person is told.
 */
import { describe, expect } from 'vitest';
import { webTest } from '../../helpers/fixtures';
import { hasChromium, openPage, shot } from '../../web/browser';

const copied: string[] = [];
// The file's bridge has the core's clipboard wired; a second one, started in its test, has none.
const it = webTest.override(
  'bridgeOptions',
  { scope: 'file' },
  { core: { writeClipboard: (t: string) => void copied.push(t) } },
);

describe.skipIf(!hasChromium)('the Copy button of the launch command', () => {
  it('writes the exact command line to main’s clipboard and says Copied', async ({
    bridge: withClipboard,
    browser,
  }) => {
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

  it('says why when nothing could copy, instead of doing nothing', async ({ browser, launchBridge }) => {
    const without = await launchBridge();
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
