/**
 * Foundation: the built renderer in real headless Chromium, talking over the WebSocket bridge
 * to the real app core in Node, shows the shell with navigation and the version it read.
 */
import { describe, expect } from 'vitest';
import { APP_VERSION } from '../../src-main/platform/runtime/app-version';
import { webTest as it } from '../helpers/fixtures';
import { hasChromium, openPage, shot } from './browser';

describe.skipIf(!hasChromium)('app shell in Chromium', () => {
  it('renders navigation and the version that came over the bridge from the real core', async ({ bridge, browser }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]', { timeout: 20_000 });
    const nav = await page.locator('nav[aria-label="Views"] button').allTextContents();
    expect(nav.map((t) => t.trim())).toEqual(['Hardware', 'Server', 'Run', 'Results']);
    await expect.poll(() => page.getByTestId('app-version').textContent()).toBe(`v${APP_VERSION}`);
    // The version is the core's answer, not something baked into the page.
    const info = await bridge.core.invoke('app:info', []);
    expect(info.ok && info.data.host).toBe('bridge');
    await shot(page, '01-shell');
    // Hardware view is the first view, and on this machine (no GPU) says so with a way forward.
    await page.waitForSelector('[data-testid="no-gpu"], [data-testid="gpu-card"]', { timeout: 30_000 });
    await shot(page, '02-hardware');
    for (const view of ['Server', 'Run', 'Results']) {
      await page.locator('nav button', { hasText: view }).click();
      await page.waitForSelector(`[data-testid="view-${view.toLowerCase()}"]`);
    }
    expect(problems).toEqual([]);
  });

  it('refuses a page that has no bridge with a clear message, not a blank screen', async ({ bridge, browser }) => {
    const { page } = await openPage(browser, bridge.url.replace('?bridge=ws', ''));
    await page.waitForSelector('[data-app-state="error"]');
    expect(await page.locator('[role="alert"]').textContent()).toMatch(/No connection to the SpeedMatrix core/);
  });
});
