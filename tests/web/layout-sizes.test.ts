/**
 * Every view at the two window sizes people use most (1280x800 and 1920x1080), light and dark, in
 * real Chromium against the real core: nothing runs off the side (no horizontal scrolling), the
 * view's main action is reachable, and the page logs no error. The screenshots are left in
 * test-results/web/90-* for a person to look at.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { webTest as it } from '../helpers/fixtures';
import { importText } from '../../src-main/workflows/importers';
import { serializeSession } from '../../src-main/platform/session/write';
import { SYNTHETIC_REPORT } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/** Wider than the window: the document scrolls sideways. */
const overflowsSideways = (page: Page): Promise<boolean> =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);

describe.skipIf(!hasChromium)('every view at 1280x800 and 1920x1080, light and dark', () => {
  it('fits the window width with its main action reachable, and logs no error', async ({ bridge, browser }) => {
    const imported = importText(readFileSync(SYNTHETIC_REPORT, 'utf8'), 'report.txt');
    if (!imported.ok) throw new Error(imported.error);
    const file = join(bridge.dialogs.saveDir, 'layout.speedmatrix.json');
    writeFileSync(file, serializeSession(imported.data));

    for (const scheme of SCHEMES) {
      const { page, problems } = await openPage(browser, bridge.url, { colorScheme: scheme });
      await page.waitForSelector('[data-app-state="ready"]');
      for (const size of SIZES) {
        await page.setViewportSize(size);
        const views: Array<{ nav: string; ready: () => Promise<void> }> = [
          { nav: 'Hardware', ready: () => page.getByTestId('view-hardware').waitFor() },
          { nav: 'Server', ready: () => page.getByTestId('start-server').waitFor() },
          { nav: 'Run', ready: () => page.getByTestId('start-run').waitFor() },
          {
            nav: 'Results',
            ready: async () => {
              bridge.dialogs.openQueue.push(file);
              expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
              await page.getByTestId('heatmap').waitFor();
            },
          },
        ];
        for (const view of views) {
          await page.locator('nav button', { hasText: view.nav }).click();
          await view.ready();
          await page.evaluate(() => window.scrollTo(0, 0));
          const name = `${view.nav.toLowerCase()}-${size.width}-${scheme}`;
          expect(await overflowsSideways(page), `${name} scrolls sideways`).toBe(false);
          await shot(page, `90-${name}`, false);
        }
        // The Server view's Start stays in the window without scrolling, at both sizes.
        await page.locator('nav button', { hasText: 'Server' }).click();
        const start = await page.getByTestId('start-server').boundingBox();
        expect(start!.y + start!.height).toBeLessThanOrEqual(size.height);
      }
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });
});
