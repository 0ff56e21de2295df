/**
 * The shell as a person meets it in real Chromium: the Run view's matrix is never clipped from
 * 1024 px wide up, views switch with Ctrl+1..4, Escape closes a cell's detail, and removing a
 * chip keeps the keyboard focus in the chips.
 */
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { serializeSession } from '../../src-main/platform/session/write';
import { webTest as it } from '../helpers/fixtures';
import { setChips } from '../helpers/run-view';
import { sampleSession } from '../helpers/sample-session';
import { hasChromium, shot } from './browser';

/** How far the heatmap's last column reaches past what its panel shows (0 when all of it is visible). */
async function heatmapClipped(page: Page): Promise<{ hidden: number; lastColumn: string }> {
  return page.evaluate(() => {
    const wrap = document.querySelector<HTMLElement>('[data-testid="run-heatmap"] .heatmap-wrap');
    const heads = [...(wrap?.querySelectorAll('thead th') ?? [])];
    const last = heads[heads.length - 1] as HTMLElement | undefined;
    if (!wrap || !last) return { hidden: -1, lastColumn: '' };
    const box = wrap.getBoundingClientRect();
    const col = last.getBoundingClientRect();
    return {
      hidden: Math.max(0, wrap.scrollWidth - wrap.clientWidth, col.right - Math.min(box.right, window.innerWidth)),
      lastColumn: last.textContent ?? '',
    };
  });
}

describe.skipIf(!hasChromium)('layout and keyboard in Chromium', () => {
  for (const width of [1024, 1280, 1440, 1920]) {
    it(`shows every column of the 6 × 8 seed matrix at ${width} px wide`, async ({ app: { page } }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.locator('nav button', { hasText: 'Run' }).click();
      await page
        .getByTestId('run-heatmap')
        .locator('[data-cell="262144x128"], [data-cell="257024x128"]')
        .first()
        .waitFor({ timeout: 10_000 });
      const clip = await heatmapClipped(page);
      expect(clip.lastColumn).toMatch(/128/);
      expect(clip.hidden).toBe(0);
      if (width === 1024 || width === 1440) await shot(page, `50-run-plan-${width}`, false);
    });
  }

  it('switches views with Ctrl+1..4 and names the shortcut on each view button', async ({ app: { page } }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const current = () => page.locator('nav button[aria-current="page"]').innerText();
    await page.keyboard.press('Control+2');
    await expect.poll(current).toMatch(/Server/);
    await page.keyboard.press('Control+4');
    await expect.poll(current).toMatch(/Results/);
    await page.keyboard.press('Control+1');
    await expect.poll(current).toMatch(/Hardware/);
    await page.keyboard.press('Control+3');
    await expect.poll(current).toMatch(/Run/);
    expect(await page.locator('nav button', { hasText: 'Server' }).getAttribute('title')).toMatch(/Ctrl\+2|⌘\+2/);
  });

  it('keeps the focus in the chips after removing one with the keyboard', async ({ app: { page } }) => {
    // The default requests at once are automatic, with no chips: the person's own levels first.
    await page.keyboard.press('Control+3');
    await setChips(page, 'concurrency', ['1', '2', '4']);
    const chips = page.getByTestId('chips-concurrency');
    const before = await chips.locator('li.chip').count();
    await chips.locator('li.chip button').nth(1).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => chips.locator('li.chip').count()).toBe(before - 1);
    await expect
      .poll(() =>
        page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName),
      )
      .toMatch(/^Remove \d+$/);
    // The focused button is the chip that moved into the removed one's place.
    const inPlace = await chips.locator('li.chip button').nth(1).getAttribute('aria-label');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(inPlace);
  });

  it('closes the cell detail with Escape', async ({ app: { page } }) => {
    await page.getByTestId('file-input').setInputFiles({
      name: 'sample.speedmatrix.json',
      mimeType: 'application/json',
      buffer: Buffer.from(serializeSession(sampleSession())),
    });
    await page.getByTestId('report').waitFor({ timeout: 10_000 });
    const cell = page.getByTestId('heatmap').locator('[data-cell] button').first();
    await cell.click();
    const detail = page.locator('.cell-detail');
    await detail.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => detail.count()).toBe(0);
  });
});
