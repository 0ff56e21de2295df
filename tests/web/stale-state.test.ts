/**
 * What Results shows speaks of what is in front, in the real renderer against the real core: a
 * "could not be opened" banner can be dismissed and goes when a later session opens; "Back to the
 * comparison" appears only on a session that comparison holds.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { webTest as it } from '../helpers/fixtures';
import { serializeSession } from '../../src-main/platform/session/write';
import { importText } from '../../src-main/workflows/importers';
import { SYNTHETIC_REPORT } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';

function referenceText(): string {
  const r = importText(readFileSync(SYNTHETIC_REPORT, 'utf8'), 'synthetic-matrix.txt');
  if (!r.ok) throw new Error(r.error);
  return serializeSession(r.data);
}

async function pickFile(page: Page, name: string, text: string): Promise<void> {
  await page.getByTestId('file-input').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

async function toResults(page: Page): Promise<void> {
  await page.waitForSelector('[data-app-state="ready"]');
  await page.locator('nav button', { hasText: 'Results' }).click();
}

describe.skipIf(!hasChromium)('stale state in Results', () => {
  it('a "could not be opened" banner is dismissed by its button, and goes when a later session opens', async ({
    bridge,
    browser,
  }) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, problems } = await openPage(browser, bridge.url, { colorScheme });
      await toResults(page);
      const good = referenceText();
      await pickFile(page, 'broken.speedmatrix.json', good.slice(0, 200));
      const err = page.getByTestId('open-error');
      await err.waitFor();
      await shot(page, `90-open-error-dismiss-${colorScheme}`, false);
      await page.getByTestId('dismiss-open-error').click();
      await expect.poll(() => err.count()).toBe(0);
      // Refused again, then a session opened some other way (File > Open in the app's menu, a run's end).
      await pickFile(page, 'broken.speedmatrix.json', good.slice(0, 200));
      await err.waitFor();
      const file = join(bridge.dialogs.saveDir, `later-${colorScheme}.speedmatrix.json`);
      writeFileSync(file, good);
      expect((await bridge.core.invoke('session:open', [file])).ok).toBe(true);
      await expect
        .poll(() => page.getByTestId('file-title').textContent())
        .toBe(`later-${colorScheme}.speedmatrix.json`);
      // The title comes with the session's name, the banner goes with its view: two updates, in either order.
      await expect.poll(() => err.count()).toBe(0);
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it('"Back to the comparison" shows on a session the comparison holds, not on an unrelated one', async ({
    bridge,
    browser,
  }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await toResults(page);
    const text = referenceText();
    const [a, b, other] = ['a', 'b', 'other'].map((n) => join(bridge.dialogs.saveDir, `${n}.speedmatrix.json`));
    for (const f of [a, b, other]) writeFileSync(f, text);
    bridge.dialogs.pathsQueue.push([a, b]);
    await page.getByTestId('compare-sessions').click();
    await expect.poll(() => page.getByTestId('comparison-title').innerText()).toBe('Comparison of 2 sessions');
    await page.getByTestId('open-entry-B').click();
    await expect.poll(() => page.getByTestId('file-title').textContent()).toBe('b.speedmatrix.json');
    const back = page.getByTestId('show-comparison');
    expect(await back.count()).toBe(1);
    await shot(page, '91-back-to-comparison', false);
    expect((await bridge.core.invoke('session:open', [other])).ok).toBe(true);
    await expect.poll(() => page.getByTestId('file-title').textContent()).toBe('other.speedmatrix.json');
    expect(await back.count()).toBe(0);
    await pickFile(page, 'unrelated.speedmatrix.json', text);
    await expect.poll(() => page.getByTestId('file-title').textContent()).toMatch(/^unrelated/);
    expect(await back.count()).toBe(0);
    // One of its own sessions again: the way back returns.
    expect((await bridge.core.invoke('session:open', [a])).ok).toBe(true);
    await expect.poll(() => back.count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('an imported file left unchanged is not unsaved: the next Open asks nothing', async ({ bridge, browser }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await toResults(page);
    const asked: string[] = [];
    page.on('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByTestId('file-input').setInputFiles({
      name: 'synthetic-matrix.txt',
      mimeType: 'text/plain',
      buffer: readFileSync(SYNTHETIC_REPORT),
    });
    await expect.poll(() => page.getByTestId('file-title').textContent()).toBe('synthetic-matrix.txt (not saved here)');
    expect(await page.title()).toBe('synthetic-matrix.txt (not saved here) — SpeedMatrix');
    await pickFile(page, 'next.speedmatrix.json', referenceText());
    await expect.poll(() => page.getByTestId('file-title').textContent()).toMatch(/^next\.speedmatrix\.json/);
    expect(asked).toEqual([]);
    expect(problems).toEqual([]);
  });
});
