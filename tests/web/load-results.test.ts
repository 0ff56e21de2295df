/**
 * A load session in the Results view of the real renderer, against the real core: the load
 * section's answer and table as the report model gives them, in place of the matrix's prefill,
 * heatmap and measurements. The session is another tool's file (vLLM bench serve), imported.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { loadSection } from '#shared/report/load-model';
import { importText } from '../../src-main/workflows/importers';
import { serializeSession } from '../../src-main/platform/session/write';
import { webTest as it } from '../helpers/fixtures';
import { ROOT } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';

describe.skipIf(!hasChromium)('load sessions in Chromium', () => {
  it('Results shows the load answer and one row per pass, and no matrix', async ({ bridge, browser }) => {
    const name = 'vllm-bench-serve-rate4.json';
    const imported = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
    if (!imported.ok) throw new Error(imported.error);
    const file = join(bridge.dialogs.saveDir, 'load.speedmatrix.json');
    writeFileSync(file, serializeSession(imported.data));
    bridge.dialogs.openQueue.push(file);
    const { page, problems } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
    await page.getByTestId('load').waitFor({ timeout: 10_000 });
    const section = loadSection(imported.data.load!);
    expect(await page.getByTestId('load-answer').innerText()).toBe(section.answer);
    const table = page.getByTestId('load-table');
    expect(await table.locator('thead th').allInnerTexts()).toEqual(section.table.header);
    expect(await table.locator('tbody tr').first().locator('th, td').allInnerTexts()).toEqual(section.table.rows[0]);
    expect(await page.getByTestId('load').innerText()).toContain(
      '4.0 req/s: not kept up: completed 3.2 req/s of 4.0 offered.',
    );
    expect(await page.getByTestId('heatmap').count()).toBe(0);
    expect(await page.getByTestId('measurements').count()).toBe(0);
    // Every column of the table is in view at 1400 px and at 1024 px: none is cut off behind a scroll.
    for (const width of [1400, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      await table.scrollIntoViewIfNeeded();
      await shot(page, `84-load-table-${width}`, false);
      const hidden = await table.evaluate((t) => {
        const wrap = t.parentElement!;
        return { scroll: wrap.scrollWidth - wrap.clientWidth, page: document.documentElement.scrollWidth - innerWidth };
      });
      expect(hidden, `${width} px`).toEqual({ scroll: 0, page: 0 });
    }
    expect(problems).toEqual([]);
  });
});
