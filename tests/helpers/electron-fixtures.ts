/**
 * The real Electron app through Playwright's `_electron`, as vitest fixtures (tests/e2e; they run
 * only where the binary is installed). Kept apart from fixtures.ts so that suites without
 * Electron do not load the full `playwright` package.
 *
 * - `electronApp`: `{ app, page }`, the app launched once for the file with a fresh userData
 *   folder, its window ready; closed after the file's last test.
 * - `launchElectron(extraArgs)`: the app launched for one test (closed when the test ends).
 */
import { type ElectronApplication, type Page, _electron } from 'playwright';
import { closeApp } from '../e2e/main-dialogs';
import { electronBinaryPath } from '../e2e/electron-binary';
import { tempTest } from './fixtures';
import { ROOT } from './paths';

export interface LaunchedApp {
  app: ElectronApplication;
  page: Page;
}

/** Launch the app with its own userData folder and wait until its window is ready. */
async function launch(userData: string, extraArgs: string[], opened: (app: ElectronApplication) => void) {
  const app = await _electron.launch({
    executablePath: electronBinaryPath() as string,
    args: [ROOT, `--user-data-dir=${userData}`, '--no-sandbox', '--disable-gpu', ...extraArgs],
    env: { ...process.env, ELECTRON_ENABLE_LOGGING: '1' },
  });
  opened(app);
  const page = await app.firstWindow();
  await page.waitForSelector('[data-app-state="ready"]', { timeout: 30_000 });
  return { app, page };
}

export const electronTest = tempTest
  .extend('electronApp', { scope: 'file' }, async ({ tempDir }, { onCleanup }): Promise<LaunchedApp> => {
    let launched: ElectronApplication | undefined;
    onCleanup(() => closeApp(launched));
    return launch(tempDir('speedmatrix-e2e-'), [], (app) => (launched = app));
  })
  .extend(
    'launchElectron',
    async ({ tempDir }, { onCleanup }): Promise<(extraArgs?: string[]) => Promise<LaunchedApp>> => {
      // An app the test closed itself is not closed again.
      const open = new Set<ElectronApplication>();
      onCleanup(async () => {
        for (const app of open) await closeApp(app).catch(() => undefined);
      });
      return (extraArgs = []) =>
        launch(tempDir('speedmatrix-e2e-user-'), extraArgs, (app) => {
          open.add(app);
          app.once('close', () => open.delete(app));
        });
    },
  );
