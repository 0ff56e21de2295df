/**
 * Stop, reload and Resume in real Chromium against the real core and simulator: the Run view
 * never contradicts itself, plans only the prefill asked for, and a resumed run keeps its
 * finished cells and prefill points in view while it measures the rest.
 */
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { webTest } from '../helpers/fixtures';
import { hasChromium, shot } from './browser';
import { setChips } from '../helpers/run-view';
import { startSmallSim } from '../helpers/core-sim';

const it = webTest.override('bridgeOptions', { scope: 'file' }, { core: { stopTimeoutMs: 8000 } });

/** Cells with measured figures. */
const measured = (page: Page) => page.getByTestId('run-heatmap').locator('td[data-kind="value"]');

describe.skipIf(!hasChromium)('stop, reload and resume a run in Chromium', () => {
  // The server is started before the page opens, then the page waits in the Run view until it is ready.
  it.beforeAll(async ({ bridge }) => {
    await startSmallSim(bridge.core, '16k');
  }, 90_000);
  it.beforeAll(async ({ app: { page } }) => {
    await page.keyboard.press('Control+3');
    await page.locator('[data-testid="server-status"][data-state="ready"]').first().waitFor({ timeout: 60_000 });
  }, 90_000);

  it('plans prefill only at the contexts picked, and shows them', async ({ app: { page } }) => {
    await setChips(page, 'contexts', ['4k']);
    await setChips(page, 'concurrency', ['1', '2', '4']);
    await page.locator('#run-seconds').fill('20');
    await page.locator('#run-maxout').fill('512');
    const summary = page.getByTestId('plan-summary');
    await expect
      .poll(() => summary.innerText(), { timeout: 10_000 })
      .toMatch(/^3 of 3 cells to run · prefill at 4K · about/);
    expect(await page.getByTestId('chips-prefill').innerText()).toMatch(/4K/);
    expect(await page.getByTestId('chips-prefill').innerText()).not.toMatch(/256K/);
  });

  it('after Stop: progress, Resume and the plan agree, and a cancelled cell is not counted done', async ({
    app: { page },
  }) => {
    await page.getByTestId('start-run').click();
    await expect.poll(() => measured(page).count(), { timeout: 90_000 }).toBeGreaterThan(0);
    await page.getByTestId('stop-run').click();
    await page.locator('[data-testid="run-phase"][data-phase="cancelled"]').waitFor({ timeout: 30_000 });
    const progress = await page.getByTestId('run-progress').innerText();
    const m = /(\d+) of 3 cells/.exec(progress);
    expect(m).not.toBeNull();
    const done = Number(m?.[1]);
    const valid = await measured(page).count();
    expect(done).toBe(valid);
    const resume = page.getByTestId('resume-run');
    await expect.poll(() => resume.innerText()).toBe(`Resume (${3 - done} cell${3 - done === 1 ? '' : 's'} left)`);
    expect(await resume.getAttribute('class')).toMatch(/primary/);
    expect((await page.getByTestId('start-run').getAttribute('class')) ?? '').not.toMatch(/primary/);
    expect(await page.getByTestId('plan-summary').innerText()).toMatch(/^A new run: 3 of 3 cells/);
    await shot(page, '60-run-stopped', false);
  }, 150_000);

  it('after a reload the form shows the run that is on screen', async ({ app: { page } }) => {
    await page.reload();
    await page.waitForSelector('[data-app-state="ready"]');
    await page.keyboard.press('Control+3');
    await expect
      .poll(() => page.getByTestId('chips-contexts').locator('li.chip').allInnerTexts())
      .toEqual([expect.stringMatching(/^4K/)]);
    expect(
      (await page.getByTestId('chips-concurrency').locator('li.chip').allInnerTexts()).map((t) =>
        t.replace('×', '').trim(),
      ),
    ).toEqual(['1', '2', '4']);
    expect(await page.locator('#run-seconds').inputValue()).toBe('20');
  });

  it('keeps the finished cells and prefill points in view while the resumed run measures the rest', async ({
    app: { page },
  }) => {
    const before = await measured(page).count();
    expect(before).toBeGreaterThan(0);
    // Every text the progress bar shows from the click on: the stopped run's count and clock are not the resumed one's.
    await page.evaluate(() => {
      const seen: { ms: number; text: string }[] = [];
      const start = performance.now();
      (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
      const note = () => {
        const bar = document.querySelector('[data-testid="run-progress"]') as HTMLElement | null;
        if (bar && seen[seen.length - 1]?.text !== bar.innerText)
          seen.push({ ms: performance.now() - start, text: bar.innerText });
      };
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByTestId('resume-run').click();
    await page
      .locator(
        '[data-testid="run-phase"][data-phase="decode"], [data-testid="run-phase"][data-phase="prefill"], [data-testid="run-phase"][data-phase="starting"]',
      )
      .first()
      .waitFor();
    // While it runs, nothing measured before disappears, and the prefill chart keeps its point.
    for (let i = 0; i < 6; i++) {
      expect(await measured(page).count()).toBeGreaterThanOrEqual(before);
      await page.waitForTimeout(300);
    }
    await expect
      .poll(() => page.locator('.run-prefill').innerText(), { timeout: 20_000 })
      .not.toMatch(/No prefill points yet/);
    const progress = await page.getByTestId('run-progress').innerText();
    expect(progress).toMatch(new RegExp(`^${before} of 3 cells|^[${before}-3] of 3 cells`));
    const seen = await page.evaluate(
      () => (window as unknown as { progressSeen: { ms: number; text: string }[] }).progressSeen,
    );
    expect(seen.length).toBeGreaterThan(0);
    // The stopped run took over 20 s; in its first seconds the resumed one is far from finishing.
    const early = seen.filter((e) => e.ms < 3000).map((e) => e.text);
    expect(early.filter((t) => /finishing|\d\d s elapsed|min.* elapsed/.test(t))).toEqual([]);
    await shot(page, '61-run-resumed', false);
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 120_000 });
    expect(await measured(page).count()).toBe(3);
    expect(await page.getByTestId('resume-run').isDisabled()).toBe(true);
    expect(await page.getByTestId('start-run').getAttribute('class')).toMatch(/primary/);
    expect(await page.getByTestId('run-progress').innerText()).toMatch(/^3 of 3 cells \(100%\)/);
    await shot(page, '62-run-done', false);
    // The same matrix planned again keeps the run's count; another matrix is not that run's.
    await page.waitForTimeout(1000);
    expect(await page.getByTestId('run-progress').innerText()).toMatch(/^3 of 3 cells \(100%\)/);
    await setChips(page, 'concurrency', ['1', '2']);
    await expect.poll(() => page.getByTestId('plan-summary').innerText()).toMatch(/2 cells/);
    expect(await page.getByTestId('run-progress').count()).toBe(0);
    await shot(page, '63-run-new-plan', false);
  }, 180_000);
});
