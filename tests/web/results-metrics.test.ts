/**
 * The Results heatmap's metric switch and service-level targets, in the real renderer against
 * the real core, on the synthetic report (tests/fixtures/reports): cell text follows the metric, cost needs a GPU price
 * that is remembered, targets grey the cells that miss them and add "Capacity within targets".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { webTest as it } from '../helpers/fixtures';
import { importText } from '../../src-main/workflows/importers';
import { serializeSession } from '../../src-main/platform/session/write';
import type { BridgeServer } from '../helpers/bridge-server';
import { SYNTHETIC_REPORT } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';

async function openReference(page: Page, bridge: BridgeServer): Promise<void> {
  const r = importText(readFileSync(SYNTHETIC_REPORT, 'utf8'), 'synthetic-matrix.txt');
  if (!r.ok) throw new Error(r.error);
  const file = join(bridge.dialogs.saveDir, 'reference.speedmatrix.json');
  writeFileSync(file, serializeSession(r.data));
  bridge.dialogs.openQueue.push(file);
  await page.waitForSelector('[data-app-state="ready"]');
  await page.locator('nav button', { hasText: 'Results' }).click();
  expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
  await page.getByTestId('heatmap').waitFor({ timeout: 10_000 });
}

const cellText = (page: Page, key: string) => page.getByTestId('heatmap').locator(`[data-cell="${key}"]`).innerText();

describe.skipIf(!hasChromium)('Results heatmap metrics and targets in Chromium', () => {
  it('switches the metric: TTFT cells in ms, energy says why it is missing, cost needs a price it remembers', async ({
    bridge,
    browser,
  }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await openReference(page, bridge);
    expect(await cellText(page, '8192x16')).toMatch(/^1,200\.0 tok\/s\s+450 ms TTFT/);
    await page.getByLabel('Show').selectOption('ttft');
    expect(await cellText(page, '8192x16')).toMatch(/^450 ms\s+1,200\.0 tok\/s total/);
    expect(await page.getByTestId('heatmap-key').innerText()).toMatch(/ms TTFT \(median\), darker is lower/);
    await shot(page, '41-results-ttft');
    // No power telemetry in an imported report: energy cannot be chosen, and the option says why.
    const energy = page.getByLabel('Show').locator('option[value="joules-per-token"]');
    expect(await energy.isDisabled()).toBe(true);
    expect(await energy.innerText()).toBe('Energy per output token (not in this session)');
    expect(await energy.getAttribute('title')).toMatch(/no GPU power telemetry/);
    expect(await page.getByLabel('Show').locator('option[value="tokens-per-watt"]').isDisabled()).toBe(true);
    await page.getByLabel('Show').selectOption('cost-per-million');
    expect(await page.getByTestId('metric-unavailable').innerText()).toBe('Give a GPU price per hour to see cost.');
    await page.getByLabel('GPU price per hour').fill('3.6');
    // 3.6 per hour is 0.001 per second; at 1,200 tok/s a million tokens take 833.3 s.
    expect(await cellText(page, '8192x16')).toMatch(/^0\.83\s/);
    // The cost names its currency: US dollars for a bare number, the one named otherwise.
    expect(await page.getByTestId('heatmap').locator('caption').innerText()).toMatch(
      /^Cost per million output tokens \(USD\) · /,
    );
    await page.getByLabel('GPU price per hour').fill('3.6 EUR');
    await expect
      .poll(() => page.getByTestId('heatmap').locator('caption').innerText())
      .toMatch(/^Cost per million output tokens \(EUR\) · /);
    await page.getByLabel('GPU price per hour').fill('abc');
    await expect.poll(() => page.getByLabel('GPU price per hour').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('GPU price per hour').fill('3.6');
    await page.reload();
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('heatmap').waitFor({ timeout: 10_000 });
    await page.getByLabel('Show').selectOption('cost-per-million');
    expect(await page.getByLabel('GPU price per hour').inputValue()).toBe('3.6');
    expect(await cellText(page, '8192x16')).toMatch(/^0\.83\s/);
    expect(problems).toEqual([]);
  });

  it('greys cells that miss the targets and shows the capacity within them; a bad spec is marked at the field', async ({
    bridge,
    browser,
  }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await page.setViewportSize({ width: 1440, height: 1000 });
    await openReference(page, bridge);
    const field = page.getByLabel('Targets');
    expect(await field.getAttribute('placeholder')).toMatch(/ttft-p90<=2s/);
    // 8K: 4 at once (120 ms, 95.2 tok/s) is the most; 16 misses both. 32K: 150 ms alone is already too slow.
    await field.fill('ttft-p90<=140ms,per-request>=80');
    const capacity = page.getByTestId('capacity-table');
    await capacity.waitFor();
    const rows = await capacity
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as HTMLElement).innerText)));
    expect(rows.map((r) => r.slice(0, 2))).toEqual([
      ['8K', '4'],
      ['32K', 'none'],
    ]);
    expect(rows[0][2]).toBe('380.0');
    expect(await page.getByTestId('capacity').innerText()).toMatch(/medians only \(imported\)/);
    const heat = page.getByTestId('heatmap');
    expect(await heat.locator('[data-cell="8192x4"]').getAttribute('data-targets')).toBeNull();
    expect(await heat.locator('[data-cell="8192x16"]').getAttribute('data-targets')).toBe('missed');
    await shot(page, '40-results-targets-1440');
    await field.fill('ttft-p90<=fast');
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#slo-targets-error').innerText()).toMatch(
      /"ttft-p90<=fast": "fast" is not a number with a unit/,
    );
    expect(await page.getByTestId('capacity').count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
