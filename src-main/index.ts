/**
 * The Electron main process: app lifecycle around the plain-Node core. One instance; one
 * secure window; the core answers IPC; quitting stops any run and the server cleanly.
 */
import { join } from 'node:path';
import { BrowserWindow, Menu, app, dialog, shell } from 'electron';
import { printPdf } from './app/pdf';
import { electronDialogs } from './app/dialogs';
import { buildMenu } from './app/menu';
import { utilityLauncher } from './app/worker-launcher';
import { type AppCore, createAppCore } from './core';
import { IPC_PREFIX, type MenuCommand, type Notice } from '../src-shared/ipc/contract';
import { registerIpc } from './ipc/handlers';
import { createMainWindow, hardenSession, rendererUrl } from './window';
import { hasExtension } from './runtime/text';

let win: BrowserWindow | null = null;
let core: AppCore | null = null;
/** The person chose to close despite unsaved results (or saved them). */
let closeConfirmed = false;
/** Quit has begun: the core is being disposed. */
let quitting = false;

/** A file given on the command line (or by a second launch) opens in the running app. */
function fileFromArgv(argv: string[]): string | null {
  return argv.slice(1).find((a) => hasExtension(a, '.json') && !a.startsWith('-')) ?? null;
}

async function openFile(file: string): Promise<void> {
  if (!core) return;
  const r = await core.invoke('session:open', [file]);
  if (!win) return;
  const notice: Notice = r.ok ? { level: 'info', message: `Opened ${file}` } : { level: 'error', message: r.error };
  win.webContents.send(`${IPC_PREFIX}notice`, notice);
  if (r.ok) win.webContents.send(`${IPC_PREFIX}menu`, 'view-results' satisfies MenuCommand);
}

async function refreshMenu(): Promise<void> {
  if (!core) return;
  const recent = await core.invoke('session:recent', []);
  Menu.setApplicationMenu(
    buildMenu({
      send: (cmd) => win?.webContents.send(`${IPC_PREFIX}menu`, cmd),
      openRecent: (f) => void openFile(f),
      recent: recent.ok ? recent.data : [],
      window: () => win,
    }),
  );
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_e, argv) => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
    const file = fileFromArgv(argv);
    if (file) void openFile(file);
  });

  app.whenReady().then(() => {
    hardenSession();
    core = createAppCore({
      host: 'electron',
      dataDir: join(app.getPath('userData'), 'core'),
      dialogs: electronDialogs(() => win),
      printPdf,
      launcher: utilityLauncher,
      openExternal: (url) => shell.openExternal(url),
      allowWritePaths: false,
    });
    registerIpc(core, () => win, rendererUrl());
    core.on('session:meta', () => void refreshMenu());
    void refreshMenu();
    win = createMainWindow();
    win.on('close', (e) => {
      if (closeConfirmed || quitting || !core?.hasUnsavedChanges()) return;
      const running = core.runInProgress();
      const choice = dialog.showMessageBoxSync(win as BrowserWindow, {
        type: 'question',
        buttons: ['Save…', 'Discard', 'Cancel'],
        defaultId: 0,
        cancelId: 2,
        message: running ? 'A run is in progress and its results are not saved.' : 'The results are not saved.',
        detail: running ? 'Closing stops the run; finished cells are kept in the working file.' : 'Save them to a session file before closing?',
      });
      if (choice === 2) {
        e.preventDefault();
      } else if (choice === 0) {
        e.preventDefault();
        void core.invoke('session:save', []).then((r) => {
          if (r.ok) {
            closeConfirmed = true;
            win?.close();
          }
        });
      }
    });
    win.on('closed', () => {
      win = null;
    });
    const file = fileFromArgv(process.argv);
    if (file) win.webContents.once('did-finish-load', () => void openFile(file));
  });

  // Stop the run and the server before the process goes, so nothing keeps holding the GPU.
  app.on('before-quit', (e) => {
    if (!core || quitting) return;
    e.preventDefault();
    quitting = true;
    const c = core;
    void c.dispose().finally(() => {
      core = null;
      app.quit();
    });
  });
  app.on('window-all-closed', () => app.quit());
}
