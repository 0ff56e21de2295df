/**
 * The Electron security checklist against the real binary: what the window's options
 * (checked as built in the unit test) must give a page: CSP enforcement, no Node and no raw IPC in the page, navigation, new windows
 * and remote content denied, permissions refused, foreign frames refused by the IPC handlers.
 * Where node_modules/electron has no binary these are reported as not run, never as passed;
 * the same items with electron mocked are in tests/integration/reliability/electron-checklist.test.ts.
 */
import { describe, expect } from 'vitest';
import { electronTest as it } from '../helpers/electron-fixtures';
import { NOT_RUN, hasElectronBinary } from './electron-binary';

if (!hasElectronBinary) process.stdout.write(`tests/e2e/security: ${NOT_RUN}\n`);

describe.skipIf(!hasElectronBinary)(
  `Electron security checklist (${hasElectronBinary ? 'electron binary found' : NOT_RUN})`,
  () => {
    it('the page has no Node, no ipcRenderer, and a bridge of named functions only', async ({
      electronApp: { page },
    }) => {
      const s = await page.evaluate(() => {
        const w = window as unknown as Record<string, unknown>;
        const bridge = w.speedmatrix as Record<string, unknown>;
        return {
          require: typeof w.require,
          process: typeof w.process,
          module: typeof w.module,
          ipc: typeof w.ipcRenderer,
          electron: typeof w.electron,
          nonFunctions: Object.values(bridge).filter((v) => typeof v !== 'function').length,
        };
      });
      expect(s).toEqual({
        require: 'undefined',
        process: 'undefined',
        module: 'undefined',
        ipc: 'undefined',
        electron: 'undefined',
        nonFunctions: 0,
      });
    });

    it("CSP script-src 'self': an injected inline script does not run; remote fetches are blocked", async ({
      electronApp: { page },
    }) => {
      const r = await page.evaluate(async () => {
        const s = document.createElement('script');
        s.textContent = 'window.__inline = 1';
        document.body.appendChild(s);
        let remote = 'blocked';
        try {
          await fetch('https://example.com/');
          remote = 'fetched';
        } catch {
          remote = 'blocked';
        }
        await new Promise((res) => setTimeout(res, 300));
        return { inline: (window as unknown as { __inline?: number }).__inline ?? null, remote };
      });
      expect(r).toEqual({ inline: null, remote: 'blocked' });
    });

    it('window.open and navigation (https, javascript:, file:) are denied; one window stays on the app page', async ({
      electronApp: { app, page },
    }) => {
      await page.evaluate(() => {
        window.open('https://example.com');
        window.open('javascript:alert(1)');
      });
      for (const url of ['https://example.com/', 'file:///etc/passwd']) {
        await page.evaluate((u) => {
          window.location.href = u;
        }, url);
      }
      await new Promise((r) => setTimeout(r, 500));
      expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
      expect(page.url()).toMatch(/^file:.*index\.html/);
    });

    it('permission requests are refused', async ({ electronApp: { page } }) => {
      const state = await page.evaluate(async () => {
        try {
          await navigator.mediaDevices.getUserMedia({ audio: true });
          return 'granted';
        } catch {
          return 'refused';
        }
      });
      expect(state).toBe('refused');
    });

    it('no foreign frame can exist to message the IPC handlers: the main frame is the app page, frame-src none blocks a child', async ({
      electronApp: { app, page },
    }) => {
      const r = await app.evaluate(async ({ BrowserWindow }) => {
        const wc = BrowserWindow.getAllWindows()[0].webContents;
        return wc.mainFrame.url;
      });
      expect(r).toMatch(/^file:.*index\.html/);
      // The page may not create frames (frame-src 'none'), so a foreign frame cannot even exist.
      const framed = await page.evaluate(async () => {
        const f = document.createElement('iframe');
        f.src = 'https://example.com/';
        document.body.appendChild(f);
        await new Promise((res) => setTimeout(res, 500));
        let reachable = false;
        try {
          reachable = Boolean(f.contentWindow?.location.href.startsWith('https://example.com'));
        } catch {
          reachable = false;
        }
        f.remove();
        return reachable;
      });
      expect(framed).toBe(false);
    });
  },
);
