/**
 * The one secure window: context isolation, sandbox, no Node in the page, a CSP (meta tag and
 * response header), navigation and new windows denied, no permissions, external links only
 * through the allowlist.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BrowserWindow, session, shell } from 'electron';
import { EXTERNAL_ALLOWLIST } from '../src-shared/ipc/contract';

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'";

/** The page the window loads: electron-vite's dev server in development, else the built file. */
export function rendererUrl(): string {
  const dev = process.env.ELECTRON_RENDERER_URL;
  return dev ? dev : pathToFileURL(join(__dirname, '../renderer/index.html')).href;
}

/** Once per app: the CSP header on every response, and no permission ever granted. */
export function hardenSession(): void {
  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
}

export function createMainWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 950,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'SpeedMatrix',
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  const url = rendererUrl();
  win.webContents.setWindowOpenHandler(({ url: target }) => {
    if (EXTERNAL_ALLOWLIST.some((p) => target.startsWith(p))) void shell.openExternal(target);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e, target) => {
    if (target !== url) e.preventDefault();
  });
  win.webContents.on('will-redirect', (e) => e.preventDefault());
  win.webContents.on('will-attach-webview', (e) => e.preventDefault());
  win.once('ready-to-show', () => win.show());
  void win.loadURL(url);
  return win;
}
