/**
 * A finished cell reaches the page as a run update and is applied once: in real Chromium against
 * the real core and the simulated vLLM server (its own process, through the supervisor), the Run
 * view's heatmap and the Results view show every cell as it finishes, while the page asks for the
 * whole session ('session:get') only when main replaced it (the run's start and end), however
 * many cells the run has. After the run, what the page shows equals a fresh 'session:get'.
 */
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import type { AppCore } from '../../src-main/hosts/app-core';
import { cellKey } from '#shared/cell-key';
import { buildReportModel } from '#shared/report/report-model';
import type { Session } from '#shared/session/schema';
import { webTest } from '../helpers/fixtures';
import { coreSession, expectResultsMatchReport, readResults } from '../helpers/results-dom';
import { setChips } from '../helpers/run-view';
import { hasChromium, openPage, shot } from './browser';
import { startSmallSim } from '../helpers/core-sim';

/** 2K and 4K × 1, 2 and 4 requests at once. */
const CELLS = 6;
const it = webTest.override('bridgeOptions', { scope: 'file' }, { core: { stopTimeoutMs: 8000 } });

/** The cells a heatmap draws as finished (a figure or a status word), by key, sorted. */
const finishedIn = (page: Page, heatmap: string): Promise<string[]> =>
  page
    .getByTestId(heatmap)
    .locator('td[data-kind="value"], td[data-kind="status"]')
    .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-cell') ?? '').sort());

/** The cells main's session holds now, and when it was last replaced (the test asks the core itself: not counted). */
async function inCore(core: AppCore): Promise<{ cells: string[]; replaced: number }> {
  const r = await core.invoke('session:get', []);
  if (!r.ok) throw new Error(r.error);
  return { cells: r.data.session?.cells.map(cellKey).sort() ?? [], replaced: r.data.meta.replaced };
}

/** The Results view says what the report model says for main's session right now. */
async function resultsMatchCore(page: Page, session: Session): Promise<boolean> {
  const report = buildReportModel(session);
  const screen = await readResults(page);
  return (
    screen.title === report.title &&
    JSON.stringify(screen.rows) === JSON.stringify(report.measurements.rows) &&
    JSON.stringify(screen.blocks) === JSON.stringify(report.blocks.map((b) => ({ title: b.title, rows: b.rows })))
  );
}

describe.skipIf(!hasChromium)('finished cells travel to the page as events', () => {
  it('shows every cell as it finishes with a fixed number of session fetches, and ends equal to a fresh fetch', async ({
    bridge,
    browser,
  }) => {
    const { core, invoked } = bridge;
    await startSmallSim(core, '16k');
    const { page, problems } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.keyboard.press('Control+3');
    await page.locator('[data-testid="server-status"][data-state="ready"]').first().waitFor({ timeout: 60_000 });
    await setChips(page, 'contexts', ['2k', '4k']);
    await setChips(page, 'concurrency', ['1', '2', '4']);
    await page.locator('#run-seconds').fill('10');
    await page.locator('#run-maxout').fill('256');
    await expect
      .poll(() => page.getByTestId('plan-summary').innerText(), { timeout: 10_000 })
      .toMatch(/^6 of 6 cells to run · prefill at 2K, 4K/);

    const fetches = () => invoked['session:get'] ?? 0;
    const before = fetches();
    await page.getByTestId('start-run').click();
    await page.locator('[data-testid="run-phase"]:not([data-phase="idle"])').first().waitFor({ timeout: 10_000 });

    // Each time main's session holds another finished cell, both views show it. The page's fetch count is
    // noted for the cells shown while the session was the one the run's start wrote (its end replaces it).
    const fetchesAtCell: number[] = [];
    let startReplaced: number | null = null;
    let shown = 0;
    const isDone = () => page.locator('[data-testid="run-phase"][data-phase="done"]').count();
    for (let end = Date.now() + 240_000; shown < CELLS;) {
      if (Date.now() > end) throw new Error(`only ${shown} of ${CELLS} cells finished`);
      const now = await inCore(core);
      if (now.cells.length > shown) {
        startReplaced ??= now.replaced;
        await expect
          .poll(() => finishedIn(page, 'run-heatmap'), { timeout: 10_000 })
          .toEqual(expect.arrayContaining(now.cells));
        await page.keyboard.press('Control+4');
        await expect
          .poll(() => finishedIn(page, 'heatmap'), { timeout: 10_000 })
          .toEqual(expect.arrayContaining(now.cells));
        // The session the page built from events says what main's says (same cells, same figures).
        await expect.poll(async () => resultsMatchCore(page, await coreSession(core)), { timeout: 10_000 }).toBe(true);
        await page.keyboard.press('Control+3');
        const count = fetches();
        if ((await inCore(core)).replaced === startReplaced) fetchesAtCell.push(count);
        shown = now.cells.length;
      } else if (await isDone()) break;
      await page.waitForTimeout(150);
    }
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 120_000 });
    await shot(page, '63-run-cells-as-events', false);

    // The final session comes once, with the run's end; the fetch count settles.
    await expect.poll(fetches, { timeout: 5_000 }).toBeGreaterThan(before);
    await page.waitForTimeout(1000);
    const during = fetches() - before;
    console.log(
      `session:get during a ${CELLS}-cell run: ${during} (at each cell shown live: ${fetchesAtCell.join(', ')})`,
    );
    // The run's start and its end replace the session: two fetches, perhaps one more in a race; none per cell.
    expect(during).toBeLessThanOrEqual(3);
    expect(fetchesAtCell.length).toBeGreaterThanOrEqual(3);
    expect(new Set(fetchesAtCell).size).toBe(1);

    // What the page shows equals a fresh session:get: the Results view, and the Run view's cells.
    const final = await coreSession(core);
    expect(final.cells).toHaveLength(CELLS);
    expect(await finishedIn(page, 'run-heatmap')).toEqual(final.cells.map(cellKey).sort());
    expect(await page.locator('.run-prefill').innerText()).not.toMatch(/No prefill points yet/);
    await page.keyboard.press('Control+4');
    await expectResultsMatchReport(page, final);
    expect(await finishedIn(page, 'heatmap')).toEqual(final.cells.map(cellKey).sort());
    expect(problems).toEqual([]);
  }, 300_000);
});
