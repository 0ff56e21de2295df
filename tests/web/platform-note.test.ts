/**
 * The Server view on a Windows or Mac laptop: choosing vLLM says up front that it cannot be
 * launched on this OS and points to Attach to URL; on Windows the command is copied as PowerShell.
 * The core runs here with its platform set to win32 / darwin; the page is the real renderer.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLaunchNote } from '../../src-main/server/platform-support';
import { type BridgeServer, startBridgeServer } from '../helpers/bridge-server';
import { hasChromium, launchChromium, openPage, shot } from './browser';

describe.runIf(hasChromium)('the Server view says what cannot launch on this OS', () => {
  let browser: Browser;
  const bridges: BridgeServer[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    for (const b of bridges) await b.close();
  });

  for (const platform of ['win32', 'darwin', 'linux'] as const) {
    it(`${platform}: vLLM (native) ${platform === 'linux' ? 'has no note' : 'gets the note'}; the simulator never does`, async () => {
      const bridge = await startBridgeServer({ core: { platform } });
      bridges.push(bridge);
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
