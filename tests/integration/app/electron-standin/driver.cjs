/**
 * Preloaded (`node --require driver.cjs out/main/index.js`, forked with an IPC channel): makes
 * `require('electron')` return the stand-in, fires app 'ready' once the main bundle has loaded,
 * and lets the test act as the person and the OS: click menu items, press Cmd+Q, close the
 * window, answer dialogs, launch a second instance, open a file from Finder, right-click, send
 * IPC from the page's main frame or from another frame. Each command gets one reply; when the
 * process exits, a last message carries everything recorded.
 */
'use strict';
const Module = require('node:module');
const { join } = require('node:path');

const STANDIN = join(__dirname, 'electron.cjs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? STANDIN : resolve.call(this, request, ...rest);
};

const electron = require(STANDIN);
require('./run-as-node-fuse.cjs');
const { app, BrowserWindow, Menu, session, __standin: s } = electron;

// Read and drop the driver's settings, so processes the app starts do not inherit them.
// The user-data folder comes from --user-data-dir, as in Electron (boot.ts passes it).
app.isPackaged = process.env.STANDIN_PACKAGED === '1';
const openFileBeforeReady = process.env.STANDIN_OPEN_FILE_BEFORE_READY;
if (process.env.STANDIN_PLATFORM) Object.defineProperty(process, 'platform', { value: process.env.STANDIN_PLATFORM });
s.config.platform = process.platform;
// Another instance holds the single-instance lock; the page goes wrong (see BrowserWindow.loadURL in electron.cjs).
s.config.lockHeld = process.env.STANDIN_LOCK_HELD === '1';
s.config.page = process.env.STANDIN_PAGE ?? 'ok';
process.versions.electron = require('../../../../node_modules/electron/package.json').version;
for (const k of [
  'STANDIN_PACKAGED',
  'STANDIN_OPEN_FILE_BEFORE_READY',
  'STANDIN_PLATFORM',
  'STANDIN_LOCK_HELD',
  'STANDIN_PAGE',
])
  delete process.env[k];

s.setOnExit((code) => {
  const finish = () => process.exit(code);
  if (process.connected) process.send({ type: 'exit', code, record: s.record }, finish);
  else finish();
});

function mainWindow() {
  const w = BrowserWindow.getAllWindows()[0];
  if (!w) throw new Error('No window is open');
  return w;
}

function findItem(path) {
  let items = Menu.getApplicationMenu()?.items ?? [];
  let item = null;
  for (const label of path) {
    item = items.find((i) => i.label === label || i.role === label.toLowerCase());
    if (!item) throw new Error(`No menu item ${JSON.stringify(label)} in ${path.join(' > ')}`);
    items = item.submenu?.items ?? [];
  }
  return item;
}

/** The sender of an IPC message, as Electron builds it: the webContents and the frame it came from. */
function ipcEvent(from) {
  const w = mainWindow();
  const wc = w.webContents;
  if (from === 'main') return { sender: wc, senderFrame: wc.mainFrame, processId: wc.mainFrame.processId, frameId: 1 };
  if (from === 'child') {
    const child = {
      url: wc.mainFrame.url,
      processId: wc.mainFrame.processId,
      frameToken: 'child-frame',
      routingId: 2,
      parent: wc.mainFrame,
    };
    return { sender: wc, senderFrame: child, processId: child.processId, frameId: 2 };
  }
  if (from === 'url-twin') {
    // Same URL, but another frame object with another identity: e.g. a second page on our file.
    const twin = {
      url: wc.mainFrame.url.replace(/^file:\/\/\/([a-z]):/, (_m, d) => `file:///${d.toUpperCase()}:`),
      processId: 999,
      frameToken: 'twin',
      routingId: 1,
      parent: null,
    };
    return { sender: { id: 999, mainFrame: twin }, senderFrame: twin, processId: 999, frameId: 1 };
  }
  throw new Error(`Unknown sender ${from}`);
}

const commands = {
  state: () => ({ ...s.record, ready: app.isReady(), openWindows: BrowserWindow.getAllWindows().map((w) => w.id) }),
  invoke: async ({ channel, args = [], from = 'main' }) => {
    const h = s.handlers.get(`speedmatrix:${channel}`);
    if (!h) throw new Error(`No handler for ${channel}`);
    return h(ipcEvent(from), ...args);
  },
  menuClick: ({ path }) => {
    findItem(path).click({}, BrowserWindow.getFocusedWindow());
    return true;
  },
  /** Cmd+Q, or Quit from the app menu on macOS: Electron calls app.quit(). */
  appQuit: () => {
    app.quit();
    return true;
  },
  /** The window's close button (and Cmd+W / Alt+F4). */
  windowClose: () => {
    mainWindow().close();
    return true;
  },
  /** The window's minimise button. */
  windowMinimize: () => {
    mainWindow().minimize();
    return true;
  },
  emitApp: ({ name, args = [] }) => {
    const e = s.electronEvent();
    app.emit(name, e, ...args);
    return { defaultPrevented: e.defaultPrevented };
  },
  contextMenu: ({ params }) => {
    const before = s.record.popups.length;
    const w = mainWindow();
    w.webContents.emit('context-menu', s.electronEvent(), params);
    return s.record.popups.length > before ? s.record.popups.at(-1) : null;
  },
  headers: ({ url, responseHeaders }) => {
    const listener = session.defaultSession._headers;
    if (!listener) throw new Error('No onHeadersReceived listener');
    return new Promise((done) =>
      listener({ url, method: 'GET', resourceType: 'mainFrame', statusCode: 200, responseHeaders }, (r) => done(r)),
    );
  },
  permission: ({ permission }) => {
    const h = session.defaultSession._permission;
    const check = session.defaultSession._permissionCheck;
    return new Promise((done) =>
      h(
        mainWindow().webContents,
        permission,
        (granted) =>
          done({ granted, check: check ? check(mainWindow().webContents, permission, 'file://', {}) : null }),
        { requestingUrl: 'file:///' },
      ),
    );
  },
  /** The page's renderer: 'crash' kills it, 'unresponsive' hangs it, 'responsive' lets it go on. */
  page: ({ event }) => {
    const w = mainWindow();
    if (event === 'crash') {
      w.webContents._crashed = true;
      w.webContents.emit('render-process-gone', s.electronEvent(), { reason: 'crashed', exitCode: 139 });
    } else if (event === 'unresponsive' || event === 'responsive') w.emit(event);
    else throw new Error(`Unknown page event ${event}`);
    return true;
  },
  answer: ({ kind, answer }) => {
    s.answerDialog(kind, answer);
    return true;
  },
};

process.on('message', async (msg) => {
  if (!msg || typeof msg.id !== 'number') return;
  try {
    const result = await commands[msg.cmd](msg.args ?? {});
    process.send({
      type: 'reply',
      id: msg.id,
      ok: true,
      result: result === undefined ? null : JSON.parse(JSON.stringify(result)),
    });
  } catch (e) {
    process.send({ type: 'reply', id: msg.id, ok: false, error: String(e?.stack ?? e) });
  }
});

// The main bundle loads synchronously after this preload; ready comes after it, as in Electron.
setImmediate(() => {
  if (openFileBeforeReady) app.emit('open-file', s.electronEvent(), openFileBeforeReady);
  app._fireReady();
});
