/**
 * The desktop app as users meet it, with the real binary through Playwright's _electron: the
 * Edit and Window menus, the view shortcuts, Copy into the real clipboard, and quitting or
 * opening a file with unsaved results (the question is answered by replacing
 * dialog.showMessageBox in main, the usual way to drive a native dialog from a test). The same
 * points run against a stand-in of electron in tests/integration/app/main-process.test.ts. Where
 * node_modules/electron has no binary these are reported as not run, never as passed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElectronApplication, Page } from 'playwright';
import { describe, expect } from 'vitest';
import { createSession } from '../../src-main/platform/session/create';
import { serializeSession } from '../../src-main/platform/session/write';
import { electronTest as it } from '../helpers/electron-fixtures';
import { SYNTHETIC_REPORT } from '../helpers/paths';
import { NOT_RUN, hasElectronBinary } from './electron-binary';
import { answerQuestions, asked } from './main-dialogs';

if (!hasElectronBinary) process.stdout.write(`tests/e2e/desktop: ${NOT_RUN}\n`);

async function importUnsaved(page: Page): Promise<void> {
  const text = readFileSync(SYNTHETIC_REPORT, 'utf8');
  const r = await page.evaluate(
    (t) =>
      (
        window as unknown as {
          speedmatrix: { openSessionData(f: { name: string; text: string }): Promise<{ ok: boolean }> };
        }
      ).speedmatrix.openSessionData({ name: 'reference.txt', text: t }),
    text,
  );
  expect(r.ok).toBe(true);
}

async function clickMenu(app: ElectronApplication, path: string[]): Promise<void> {
  await app.evaluate(({ Menu, BrowserWindow }, p) => {
    let items = Menu.getApplicationMenu()?.items ?? [];
    let item: Electron.MenuItem | undefined;
    for (const label of p) {
      item = items.find((i) => i.label === label || i.role === label.toLowerCase());
      if (!item) throw new Error(`no menu item ${label}`);
      items = item.submenu?.items ?? [];
    }
    item!.click(undefined, BrowserWindow.getAllWindows()[0], undefined as never);
  }, path);
}

describe.skipIf(!hasElectronBinary)(
  `The desktop app (${hasElectronBinary ? 'electron binary found' : NOT_RUN})`,
  () => {
    it('has Edit and Window menus with the standard roles, and View switches views on Ctrl/Cmd+1..4', async ({
      launchElectron,
    }) => {
      const { app, page } = await launchElectron();
      const menu = await app.evaluate(({ Menu }) =>
        (Menu.getApplicationMenu()?.items ?? []).map((i) => ({
          label: i.label,
          roles: (i.submenu?.items ?? []).map((s) => s.role ?? s.label),
          accels: (i.submenu?.items ?? []).map((s) => s.accelerator ?? ''),
        })),
      );
      const edit = menu.find((m) => m.label === 'Edit')!;
      for (const role of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectall'])
        expect(edit.roles.map((r) => r.toLowerCase())).toContain(role);
      expect(menu.some((m) => m.label === 'Window')).toBe(true);
      expect(menu.find((m) => m.label === 'View')!.accels.slice(0, 4)).toEqual([
        'CmdOrCtrl+1',
        'CmdOrCtrl+2',
        'CmdOrCtrl+3',
        'CmdOrCtrl+4',
      ]);
      await clickMenu(app, ['View', 'Run']);
      await page.getByTestId('view-run').waitFor({ timeout: 5_000 });
      await clickMenu(app, ['View', 'Hardware']);
      await page.getByTestId('view-hardware').waitFor({ timeout: 5_000 });
    }, 90_000);

    it('right-click in a text field pops up Cut, Copy, Paste and Select All', async ({ launchElectron }) => {
      const { app, page } = await launchElectron();
      // The native popup cannot be read back; record what main asks it to show.
      await app.evaluate(({ Menu }) => {
        const g = globalThis as unknown as { __popups?: (string | undefined)[][] };
        g.__popups = [];
        Menu.prototype.popup = function (this: Electron.Menu) {
          g.__popups!.push(this.items.map((i) => i.role));
        };
      });
      await page.locator('nav button', { hasText: 'Server' }).click();
      await page.locator('#srv-model').click({ button: 'right' });
      await expect
        .poll(() =>
          app.evaluate(() => (globalThis as unknown as { __popups: (string | undefined)[][] }).__popups.length),
        )
        .toBe(1);
      const roles = (
        await app.evaluate(() => (globalThis as unknown as { __popups: (string | undefined)[][] }).__popups[0])
      ).map((r) => r?.toLowerCase());
      for (const role of ['cut', 'copy', 'paste', 'selectall']) expect(roles).toContain(role);
    }, 90_000);

    it('Copy puts the launch command on the system clipboard and says "Copied"', async ({ launchElectron }) => {
      const { app, page } = await launchElectron();
      await page.locator('nav button', { hasText: 'Server' }).click();
      const preview = await page.getByTestId('command-preview').innerText();
      await page.locator('.preview-head button').click();
      await expect.poll(() => page.locator('.preview-head button').innerText()).toBe('Copied');
      expect(await app.evaluate(({ clipboard }) => clipboard.readText())).toBe(preview);
    }, 90_000);

    it('quitting with unsaved results asks; Cancel keeps the window, Don’t Save quits', async ({ launchElectron }) => {
      const { app, page } = await launchElectron();
      await importUnsaved(page);
      await answerQuestions(app, 2);
      await app.evaluate(({ app: a }) => a.quit());
      await expect.poll(async () => (await asked(app)).length).toBe(1);
      expect((await asked(app))[0].buttons).toEqual(['Save…', "Don't Save", 'Cancel']);
      expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
      await answerQuestions(app, 1);
      const closed = new Promise<void>((r) => app.once('close', () => r()));
      await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0].close());
      await closed;
    }, 90_000);

    it('a second launch’s file replaces unsaved results only after asking', async ({ launchElectron, tempDir }) => {
      const file = join(tempDir('speedmatrix-e2e-desktop-'), 'second.speedmatrix.json');
      writeFileSync(file, serializeSession(createSession({ simulated: true })));
      const { app, page } = await launchElectron();
      await importUnsaved(page);
      await answerQuestions(app, 2);
      await app.evaluate(
        ({ app: a }, f) => a.emit('second-instance', { preventDefault() {} }, ['speedmatrix', f], '/', {}),
        file,
      );
      await expect.poll(async () => (await asked(app)).length).toBe(1);
      expect((await asked(app))[0].message).toMatch(/before opening second\.speedmatrix\.json/);
      const kept = await page.evaluate(() =>
        (
          window as unknown as { speedmatrix: { getSession(): Promise<{ data: { meta: { file: string | null } } }> } }
        ).speedmatrix.getSession(),
      );
      expect(kept.data.meta.file).toBeNull();
    }, 90_000);
  },
);
