/**
 * Shared set-ups as vitest fixtures, so a suite asks for what it needs instead of copying the
 * start and stop code: `webTest` gives the real core behind the WebSocket bridge plus headless
 * Chromium, `simTest` a simulated vLLM server process. Each is started once per file, on the
 * first test that asks for it, and stopped after the file's last test. A file changes the
 * options with `webTest.override('bridgeOptions', { scope: 'file' }, {...})` (or `simOptions`).
 */
import type { Browser } from 'playwright-core';
import { test } from 'vitest';
import { launchChromium } from '../web/browser';
import { type BridgeServer, type BridgeServerOptions, startBridgeServer } from './bridge-server';
import { type SimHandle, type StartSimOptions, startSim } from './sim';

export const webTest = test
  .extend('bridgeOptions', { scope: 'file' }, {} as BridgeServerOptions)
  .extend('bridge', { scope: 'file' }, async ({ bridgeOptions }, { onCleanup }): Promise<BridgeServer> => {
    const bridge = await startBridgeServer(bridgeOptions);
    onCleanup(() => bridge.close());
    return bridge;
  })
  // vitest reads a fixture's dependencies from its destructuring pattern: an empty one means none.
  // eslint-disable-next-line no-empty-pattern
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }): Promise<Browser> => {
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  });

export const simTest = test
  .extend('simOptions', { scope: 'file' }, {} as StartSimOptions)
  .extend('sim', { scope: 'file' }, async ({ simOptions }, { onCleanup }): Promise<SimHandle> => {
    const sim = await startSim(simOptions);
    onCleanup(() => sim.stop());
    return sim;
  });
