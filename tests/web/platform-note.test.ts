/**
 * The Server view on a Windows or Mac laptop: choosing vLLM says up front that it cannot be
 * launched on this OS and points to Attach to URL; on Windows the command is copied as PowerShell.
 * The core runs here with its platform set to win32 / darwin; the page is the real renderer.
 */
import { describe, expect } from 'vitest';
import { localLaunchNote } from '../../src-main/engine/server/platform-support';
import { webTest as it } from '../helpers/fixtures';
import { hasChromium, openPage, shot } from './browser';

describe.runIf(hasChromium)('the Server view says what cannot launch on this OS', () => {
  for (const platform of ['win32', 'darwin', 'linux'] as const) {
    it(`${platform}: vLLM (native) ${platform === 'linux' ? 'has no note' : 'gets the note'}; the simulator never does`, async ({
      browser,
      launchBridge,
    }) => {
      const bridge = await launchBridge({ core: { platform } });
      const { page, problems } = await openPage(browser, bridge.url);
      await page.waitForSelector('[data-app-state="ready"]');
      await page.locator('nav button', { hasText: 'Server' }).click();
      await page.getByTestId('command-preview').waitFor();
      expect(await page.getByTestId('platform-note').count()).toBe(0);
      await page.locator('input[name="kind"][value="vllm-native"]').check();
      await page.locator('#srv-model').fill('Qwen/Qwen3-8B');
      const note = localLaunchNote('vllm-native', platform);
      const copy = page.locator('.preview-head button');
      if (note) {
        await expect.poll(() => page.getByTestId('platform-note').innerText()).toBe(note);
        await shot(page, `40-server-vllm-${platform}`);
      } else {
        await page.getByTestId('command-preview').filter({ hasText: 'Qwen/Qwen3-8B' }).waitFor();
        expect(await page.getByTestId('platform-note').count()).toBe(0);
      }
      await expect.poll(() => copy.innerText()).toBe(platform === 'win32' ? 'Copy as PowerShell' : 'Copy');
      expect(problems).toEqual([]);
    }, 90_000);
  }
});
