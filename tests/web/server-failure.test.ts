/**
 * A startup failure, in the real renderer against the real supervisor and simulator: the
 * message, the advice and the log lines that caused it, in words a person can act on.
 */
import { describe, expect } from 'vitest';
import { webTest } from '../helpers/fixtures';
import { hasChromium, shot } from './browser';

const it = webTest.override('bridgeOptions', { scope: 'file' }, { core: { stopTimeoutMs: 8000 } });

describe.skipIf(!hasChromium)('server startup failure in Chromium', () => {
  it('shows why the simulator could not start, with the advice and the causing log line', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    // 262,144 tokens per request cannot fit the KV cache left at 20% of the simulated GPU.
    await page.locator('#srv-gpuMemoryUtilization').fill('0.2');
    await page.locator('#srv-simLoad').fill('0.5');
    await page.getByTestId('start-server').click();
    await page.locator('[data-testid="server-status"][data-state="failed"]').waitFor({ timeout: 60_000 });
    const failure = page.getByTestId('server-failure');
    const text = await failure.innerText();
    expect(text).toMatch(/The server did not start/);
    expect(text).toMatch(/max-model-len|KV cache/i);
    expect(await failure.locator('.advice').innerText()).toMatch(/--max-model-len|--gpu-memory-utilization/);
    expect(await failure.locator('pre').innerText()).toMatch(/\S/);
    // The form is usable again: the person can fix the option and start again.
    expect(await page.getByTestId('start-server').isEnabled()).toBe(true);
    await shot(page, '30-server-failed');
  }, 90_000);
});
