/**
 * The one secure window: context isolation, sandbox, no Node in the page, a CSP (meta tag and
 * response header), navigation and new windows denied, no permissions, external links only
 * through the allowlist, and the Cut/Copy/Paste menu on text fields.
 */
import { join } from 'node:path';
import { BrowserWindow, app, session, shell } from 'electron';
import { EXTERNAL_ALLOWLIST } from '#shared/ipc/channels';
import { showEditContextMenu } from './context-menu';
import { CSP, devCsp, isDevServerUrl } from './csp';
import { APP_PAGE_URL } from './app-url';
import { type PageHealthDeps, loadPage, watchPageHealth } from './page-health';

export { CSP };

/**
 * The page the window loads: electron-vite's dev server in development, else the built page on
 * the app's own scheme (app-protocol.ts), never file://. A packaged app never follows
 * ELECTRON_RENDERER_URL, so no environment can point it elsewhere.
 */
export function rendererUrl(): string {
  const dev = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
  return dev ? dev : APP_PAGE_URL;
}

/** The policy main sends: the production one, or the dev server's (see csp.ts). */
function cspFor(pageUrl: string): string {
  return isDevServerUrl(pageUrl) ? devCsp(pageUrl) : CSP;
}

/** Once per app: the CSP header on every response, and no permission ever granted. */
export function hardenSession(pageUrl = rendererUrl()): void {
  const ses = session.defaultSession;
  const csp = cspFor(pageUrl);
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
  });
  // Copy goes through main's clipboard (the 'clipboard:write-text' channel), so the page needs none.
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
}

/** The window, watched for a page that dies, hangs or cannot load (app/page-health.ts), then loaded. */
export function createMainWindow(health: PageHealthDeps): BrowserWindow {
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
      // An installed app opens no developer tools; `npm start` and `npm run dev` do.
      devTools: !app.isPackaged,
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
  win.webContents.on('context-menu', (_e, params) => showEditContextMenu(win, params));
  win.once('ready-to-show', () => win.show());
  watchPageHealth(win, health);
  loadPage(win, url);
  return win;
}
