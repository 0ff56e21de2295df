/**
 * Shared set-ups as vitest fixtures, so a suite asks for what it needs instead of copying the
 * start and stop code. Everything a fixture starts is stopped, and every folder it makes is
 * removed, when its scope ends, whether the tests passed or failed.
 *
 * - `tempTest`: `tempDir(prefix)` makes a fresh folder under the OS temp dir (removed after the file).
 * - `simTest`: `sim`, one simulated vLLM server process for the file (options: `simOptions`), and
 *   `launchSim(options)`, which starts one for the test and stops it after the test.
 * - `webTest`: the real core behind the WebSocket bridge (`bridge`, options: `bridgeOptions`),
 *   headless Chromium (`browser`), `app`, one page of the app opened on the bridge and ready,
 *   shared by the file's tests, and `launchBridge(options)` for a further bridge in one test.
 *
 * File-scoped fixtures start on the first test that asks for them. A file changes the options
 * with `webTest.override('bridgeOptions', { scope: 'file' }, {...})` (or `simOptions`); the
 * options may also be a fixture function, for set-up that must happen before the start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { test } from 'vitest';
import { launchChromium, openPage } from '../web/browser';
import { type BridgeServer, type BridgeServerOptions, startBridgeServer } from './bridge-server';
import { type SimHandle, type StartSimOptions, startSim } from './sim';

/** Start something for one test and stop it when the test ends, in reverse order of start. */
function startedPerTest<O, H>(
  start: (opts?: O) => Promise<H>,
  stop: (h: H) => Promise<void>,
  onCleanup: (fn: () => Promise<void>) => void,
): (opts?: O) => Promise<H> {
  const started: H[] = [];
  onCleanup(async () => {
    while (started.length) await stop(started.pop()!);
  });
  return async (opts) => {
    const h = await start(opts);
    started.push(h);
    return h;
  };
}

export const tempTest = test.extend(
  'tempDir',
  { scope: 'file' },
  // vitest reads a fixture's dependencies from its destructuring pattern: an empty one means none.
  // eslint-disable-next-line no-empty-pattern
  async ({}, { onCleanup }): Promise<(prefix?: string) => string> => {
    const made: string[] = [];
    onCleanup(() => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
    return (prefix = 'speedmatrix-test-') => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    };
  },
);

export const simTest = tempTest
  .extend('simOptions', { scope: 'file' }, {} as StartSimOptions)
  .extend('sim', { scope: 'file' }, async ({ simOptions }, { onCleanup }): Promise<SimHandle> => {
    const sim = await startSim(simOptions);
    onCleanup(() => sim.stop());
    return sim;
  })
  // eslint-disable-next-line no-empty-pattern
  .extend('launchSim', async ({}, { onCleanup }) =>
    startedPerTest(
      (opts: StartSimOptions = {}) => startSim(opts),
      (sim) => sim.stop(),
      onCleanup,
    ),
  );

/** A page of the app, and the console errors and CSP violations it logged so far. */
export interface AppPage {
  page: Page;
  problems: string[];
}

export const webTest = tempTest
  .extend('bridgeOptions', { scope: 'file' }, {} as BridgeServerOptions)
  .extend('bridge', { scope: 'file' }, async ({ bridgeOptions }, { onCleanup }): Promise<BridgeServer> => {
    const bridge = await startBridgeServer(bridgeOptions);
    onCleanup(() => bridge.close());
    return bridge;
  })
  // eslint-disable-next-line no-empty-pattern
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }): Promise<Browser> => {
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  })
  // Closed with the browser.
  .extend('app', { scope: 'file' }, async ({ bridge, browser }): Promise<AppPage> => {
    const app = await openPage(browser, bridge.url);
    await app.page.waitForSelector('[data-app-state="ready"]');
    return app;
  })
  // eslint-disable-next-line no-empty-pattern
  .extend('launchBridge', async ({}, { onCleanup }) =>
    startedPerTest(
      (opts: BridgeServerOptions = {}) => startBridgeServer(opts),
      (bridge) => bridge.close(),
      onCleanup,
    ),
  );
