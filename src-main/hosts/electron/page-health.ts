/**
 * When the window's page dies, fails to load, hangs or loses its preload bridge. Everything the
 * app holds (the session, a run, the server) lives in main, so reloading the page loses
 * nothing: a crashed page is reloaded and then told what happened; one that keeps crashing, or
 * cannot load at all, gets a question (Reload / Quit); a hung page, Wait / Reload. The window is
 * always shown, so a page that died before its first paint does not leave an invisible app.
 */
import { type BrowserWindow, type MessageBoxOptions, type RenderProcessGoneDetails, dialog } from 'electron';
import type { Notice } from '#shared/ipc/contract';

/** More crashes than this within CRASH_WINDOW_MS: stop reloading on its own and ask. */
const MAX_AUTO_RELOADS = 2;
const CRASH_WINDOW_MS = 60_000;
/** Chromium's "the load was aborted" (a navigation replaced it): not a failure. */
const ERR_ABORTED = -3;

export interface PageHealthDeps {
  notify(n: Notice): void;
  /** The person chose Quit. */
  quit(): void;
}

export function watchPageHealth(win: BrowserWindow, deps: PageHealthDeps): void {
  const wc = win.webContents;
  const crashes: number[] = [];
  const reveal = (): void => {
    if (win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.show();
  };
  const ask = (o: MessageBoxOptions) => dialog.showMessageBox(win, { noLink: true, ...o });
  const reloadOrQuit = async (message: string, detail: string): Promise<void> => {
    const { response } = await ask({ type: 'error', message, detail, buttons: ['Reload', 'Quit'], cancelId: 1 });
    if (win.isDestroyed()) return;
    if (response === 0) wc.reload();
    else deps.quit();
  };

  wc.on('render-process-gone', (_e, details: RenderProcessGoneDetails) => {
    if (details.reason === 'clean-exit') return;
    reveal();
    const now = Date.now();
    crashes.push(now);
    while (crashes.length && crashes[0] < now - CRASH_WINDOW_MS) crashes.shift();
    const what = `The SpeedMatrix page stopped (${details.reason}, exit code ${details.exitCode}).`;
    console.error(what);
    if (crashes.length > MAX_AUTO_RELOADS) {
      void reloadOrQuit(
        `${what} It stopped ${crashes.length} times in the last minute.`,
        'Your results, any run and the server are kept in the background. Reload the page to try again.',
      );
      return;
    }
    wc.once('did-finish-load', () =>
      deps.notify({
        level: 'error',
        message: `${what} It was reloaded; your results, any run and the server were not affected.`,
      }),
    );
    wc.reload();
  });

  wc.on('did-fail-load', (_e, code, description, url, isMainFrame) => {
    if (!isMainFrame || code === ERR_ABORTED) return;
    reveal();
    console.error(`The SpeedMatrix page could not load: ${description} (${code}) ${url}`);
    void reloadOrQuit(
      'The SpeedMatrix page could not load.',
      `${description} (${code}) loading ${url}. If it happens again, SpeedMatrix's files may be damaged: reinstall it.`,
    );
  });

  wc.on('preload-error', (_e, preloadPath, error) => {
    reveal();
    console.error(`The SpeedMatrix preload ${preloadPath} failed:`, error);
    void reloadOrQuit(
      'The SpeedMatrix page lost its connection to the app.',
      `Its preload script failed (${error.message}), so the page cannot reach your results or the server. This is a bug: please report it with this message.`,
    );
  });

  let hung: AbortController | null = null;
  win.on('unresponsive', () => {
    if (hung) return;
    hung = new AbortController();
    const closed = hung.signal;
    void ask({
      type: 'warning',
      message: 'The SpeedMatrix window is not responding.',
      detail:
        'A run and the server go on in the background. Wait for the page, or reload it: nothing is lost, your results are kept by the app.',
      buttons: ['Wait', 'Reload'],
      defaultId: 0,
      cancelId: 0,
      signal: closed,
    }).then(({ response }) => {
      hung = null;
      // A hung renderer cannot reload itself: end it, and 'render-process-gone' reloads it.
      if (response === 1 && !closed.aborted && !win.isDestroyed()) wc.forcefullyCrashRenderer();
    });
  });
  // The page came back: the question closes by itself (as if answered Wait).
  win.on('responsive', () => hung?.abort());
}

/** A page load the 'did-fail-load' handler above reports; the promise's rejection says nothing more. */
export function loadPage(win: BrowserWindow, url: string): void {
  win.loadURL(url).catch(() => undefined);
}
