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
 * - `coreTest`: everything of `simTest`, and `makeCore(options)`, the app's core in a data folder of
 *   its own, disposed of when the test ends.
 * - `standinTest`: everything of `simTest`, and `bootMain(options)`, which boots the built main
 *   process against the Electron stand-in (tests/integration/app/electron-standin) and kills it after the test.
 * - `sshTest`: `sshHost`, a real sshd on 127.0.0.1 whose sessions run the packed CLI, and
 *   `launchSshd(path)`, one more for the test with another PATH (tests/helpers/sshd.ts);
 *   `sshWebTest`: `webTest` with `sshHost`.
 * - `electronTest` (electron-fixtures.ts): the app in the real Electron binary.
 *
 * How to use them: docs/architecture.md, "Test set-up". File-scoped fixtures start on the first
 * test that asks for them. A file changes the options at its top level with
 * `webTest.override('bridgeOptions', { scope: 'file' }, {...})` (or `simOptions`); the options
 * may also be a fixture function, for set-up that must happen before the start.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { test } from 'vitest';
import { MAIN_BUNDLE, type MainProcess, bootMain, hasMainBundle } from '../integration/app/electron-standin/boot';
import { launchChromium, openPage } from '../web/browser';
import { type BridgeServer, type BridgeServerOptions, startBridgeServer } from './bridge-server';
import { type SimHandle, type StartSimOptions, startSim } from './sim';
import { packAndInstall } from './installed-cli';
import { type Sshd, startSshd } from './sshd';
import { type AppCore, type AppCoreOptions, createAppCore } from '../../src-main/hosts/app-core';
import { noGpu } from './core-sim';

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

/** Starts a simulator for the running test; it is stopped when the test ends. */
export type LaunchSim = (opts?: StartSimOptions) => Promise<SimHandle>;

export const simTest = tempTest
  .extend('simOptions', { scope: 'file' }, {} as StartSimOptions)
  .extend('sim', { scope: 'file' }, async ({ simOptions }, { onCleanup }): Promise<SimHandle> => {
    const sim = await startSim(simOptions);
    onCleanup(() => sim.stop());
    return sim;
  })
  // eslint-disable-next-line no-empty-pattern
  .extend('launchSim', async ({}, { onCleanup }): Promise<LaunchSim> =>
    startedPerTest(startSim, (sim) => sim.stop(), onCleanup),
  );

/** Builds an app core for the running test, in a data folder of its own; both go when the test ends. */
export type MakeCore = (opts?: Partial<AppCoreOptions>) => AppCore;

/**
 * `coreTest`: everything of `simTest`, and `makeCore(options)`: the app's core as the test bridge
 * hosts it (no GPU detected, an 8 s stop limit) unless the options say otherwise.
 */
export const coreTest = simTest.extend('makeCore', async ({ tempDir }, { onCleanup }): Promise<MakeCore> => {
  const cores: AppCore[] = [];
  onCleanup(async () => {
    while (cores.length) await cores.pop()!.dispose();
  });
  return (opts = {}) => {
    const core = createAppCore({
      host: 'bridge',
      dataDir: tempDir('speedmatrix-core-'),
      detectHardware: noGpu,
      stopTimeoutMs: 8000,
      ...opts,
    });
    cores.push(core);
    return core;
  };
});

/** A host reached over ssh, and the folder holding the `speedmatrix` command installed for it. */
export interface SshHost extends Sshd {
  cliBin: string;
}
/** Starts one more sshd for the running test, its sessions on this PATH; stopped when the test ends. */
export type LaunchSshd = (path: string[]) => Promise<Sshd>;

/**
 * `sshHost`: a real sshd on 127.0.0.1 (tests/helpers/sshd.ts) whose sessions find this checkout's
 * packed and installed CLI on their PATH; `launchSshd(path)`: a further one with another PATH.
 */
async function sshHostFixture(
  { tempDir }: { tempDir: (prefix?: string) => string },
  { onCleanup }: { onCleanup: (fn: () => void) => void },
): Promise<SshHost> {
  const dir = tempDir('speedmatrix-ssh-');
  const cliBin = dirname(packAndInstall(dir).command);
  const sshd = await startSshd(join(dir, 'sshd'), [cliBin, dirname(process.execPath), '/usr/bin', '/bin']);
  onCleanup(() => sshd.stop());
  return { ...sshd, cliBin };
}

export const sshTest = tempTest
  .extend('sshHost', { scope: 'file' }, sshHostFixture)
  .extend('launchSshd', async ({ tempDir }, { onCleanup }): Promise<LaunchSshd> => {
    const started: Sshd[] = [];
    onCleanup(() => {
      for (const s of started.splice(0)) s.stop();
    });
    return async (path) => {
      const s = await startSshd(tempDir('speedmatrix-sshd-'), path);
      started.push(s);
      return s;
    };
  });

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
    startedPerTest(startBridgeServer, (bridge) => bridge.close(), onCleanup),
  );

/** The app in Chromium (`webTest`) with `sshHost`, a real sshd whose sessions run the packed CLI. */
export const sshWebTest = webTest.extend('sshHost', { scope: 'file' }, sshHostFixture);

export interface BootMainOptions {
  argv?: string[];
  env?: Record<string, string>;
  /** The app's userData folder, given as --user-data-dir (default: a fresh one, removed after the file; null: none given). */
  userData?: string | null;
  /** Files already in Open Recent, written into userData before the start. */
  recent?: string[];
  /** Another built main bundle (a packaged app's, extracted), run from `cwd`. */
  main?: string;
  cwd?: string;
  /** A pipe on its stdin (MainProcess.writeStdin). */
  stdin?: boolean;
}

/** Boots the main process for the running test; it is killed when the test ends. */
export type BootMain = (opts?: BootMainOptions) => MainProcess;

export const standinTest = simTest.extend('bootMain', async ({ tempDir }, { onCleanup }): Promise<BootMain> => {
  if (!hasMainBundle) throw new Error(`${MAIN_BUNDLE} is missing: run \`npm run build\` first.`);
  const running: MainProcess[] = [];
  onCleanup(() => {
    // MainProcess.kill, not a ChildProcess's: it signals through signalChild (electron-standin/boot.ts).
    // eslint-disable-next-line no-restricted-syntax
    for (const m of running.splice(0)) m.kill();
  });
  return (opts = {}) => {
    const userData = opts.userData === undefined ? tempDir('speedmatrix-main-user-') : opts.userData;
    if (opts.recent && userData) {
      mkdirSync(join(userData, 'core'), { recursive: true });
      writeFileSync(join(userData, 'core', 'recent-files.json'), JSON.stringify(opts.recent));
    }
    const { argv, env, main, cwd, stdin } = opts;
    const m = bootMain({ userData, argv, env, main, cwd, stdin });
    running.push(m);
    return m;
  };
});

/** `standinTest` with `sshHost`: the built (or packaged) main against a real sshd whose sessions run the packed CLI. */
export const standinSshTest = standinTest.extend('sshHost', { scope: 'file' }, sshHostFixture);
