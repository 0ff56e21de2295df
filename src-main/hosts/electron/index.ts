/**
 * The Electron main process: app lifecycle around the plain-Node core. One instance; one
 * secure window; the core answers IPC. Quitting and files opened from outside never drop
 * unsaved results without asking; quitting stops any run and the server cleanly.
 */
import { basename, join } from 'node:path';
import { BrowserWindow, Menu, app, clipboard, dialog, shell } from 'electron';
import { electronConfirmCommands, electronDialogs } from './dialogs';
import { buildMenu, menuKey, type MenuState } from './menu';
import { fileFromArgv } from './open-files';
import { onQuitLine } from './quit-line';
import { keepAwakeWhileRunning } from './keep-awake';
import { waitOrAsk } from './quit-wait';
import { printPdf } from './pdf';
import { askAboutUnsaved, settleUnsaved, type LeaveReason } from './unsaved';
import { utilityLauncher } from './worker-launcher';
import { utilityNodeSpawner } from './node-spawner';
import { type AppCore, createAppCore } from '../app-core';
import { type MenuCommand, type Notice } from '#shared/ipc/contract';
import { IPC_PREFIX } from '#shared/ipc/channels';
import { registerIpc } from './ipc-handlers';
import { describeWriteError } from '../../platform/session/write';
import { userDataDir } from '../../engine/server/launched-registry';
import { userDataProblem } from './single-instance';
import { adoptLoginShellPath } from '../../platform/processes/login-shell-path';
import { createMainWindow, hardenSession } from './window';
import { registerAppScheme, serveAppScheme } from './app-protocol';

let win: BrowserWindow | null = null;
let core: AppCore | null = null;
/** Resolves once the page has loaded, so events sent to it are not lost. */
let pageLoaded: Promise<void> | null = null;
/** 'open' until a quit is asked for; 'asking' while the person answers; 'closing' while the core stops; 'closed' lets Electron go. */
let quitState: 'open' | 'asking' | 'closing' | 'closed' = 'open';
/** Files macOS handed over before the app was ready (open-file comes before ready). */
const pendingFiles: string[] = [];
let lastMenuKey: string | null = null;
let lastMetaKey: string | null = null;
/** Stops keeping the machine awake for runs (keep-awake.ts). */
let keepAwake: (() => void) | null = null;

function send(channel: 'notice' | 'menu', payload: Notice | MenuCommand): void {
  if (win && !win.isDestroyed()) win.webContents.send(`${IPC_PREFIX}${channel}`, payload);
}

const notify = (n: Notice): void => send('notice', n);
const settle = (c: AppCore, reason: LeaveReason) =>
  settleUnsaved(c, reason, { ask: (r, running) => askAboutUnsaved(win, r, running), notify });

/** Open a file handed over by main (Open Recent, second launch, command line, open-file): ask first when results are unsaved. */
async function openFile(file: string): Promise<void> {
  if (!core) {
    pendingFiles.push(file);
    return;
  }
  await pageLoaded;
  if (quitState !== 'open') return;
  if (!(await settle(core, { kind: 'open', name: basename(file) }))) return;
  // Handed over by the OS or the menu, not named by the page: the person picked it.
  core.pick(file);
  const r = await core.invoke('session:open', [file]);
  notify(r.ok ? { level: 'info', message: `Opened ${file}` } : { level: 'error', message: r.error });
  if (r.ok) send('menu', 'view-results');
}

/** Rebuild the application menu only when what it shows changed (not on every finished cell). */
async function refreshMenu(hasSession: boolean): Promise<void> {
  if (!core) return;
  const recent = await core.invoke('session:recent', []);
  const state: MenuState = { recent: recent.ok ? recent.data : [], hasSession };
  const key = menuKey(state);
  if (key === lastMenuKey) return;
  lastMenuKey = key;
  Menu.setApplicationMenu(
    buildMenu(state, { send: (cmd) => send('menu', cmd), openRecent: (f) => void openFile(f), window: () => win }),
  );
}

/**
 * One orderly quit for Cmd+Q, File > Quit / Exit and closing the window: ask about unsaved
 * results, stop the run, save if asked, stop the server, then let Electron quit.
 */
async function requestQuit(): Promise<void> {
  if (quitState !== 'open') {
    if (quitState === 'asking') win?.focus();
    return;
  }
  quitState = 'asking';
  const c = core;
  if (c && !(await settle(c, { kind: 'quit' }).catch(() => false))) {
    quitState = 'open';
    return;
  }
  quitState = 'closing';
  if (c) await sayStopping(c).catch(() => undefined);
  if (c) await waitOrAsk(c.dispose(), () => win);
  keepAwake?.();
  keepAwake = null;
  core = null;
  quitState = 'closed';
  app.quit();
}

/** The OS's own recent list (the Dock and File menus on macOS, Jump List on Windows; Linux has none). */
function addRecentDocument(file: string): void {
  if (process.platform === 'darwin' || process.platform === 'win32') app.addRecentDocument(file);
}

function openWindow(): void {
  const w = createMainWindow({ notify, quit: () => void requestQuit() });
  win = w;
  pageLoaded = new Promise((res) => w.webContents.once('did-finish-load', () => res()));
  w.on('close', (e) => {
    if (quitState === 'closed') return;
    e.preventDefault();
    void requestQuit();
  });
  w.on('closed', () => {
    if (win === w) win = null;
  });
}

/** macOS: a click on the Dock icon (or opening the app again) brings the window back, or opens one. */
function activate(): void {
  if (!core || quitState === 'closed') return;
  if (!win) return openWindow();
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

/** While quitting waits for the server to stop, the window says so. */
async function sayStopping(c: AppCore): Promise<void> {
  const snap = await c.invoke('server:snapshot', []);
  if (!snap.ok || snap.data.kind === 'attach') return;
  if (snap.data.state !== 'starting' && snap.data.state !== 'ready') return;
  notify({ level: 'info', message: 'Stopping the server before quitting…' });
  if (win && !win.isDestroyed()) {
    win.setTitle('SpeedMatrix: stopping the server…');
    win.show();
  }
}

function startApp(): void {
  serveAppScheme();
  hardenSession();
  core = createAppCore({
    host: 'electron',
    dataDir: join(app.getPath('userData'), 'core'),
    dialogs: electronDialogs(() => win),
    confirmCommands: electronConfirmCommands(() => win),
    printPdf,
    launcher: utilityLauncher,
    spawnNode: utilityNodeSpawner,
    openExternal: (url) => shell.openExternal(url),
    writeClipboard: (text) => clipboard.writeText(text),
    allowWritePaths: false,
  });
  registerIpc(core, () => win);
  keepAwake = keepAwakeWhileRunning(core);
  core.on('session:meta', (m) => {
    // Recent files change on open and save, which change the file or the dirty flag; a run's cells do not.
    const key = JSON.stringify([m.file, m.dirty, m.hasSession]);
    if (key === lastMetaKey) return;
    lastMetaKey = key;
    void refreshMenu(m.hasSession);
    if (m.file) addRecentDocument(m.file);
  });
  void refreshMenu(false);
  if (process.env.SPEEDMATRIX_QUIT_ON_STDIN === '1') onQuitLine(process.stdin, () => app.quit());
  openWindow();
  const file = fileFromArgv(process.argv, process.cwd());
  for (const f of [...(file ? [file] : []), ...pendingFiles.splice(0)]) void openFile(f);
}

/**
 * A start that fails (an unwritable data folder, say) says why and exits 1, never leaving a
 * process with no window. Called once the app is ready: before, Linux only prints the box to stderr.
 */
function failStart(e: unknown): void {
  const err = e as NodeJS.ErrnoException;
  const where = err.path ? ` ${err.path}` : '';
  const why = err.code
    ? `it could not use its data folder${where} (${describeWriteError(err)})`
    : (err.message ?? String(e));
  dialog.showErrorBox(
    'SpeedMatrix could not start',
    `SpeedMatrix could not start: ${why}.\n\nCheck that ${app.getPath('userData')} is writable, or start SpeedMatrix with --user-data-dir=<a writable folder>.`,
  );
  app.exit(1);
}

// The page's own scheme, privileged before the app is ready (Electron's rule).
registerAppScheme();

// One user-data folder, packaged or not (else it follows the product name): the CLI's
// launched-servers registry lives there too. --user-data-dir still chooses another.
if (!app.commandLine.hasSwitch('user-data-dir')) app.setPath('userData', userDataDir());

if (!app.requestSingleInstanceLock()) {
  // False also when the folder the lock lives in cannot be written (Electron does not say why).
  const problem = userDataProblem(app.getPath('userData'));
  if (problem) void app.whenReady().then(() => failStart(problem));
  else app.quit();
} else {
  app.on('second-instance', (_e, argv, workingDirectory) => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
    const file = fileFromArgv(argv, workingDirectory);
    if (file) void openFile(file);
  });
  // macOS: a file dropped on the Dock icon or opened from Finder; may come before ready.
  app.on('open-file', (e, path) => {
    e.preventDefault();
    void openFile(path);
  });
  app.on('before-quit', (e) => {
    if (quitState === 'closed') return;
    e.preventDefault();
    void requestQuit();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('activate', () => activate());
  app
    .whenReady()
    // An installed app opened from Finder has launchd's PATH; `npm start` has the terminal's.
    .then(() => (app.isPackaged ? adoptLoginShellPath() : undefined))
    .then(startApp)
    .catch((e: unknown) => failStart(e));
}
