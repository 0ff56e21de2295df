/**
 * Files in the real renderer, against the real core: a session opened from disk renders laid
 * out like the report text it came from; a corrupt file shows the session format's error; strings
 * from a file stay text, never markup.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { webTest as it } from '../helpers/fixtures';
import { importText } from '../../src-main/workflows/importers';
import { serializeSession } from '../../src-main/platform/session/write';
import type { Session } from '#shared/session/schema';
import { cellKey } from '#shared/cell-key';
import { coreSession, expectResultsMatchReport } from '../helpers/results-dom';
import { SYNTHETIC_REPORT } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';

const HOSTILE_IMG = '<img src=x onerror="window.__pwned=1">';
const HOSTILE_SCRIPT = '<script>window.__pwned=2</script>';

function referenceSession(): Session {
  const r = importText(readFileSync(SYNTHETIC_REPORT, 'utf8'), 'synthetic-matrix.txt');
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

async function pickFile(page: Page, name: string, text: string): Promise<void> {
  await page.getByTestId('file-input').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

describe.skipIf(!hasChromium)('session files in Chromium', () => {
  it('opens a session by path and lays it out like the report text it came from', async ({ bridge, browser }) => {
    const file = join(bridge.dialogs.saveDir, 'reference.speedmatrix.json');
    writeFileSync(file, serializeSession(referenceSession()));
    bridge.dialogs.openQueue.push(file);
    const { page, problems } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('results-empty').waitFor();
    // Opening through the core (the test's "dialog" answers with the file), as the app's File > Open does.
    expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
    await page.getByTestId('report').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.getByTestId('report-title').textContent()).toBe('Example-2B on Example GPU 48GB');
    await expect.poll(() => page.getByTestId('file-title').textContent()).toBe('reference.speedmatrix.json');
    await expectResultsMatchReport(page, await coreSession(bridge.core));
    const heat = page.getByTestId('heatmap');
    expect(await heat.locator('[data-cell="8192x16"]').innerText()).toMatch(/1,200\.0 tok\/s\s+450 ms TTFT/);
    expect(await heat.locator('[data-cell="32768x4"]').innerText()).toBe('Looped');
    expect(await heat.locator('[data-cell="32768x16"]').innerText()).toBe('Over capacity');
    expect(await page.getByTestId('heatmap-legend').innerText()).toMatch(
      /Looped: the model kept repeating the same text.*Over capacity: not run because/s,
    );
    await page.getByTestId('prefill-chart').locator('svg').first().waitFor();
    const table = page.getByTestId('measurements');
    expect(await table.locator('thead th').allInnerTexts()).toEqual([
      'Phase',
      'Context',
      'Requests at once',
      'Status',
      'Total tok/s',
      'Per request tok/s',
      'TTFT',
      'Time between tokens',
      'Average active requests',
      'Completed requests',
      'Output tokens',
      'Measured for',
    ]);
    expect(await table.locator('tbody tr').count()).toBe(2 + 6);
    await table.locator('thead button', { hasText: 'Total tok/s' }).click();
    expect(await table.locator('tbody tr').first().locator('td').nth(4).innerText()).toBe('20.0K');
    await shot(page, '10-results-reference');
    // A cell's detail.
    await heat.locator('[data-cell="32768x4"] button').click();
    await page.getByTestId('cell-detail').waitFor();
    expect(await page.getByTestId('cell-detail').innerText()).toMatch(/32K context · 4 requests at once: Looped/);
    expect(problems).toEqual([]);
  });

  it('opens a session dropped onto the window, and reads in the dark theme too', async ({ bridge, browser }) => {
    const { page } = await openPage(browser, bridge.url, { colorScheme: 'dark' });
    await page.waitForSelector('[data-app-state="ready"]');
    const text = serializeSession(referenceSession());
    // A real drop event carrying a File, as the OS delivers it.
    const drop = await page.evaluateHandle((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'dropped.speedmatrix.json', { type: 'application/json' }));
      return dt;
    }, text);
    await page.dispatchEvent('.shell', 'dragover', { dataTransfer: drop });
    await page.dispatchEvent('.shell', 'drop', { dataTransfer: drop });
    await page.getByTestId('report').waitFor();
    expect(await page.locator('nav button[aria-current="page"]').innerText()).toBe('Results');
    expect(await page.getByTestId('report-title').textContent()).toMatch(/^Example-2B on Example GPU/);
    expect(await page.getByTestId('file-title').textContent()).toBe('dropped.speedmatrix.json (not saved here)');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(20, 23, 28)');
    await page.getByTestId('prefill-chart').locator('svg').first().waitFor();
    await shot(page, '13-results-dark');
    // Ctrl+E exports Markdown (in the app the menu's accelerator does this).
    await page.keyboard.press('Control+e');
    await page.getByTestId('last-export').waitFor();
    const md = join(bridge.dialogs.saveDir, 'dropped.md');
    await expect.poll(() => existsSync(md)).toBe(true);
    expect(readFileSync(md, 'utf8')).toMatch(/Looped/);
  });

  it('shows the session format error for a corrupt file, never a blank screen', async ({ bridge, browser }) => {
    const { page } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    const good = serializeSession(referenceSession());
    await pickFile(page, 'broken.speedmatrix.json', good.slice(0, Math.floor(good.length / 2)));
    const err = page.getByTestId('open-error');
    await err.waitFor();
    expect(await err.innerText()).toMatch(/broken\.speedmatrix\.json is not valid JSON.*looks truncated/s);
    await shot(page, '11-corrupt-file');
    // A wrong type deep inside names the field path.
    const doc = JSON.parse(good);
    doc.cells[3].ttft = { p50: 'fast', p90: 1, p99: 1, mean: 1 };
    await pickFile(page, 'wrong.speedmatrix.json', JSON.stringify(doc));
    await expect.poll(() => err.innerText()).toMatch(/field cells\[3\]\.ttft\.p50: expected number, got string/);
    // A newer format is refused, saying so.
    await pickFile(page, 'future.speedmatrix.json', JSON.stringify({ ...JSON.parse(good), formatVersion: 99 }));
    await expect.poll(() => err.innerText()).toMatch(/newer SpeedMatrix \(session format version 99\)/);
    expect(await page.locator('[data-app-state="ready"]').count()).toBe(1);
  });

  it('renders every string from a file as text: no element, no script from it', async ({ bridge, browser }) => {
    const s = referenceSession();
    const looped = s.cells.findIndex((c) => c.status === 'looped');
    const hostile: Session = {
      ...s,
      engine: { ...s.engine, name: HOSTILE_SCRIPT, version: HOSTILE_IMG },
      server: { ...s.server, model: HOSTILE_IMG, servedModel: HOSTILE_IMG, display: `vllm serve ${HOSTILE_SCRIPT}` },
      hardware: { ...s.hardware, gpus: s.hardware.gpus.map((g) => ({ ...g, name: HOSTILE_SCRIPT })) },
      cells: s.cells.map((c, i) =>
        i === looped
          ? {
              ...c,
              reason: HOSTILE_IMG,
              evidence: {
                loopExcerpt: `${HOSTILE_SCRIPT}${HOSTILE_IMG}`,
                loopPeriodChars: 10,
                loopStream: 'content',
                logLines: [HOSTILE_IMG],
              },
            }
          : c,
      ),
    };
    const { page } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    await pickFile(page, 'hostile.speedmatrix.json', serializeSession(hostile));
    await page.getByTestId('report').waitFor();
    await page.locator(`[data-cell="${cellKey(hostile.cells[looped])}"] button`).click();
    await page.getByTestId('loop-evidence').waitFor();
    const title = await page.getByTestId('report-title').textContent();
    expect(title).toContain(HOSTILE_IMG);
    expect(title).toContain(HOSTILE_SCRIPT);
    expect(await page.getByTestId('loop-evidence').textContent()).toBe(`${HOSTILE_SCRIPT}${HOSTILE_IMG}`);
    expect(await page.getByTestId('launch-command').textContent()).toBe(`vllm serve ${HOSTILE_SCRIPT}`);
    const injected = await page.evaluate(() => ({
      imgs: document.querySelectorAll('img').length,
      inlineScripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
    }));
    expect(injected).toEqual({ imgs: 0, inlineScripts: 0, pwned: null });
    await shot(page, '12-hostile-strings-as-text');
  });
});
