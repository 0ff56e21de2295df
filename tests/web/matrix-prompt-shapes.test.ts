/**
 * The Run view's prompt shapes in real Chromium against the real core and the simulator: an output
 * length distribution and a shared prefix set in the matrix form (a bad length refused in the form's
 * words), run, recorded in the session and shown in Results' Run block; light and dark at 1280 × 800.
 */
import { describe, expect } from 'vitest';
import { webTest } from '../helpers/fixtures';
import { coreSession } from '../helpers/results-dom';
import { setChips } from '../helpers/run-view';
import { hasChromium, shot } from './browser';
import { startSmallSim } from '../helpers/core-sim';

const it = webTest.override('bridgeOptions', { scope: 'file' }, { core: { stopTimeoutMs: 8000 } });

describe.skipIf(!hasChromium)('prompt shapes in the Run view in Chromium with the simulator', () => {
  it.beforeAll(async ({ bridge }) => {
    await startSmallSim(bridge.core, '8k');
  }, 90_000);

  it('runs a matrix with drawn output lengths and a shared prefix, and Results shows both', async ({
    app: { page, problems },
    bridge,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press('Control+3');
    await page.locator('[data-testid="server-status"][data-state="ready"]').first().waitFor({ timeout: 60_000 });
    await setChips(page, 'contexts', ['2k']);
    await setChips(page, 'concurrency', ['2']);
    await page.locator('#run-seconds').fill('4');
    await page.locator('#run-shared-prefix').fill('512');

    // A range that runs backwards is refused by the CLI's own rule, in the form's words.
    await page.locator('#run-output-len').fill('64-16');
    await expect
      .poll(() => page.locator('p.error').first().innerText(), { timeout: 10_000 })
      .toBe(
        'Output length: the range 64-16 runs backwards (e.g. Output length 1024, Output length 512-2048 or Output length 1024~256).',
      );
    await page.locator('#run-output-len').fill('16-64');
    await expect
      .poll(() => page.getByTestId('plan-summary').innerText(), { timeout: 10_000 })
      .toMatch(/^1 of 1 cell to run/);
    expect(await page.locator('#run-maxout').isDisabled()).toBe(true);
    await shot(page, '76-run-prompt-shapes-1280', false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '76-run-prompt-shapes-1280-dark', false);
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByTestId('start-run').click();
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 120_000 });
    const session = await coreSession(bridge.core);
    expect(session.runConfig).toMatchObject({
      outputLength: { kind: 'uniform', min: 16, max: 64 },
      sharedPrefixTokens: 512,
      maxOutputTokens: 64,
    });

    await page.locator('nav button', { hasText: 'Results' }).click();
    const run = page.getByTestId('block-run');
    await run.waitFor();
    const text = await run.innerText();
    expect(text).toMatch(/Output length\s+16-64 tokens, drawn for each request/);
    expect(text).toMatch(/Shared prefix\s+512 tokens first in every prompt/);
    await shot(page, '77-results-prompt-shapes-1280', false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '77-results-prompt-shapes-1280-dark', false);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(problems).toEqual([]);
  }, 240_000);
});
