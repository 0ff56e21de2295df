/**
 * The real Electron app through Playwright's _electron: the secure window, the shell with the
 * version over the preload bridge, and the simulator flow. Where node_modules/electron has no
 * binary these tests are reported as not run, never as passed.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { APP_VERSION } from '../../src-main/platform/runtime/app-version';
import { electronTest as it } from '../helpers/electron-fixtures';
import { ARTIFACTS } from '../helpers/paths';
import { NOT_RUN, hasElectronBinary } from './electron-binary';

if (!hasElectronBinary) process.stdout.write(`tests/e2e: ${NOT_RUN}\n`);

describe.skipIf(!hasElectronBinary)(`Electron app (${hasElectronBinary ? 'electron binary found' : NOT_RUN})`, () => {
  it('opens one secure window showing the shell and the version read over the preload bridge', async ({
    electronApp: { app, page },
  }) => {
    expect(await page.getByTestId('app-version').textContent()).toBe(`v${APP_VERSION}`);
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    // The page sees named methods only, and no Node.
    const surface = await page.evaluate(() => ({
      methods: Object.keys((window as unknown as { speedmatrix: object }).speedmatrix).sort(),
      hasRequire: typeof (window as unknown as { require?: unknown }).require,
      hasProcess: typeof (window as unknown as { process?: unknown }).process,
      csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
    }));
    expect(surface.methods).toContain('getAppInfo');
    expect(surface.methods).not.toContain('invoke');
    expect(surface.hasRequire).toBe('undefined');
    expect(surface.hasProcess).toBe('undefined');
    expect(surface.csp).toContain("script-src 'self'");
    // New windows and navigation are denied.
    await page.evaluate(() => window.open('https://example.com'));
    await page.evaluate(() => {
      window.location.href = 'https://example.com';
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    expect(page.url()).toMatch(/^file:.*index\.html/);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e', '01-shell.png') });
  });

  it('starts the simulator and runs a 2 × 3 matrix at sim speed', async ({ electronApp: { page } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.locator('#srv-simSpeed').fill('10');
    await page.locator('#srv-simLoad').fill('1');
    await page.locator('#srv-maxModelLen').fill('32k');
    await page.locator('#srv-gpuMemoryUtilization').fill('0.15');
    await page.locator('#srv-simFlags').fill('--sim-loop-after 10\n--sim-loop-contexts 8K\n--sim-loop-concurrency 2');
    await page.getByTestId('start-server').click();
    await page.locator('[data-testid="server-status"][data-state="ready"]').waitFor({ timeout: 60_000 });
    await page.locator('nav button', { hasText: 'Run' }).click();
    for (const [field, values] of [
      ['contexts', ['8k', '16k']],
      ['concurrency', ['1', '2', '4']],
    ] as const) {
      const chips = page.getByTestId(`chips-${field}`);
      while ((await chips.locator('li.chip').count()) > 0) await chips.locator('li.chip button').first().click();
      for (const v of values) {
        await chips.locator('input').fill(v);
        await chips.locator('input').press('Enter');
      }
    }
    await page.locator('#run-seconds').fill('20');
    await page.locator('#run-maxout').fill('2048');
    await expect
      .poll(() => page.getByTestId('plan-summary').textContent(), { timeout: 10_000 })
      .toMatch(/^5 of 6 cells/);
    await page.getByTestId('start-run').click();
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 150_000 });
    const heat = page.getByTestId('heatmap');
    expect(await heat.locator('[data-cell="8192x2"]').innerText()).toBe('Looped');
    expect(await heat.locator('[data-cell="16384x4"]').innerText()).toBe('Over capacity');
    expect(await heat.locator('[data-kind="value"]').count()).toBe(4);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e', '02-run-done.png') });
  }, 240_000);
});
