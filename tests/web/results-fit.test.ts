/**
 * The Results view at 1024×700 and 1920×1080, light and dark, in Chromium against the real core:
 * the toolbar keeps to one row (the exports in one menu), the prefill chart's axis titles are whole,
 * and a cell's timeline writes its axis at about the other charts' text size, not scaled up with
 * the window. Screenshots in test-results/web/82-*.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { serializeSession } from '../../src-main/platform/session/write';
import { webTest as it } from '../helpers/fixtures';
import { sampleSession } from '../helpers/sample-session';
import { hasChromium, openPage, shot } from './browser';

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1920, height: 1080 },
] as const;

/** The tops of the toolbar's items, rounded: one value is one row. */
const toolbarRows = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const bar = document.querySelector('.view-head.toolbar')!;
    const tops = [...bar.children]
      .filter((c) => (c as HTMLElement).offsetParent !== null && !c.classList.contains('sr-only'))
      .map((c) => Math.round(c.getBoundingClientRect().top / 8));
    return new Set(tops).size;
  });

/** Each axis title of a chart with how far it sticks out of the chart's box, in px (0: whole). */
const titleOverhangs = (page: Page, testId: string): Promise<[string, number][]> =>
  page.getByTestId(testId).evaluate((plot) => {
    const box = plot.getBoundingClientRect();
    const titles = [...plot.querySelectorAll('.g-ytitle text, .g-y2title text, .g-xtitle text')];
    return titles.map((t): [string, number] => {
      const r = t.getBoundingClientRect();
      const out = Math.max(0, box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom);
      return [t.textContent ?? '', Math.round(out)];
    });
  });

/** The rendered height of a chart's first tick label, in px. */
const tickHeight = (page: Page, selector: string): Promise<number> =>
  page
    .locator(selector)
    .first()
    .evaluate((t) => t.getBoundingClientRect().height);

describe.skipIf(!hasChromium)('the Results view fits the window', () => {
  it('keeps the toolbar to one row, the axis titles whole and the timeline text the size of the other charts', async ({
    bridge,
    browser,
  }) => {
    const file = join(bridge.dialogs.saveDir, 'fit.speedmatrix.json');
    // Wide tick labels on both value axes ("1.6M", "16,000"): the axis titles must still fit beside them.
    const session = sampleSession();
    session.prefill[0] = { ...session.prefill[0], tokensPerSecond: 1_234_567, ttftSeconds: 14.2 };
    writeFileSync(file, serializeSession(session));
    for (const scheme of ['light', 'dark'] as const) {
      const { page, problems } = await openPage(browser, bridge.url, { colorScheme: scheme });
      await page.waitForSelector('[data-app-state="ready"]');
      await page.locator('nav button', { hasText: 'Results' }).click();
      bridge.dialogs.openQueue.push(file);
      expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
      await page.getByTestId('heatmap').waitFor();
      for (const size of SIZES) {
        const name = `${size.width}-${scheme}`;
        await page.setViewportSize(size);
        await page.evaluate(() => window.scrollTo(0, 0));
        expect(await toolbarRows(page), `${name}: toolbar rows`).toBe(1);
        await shot(page, `82-results-top-${name}`, false);
        await page.getByTestId('prefill-chart').locator('.g-ytitle').waitFor();
        // Polled: Plotly lays the titles out again once the margins have grown to fit the ticks.
        await expect
          .poll(async () => (await titleOverhangs(page, 'prefill-chart')).filter(([, px]) => px > 1), {
            message: `${name}: prefill axis titles cut`,
          })
          .toEqual([]);
        expect(await titleOverhangs(page, 'prefill-chart')).toHaveLength(3);
        await page.getByTestId('prefill-chart').scrollIntoViewIfNeeded();
        await shot(page, `82-results-prefill-${name}`, false);

        await page.getByTestId('heatmap').locator('[data-cell="8192x1"]').click();
        const timeline = page.getByTestId('cell-timeline');
        await timeline.waitFor();
        await timeline.scrollIntoViewIfNeeded();
        const plotTick = await tickHeight(page, '[data-testid="prefill-chart"] .xtick text');
        const timelineTick = await tickHeight(page, '[data-testid="cell-timeline"] svg > g > text');
        expect(timelineTick / plotTick, `${name}: timeline text against the charts'`).toBeLessThan(1.25);
        await shot(page, `82-results-timeline-${name}`, false);
        await page.keyboard.press('Escape');
      }
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });
});
