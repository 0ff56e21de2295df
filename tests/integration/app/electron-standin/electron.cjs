/**
 * A stand-in for the `electron` module, for booting the built main process (out/main/index.js)
 * in plain Node where the Electron binary cannot run. It keeps Electron's API as documented:
 * the same names, event names, argument shapes and orders (app's before-quit / will-quit /
 * window-all-closed sequence, BrowserWindow close -> closed, dialog.showMessageBox resolving
 * {response, checkboxChecked}, Menu.buildFromTemplate with roles and their default submenus,
 * webContents 'context-menu' (event, params), session.webRequest.onHeadersReceived, ipcMain.handle
 * refusing a second handler). What it cannot be is the native part: no page runs, no real
 * clipboard or native menu; those are recorded in `record` for the driver (driver.cjs) to report.
 */
'use strict';
const { EventEmitter } = require('node:events');
const { fork } = require('node:child_process');

const config = { userData: '', platform: process.platform, lockHeld: false, page: 'ok' };

/** Everything observable, as plain data. */
const record = {
  windows: [],
  applicationMenus: [],
  popups: [],
  messageBoxes: [],
  fileDialogs: [],
  errorBoxes: [],
  clipboard: [],
  sent: [],
  external: [],
  headerListeners: 0,
  permissionHandlerSet: false,
  exitCode: null,
  appEvents: [],
  roleActions: [],
  recentDocuments: [],
  stderr: [],
  utilityProcesses: [],
  /** Schemes registered as privileged (before ready), and those handled (after). */
  privilegedSchemes: [],
  handledSchemes: [],
  /** Each page load through a handled scheme: its URL, status and response headers. */
  served: [],
  /** powerSaveBlocker: each blocker started, its type, and whether it was stopped. */
  powerSaveBlockers: [],
};

let onExit = (code) => process.exit(code);

function electronEvent() {
  const e = {
    defaultPrevented: false,
    preventDefault() {
      e.defaultPrevented = true;
    },
  };
  return e;
}

// ---------- app ----------

const { join } = require('node:path');

/** Chromium's switches as app.commandLine reads them: `--name` or `--name=value` after the script. */
const commandLine = {
  getSwitchValue(name) {
    for (const a of process.argv.slice(2)) {
      if (a === `--${name}`) return '';
      if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    }
    return '';
  },
  hasSwitch(name) {
    return process.argv.slice(2).some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  },
  appendSwitch() {},
};

function appDataDir() {
  const home = require('node:os').homedir();
  if (config.platform === 'win32') return process.env.APPDATA ?? join(home, 'AppData', 'Roaming');
  if (config.platform === 'darwin') return join(home, 'Library', 'Application Support');
  return process.env.XDG_CONFIG_HOME ?? join(home, '.config');
}

class App extends EventEmitter {
  constructor() {
    super();
    this.isPackaged = false;
    this.name = 'speedmatrix';
    this.commandLine = commandLine;
    this._ready = false;
    this._quitting = false;
    this._readyPromise = new Promise((resolve, reject) => {
      this._resolveReady = resolve;
      this._rejectReady = reject;
    });
  }
  emit(name, ...args) {
    record.appEvents.push(name);
    return super.emit(name, ...args);
  }
  whenReady() {
    return this._readyPromise;
  }
  isReady() {
    return this._ready;
  }
  getName() {
    return this.name;
  }
  getVersion() {
    return '0.0.0-standin';
  }
  /** userData: --user-data-dir, else what setPath gave, else appData/<name> as Electron makes it. */
  getPath(name) {
    if (name === 'userData')
      return config.userData || commandLine.getSwitchValue('user-data-dir') || join(this.getPath('appData'), this.name);
    if (name === 'appData') return appDataDir();
    if (name === 'temp') return require('node:os').tmpdir();
    throw new Error(`Failed to get '${name}' path`);
  }
  setPath(name, path) {
    if (name !== 'userData') throw new Error(`The stand-in sets only userData, not ${name}`);
    if (!require('node:path').isAbsolute(path)) throw new Error('Path must be absolute');
    config.userData = path;
  }
  /**
   * As Electron's ProcessSingleton: a lock in the userData folder. False when another instance
   * holds it, and also when the folder cannot be made or written (Electron says nothing then).
   */
  requestSingleInstanceLock() {
    if (config.lockHeld) return false;
    try {
      const fs = require('node:fs');
      const dir = this.getPath('userData');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(join(dir, 'SingletonLock'), String(process.pid));
      return true;
    } catch {
      return false;
    }
  }
  /** macOS and Windows only: Electron has no such method on Linux. */
  addRecentDocument(path) {
    if (config.platform === 'linux') throw new TypeError('app.addRecentDocument is not a function');
    record.recentDocuments.push(path);
  }
  focus() {}
  /** As Electron: before-quit (preventable), then close every window (any may refuse), then will-quit, quit. */
  quit() {
    if (this._quitting) return;
    const e = electronEvent();
    this.emit('before-quit', e);
    if (e.defaultPrevented) return;
    this._quitting = true;
    for (const w of [...BrowserWindow._all]) {
      w.close();
      if (!w.isDestroyed()) {
        this._quitting = false;
        return;
      }
    }
    const wq = electronEvent();
    this.emit('will-quit', wq);
    if (wq.defaultPrevented) {
      this._quitting = false;
      return;
    }
    this.emit('quit', electronEvent(), 0);
    this.exit(0);
  }
  /** Exits at once: no before-quit, no close events. */
  exit(code = 0) {
    record.exitCode = code;
    for (const w of [...BrowserWindow._all]) w._destroyQuietly();
    onExit(code);
  }
  _fireReady() {
    this._ready = true;
    this.emit('will-finish-launching');
    this.emit('ready', electronEvent(), {});
    this._resolveReady();
  }
}
const app = new App();

// ---------- BrowserWindow and webContents ----------

let nextId = 1;

class WebContents extends EventEmitter {
  constructor(win) {
    super();
    this.id = nextId++;
    this._win = win;
    this._url = '';
    this._openHandler = null;
    this.mainFrame = {
      url: '',
      processId: 100 + this.id,
      frameToken: `frame-${this.id}`,
      routingId: 1,
      parent: null,
      top: null,
      frames: [],
    };
    this.mainFrame.top = this.mainFrame;
    this.session = session.defaultSession;
  }
  send(channel, ...args) {
    if (this._win.isDestroyed()) throw new Error('Object has been destroyed');
    record.sent.push({ window: this._win.id, channel, args: JSON.parse(JSON.stringify(args)) });
  }
  setWindowOpenHandler(handler) {
    this._openHandler = handler;
  }
  getURL() {
    return this._url;
  }
  isDestroyed() {
    return this._win.isDestroyed();
  }
  toggleDevTools() {
    record.roleActions.push('toggleDevTools');
  }
  async printToPDF() {
    throw new Error('printToPDF needs the Electron binary');
  }
  /** Ends the renderer (for a hung page); Electron reports it as 'render-process-gone'. */
  forcefullyCrashRenderer() {
    this._crashed = true;
    setImmediate(() => this.emit('render-process-gone', electronEvent(), { reason: 'killed', exitCode: 9 }));
  }
  /** Loads the current URL again, as a person pressing Reload (Electron's reload() returns nothing). */
  reload() {
    record.roleActions.push('reload');
    this._win._rec.loaded.push(this._url);
    setImmediate(() =>
      this._load(
        this._url,
        () => undefined,
        () => undefined,
      ),
    );
  }
  _load(url, resolve, reject) {
    const w = this._win;
    if (w.isDestroyed()) return resolve();
    const fail = (code, name) => {
      this.emit('did-fail-load', electronEvent(), code, name, url, true, this.mainFrame.processId, 1);
      const err = new Error(`${name} (${code}) loading '${url}'`);
      Object.assign(err, { errno: code, code: name, url });
      reject(err);
    };
    if (url.startsWith('file:') && !require('node:fs').existsSync(require('node:url').fileURLToPath(url)))
      return fail(-6, 'ERR_FILE_NOT_FOUND');
    const scheme = url.slice(0, url.indexOf(':'));
    if (!['file', 'http', 'https'].includes(scheme)) {
      const handler = protocolHandlers.get(scheme);
      if (!handler) return fail(-302, 'ERR_UNKNOWN_URL_SCHEME');
      return Promise.resolve(handler(new Request(url))).then(
        (res) => {
          const headers = Object.fromEntries(res.headers.entries());
          record.served.push({ url, status: res.status, headers });
          if (res.status >= 400) return fail(-6, 'ERR_FILE_NOT_FOUND');
          return this._loaded(w, resolve, fail);
        },
        () => fail(-2, 'ERR_FAILED'),
      );
    }
    return this._loaded(w, resolve, fail);
  }
  _loaded(w, resolve, fail) {
    const mode = config.page;
    if (mode === 'crash') {
      config.page = 'ok';
      this._crashed = true;
      this.emit('render-process-gone', electronEvent(), { reason: 'crashed', exitCode: 139 });
      return fail(-2, 'ERR_FAILED');
    }
    this._crashed = false;
    if (mode === 'preload-error') {
      config.page = 'ok';
      const preload = w._rec.options.webPreferences?.preload ?? '';
      this.emit('preload-error', electronEvent(), preload, new Error("Cannot find module 'electron/renderer'"));
    }
    this.emit('did-finish-load', electronEvent());
    if (!w._painted) {
      w._painted = true;
      w.emit('ready-to-show', electronEvent());
    }
    resolve();
  }
}
for (const action of [
  'undo',
  'redo',
  'cut',
  'copy',
  'paste',
  'pasteAndMatchStyle',
  'delete',
  'selectAll',
  'forceReload',
]) {
  WebContents.prototype[action] = function () {
    record.roleActions.push(action);
  };
}

class BrowserWindow extends EventEmitter {
  constructor(options = {}) {
    super();
    if (!app.isReady()) throw new Error('Cannot create BrowserWindow before app is ready');
    this.id = nextId++;
    this._destroyed = false;
    this._minimized = false;
    this.webContents = new WebContents(this);
    BrowserWindow._all.push(this);
    this._rec = {
      id: this.id,
      options: JSON.parse(JSON.stringify(options)),
      loaded: [],
      title: options.title ?? 'Electron',
      shown: false,
      minimized: false,
      focused: 0,
      destroyed: false,
    };
    record.windows.push(this._rec);
  }
  static getAllWindows() {
    return [...BrowserWindow._all];
  }
  static getFocusedWindow() {
    return BrowserWindow._all.at(-1) ?? null;
  }
  static fromWebContents(wc) {
    return BrowserWindow._all.find((w) => w.webContents === wc) ?? null;
  }
  /**
   * As Electron: resolves once the page has loaded, and rejects after 'did-fail-load' when it
   * cannot (a file:// page that is not there). config.page plays a renderer that goes wrong:
   * 'crash' dies before its first paint ('render-process-gone', no 'ready-to-show', once);
   * 'preload-error' loads the page, but its preload threw first.
   */
  loadURL(url) {
    this._rec.loaded.push(url);
    this.webContents._url = url;
    this.webContents.mainFrame.url = url;
    return new Promise((resolve, reject) => setImmediate(() => this.webContents._load(url, resolve, reject)));
  }
  loadFile(file) {
    return this.loadURL(require('node:url').pathToFileURL(file).href);
  }
  show() {
    this._rec.shown = true;
  }
  hide() {
    this._rec.shown = false;
  }
  isVisible() {
    return this._rec.shown && !this._destroyed;
  }
  focus() {
    this._rec.focused++;
  }
  isMinimized() {
    return this._minimized;
  }
  minimize() {
    this._minimized = true;
    this._rec.minimized = true;
  }
  restore() {
    this._minimized = false;
    this._rec.minimized = false;
  }
  setTitle(title) {
    this._rec.title = String(title);
  }
  getTitle() {
    return this._rec.title;
  }
  isDestroyed() {
    return this._destroyed;
  }
  /** As the user clicking the close button: 'close' may be prevented. */
  close() {
    if (this._destroyed) return;
    const e = electronEvent();
    this.emit('close', e);
    if (e.defaultPrevented) return;
    this.destroy();
  }
  /** Closes without 'close', as Electron's destroy(). */
  destroy() {
    if (this._destroyed) return;
    this._destroyQuietly();
    this.emit('closed');
    if (BrowserWindow._all.length === 0 && !app._quitting) {
      if (app.listenerCount('window-all-closed') > 0) app.emit('window-all-closed');
      else app.quit();
    }
  }
  _destroyQuietly() {
    this._destroyed = true;
    this._rec.destroyed = true;
    BrowserWindow._all = BrowserWindow._all.filter((w) => w !== this);
  }
}
BrowserWindow._all = [];

// ---------- Menu ----------

const ROLES = new Set([
  'undo',
  'redo',
  'cut',
  'copy',
  'paste',
  'pasteAndMatchStyle',
  'delete',
  'selectAll',
  'reload',
  'forceReload',
  'toggleDevTools',
  'resetZoom',
  'zoomIn',
  'zoomOut',
  'toggleSpellChecker',
  'togglefullscreen',
  'window',
  'minimize',
  'close',
  'help',
  'about',
  'services',
  'hide',
  'hideOthers',
  'unhide',
  'quit',
  'showSubstitutions',
  'toggleSmartQuotes',
  'toggleSmartDashes',
  'toggleTextReplacement',
  'startSpeaking',
  'stopSpeaking',
  'zoom',
  'front',
  'appMenu',
  'fileMenu',
  'editMenu',
  'viewMenu',
  'shareMenu',
  'recentDocuments',
  'toggleTabBar',
  'selectNextTab',
  'selectPreviousTab',
  'showAllTabs',
  'mergeAllWindows',
  'clearRecentDocuments',
  'moveTabToNewWindow',
  'windowMenu',
]);

/** Electron keeps a role lowercased (menu-item.ts); the table below spells them as its docs do. */
const CANONICAL_ROLE = new Map([...ROLES].map((r) => [r.toLowerCase(), r]));

/** Electron's default label and accelerator of a role (lib/browser/api/menu-item-roles.ts), per platform. */
function roleDefaults(role) {
  const mac = config.platform === 'darwin';
  const win = config.platform === 'win32';
  const t = {
    undo: ['Undo', 'CommandOrControl+Z'],
    redo: ['Redo', win ? 'Control+Y' : 'Shift+CommandOrControl+Z'],
    cut: ['Cut', 'CommandOrControl+X'],
    copy: ['Copy', 'CommandOrControl+C'],
    paste: ['Paste', 'CommandOrControl+V'],
    pasteAndMatchStyle: ['Paste and Match Style', mac ? 'Cmd+Option+Shift+V' : 'Shift+CommandOrControl+V'],
    delete: ['Delete', undefined],
    selectAll: ['Select All', 'CommandOrControl+A'],
    quit: [mac ? `Quit ${app.name}` : win ? 'Exit' : 'Quit', win ? undefined : 'CommandOrControl+Q'],
    close: [mac ? 'Close Window' : 'Close', 'CommandOrControl+W'],
    minimize: ['Minimize', 'CommandOrControl+M'],
    zoom: ['Zoom', undefined],
    front: ['Bring All to Front', undefined],
    resetZoom: ['Actual Size', 'CommandOrControl+0'],
    zoomIn: ['Zoom In', 'CommandOrControl+Plus'],
    zoomOut: ['Zoom Out', 'CommandOrControl+-'],
    togglefullscreen: ['Toggle Full Screen', mac ? 'Control+Command+F' : 'F11'],
    about: [`About ${app.name}`, undefined],
    services: ['Services', undefined],
    hide: [`Hide ${app.name}`, 'Command+H'],
    hideOthers: ['Hide Others', 'Command+Alt+H'],
    unhide: ['Show All', undefined],
    startSpeaking: ['Start Speaking', undefined],
    stopSpeaking: ['Stop Speaking', undefined],
    editMenu: ['Edit', undefined],
    windowMenu: ['Window', undefined],
    appMenu: [app.name, undefined],
    help: ['Help', undefined],
  };
  return t[role] ?? [role, undefined];
}

/** The submenus Electron fills in for the menu roles. */
function roleSubmenu(role) {
  const mac = config.platform === 'darwin';
  const sep = { type: 'separator' };
  if (role === 'editMenu') {
    return [
      { role: 'undo' },
      { role: 'redo' },
      sep,
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac
        ? [
            { role: 'pasteAndMatchStyle' },
            { role: 'delete' },
            { role: 'selectAll' },
            sep,
            { label: 'Speech', submenu: [{ role: 'startSpeaking' }, { role: 'stopSpeaking' }] },
          ]
        : [{ role: 'delete' }, sep, { role: 'selectAll' }]),
    ];
  }
  if (role === 'windowMenu')
    return [{ role: 'minimize' }, { role: 'zoom' }, ...(mac ? [sep, { role: 'front' }] : [{ role: 'close' }])];
  if (role === 'appMenu')
    return [
      { role: 'about' },
      sep,
      { role: 'services' },
      sep,
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      sep,
      { role: 'quit' },
    ];
  return null;
}

/** What a role does when clicked, as far as the stand-in can: app and window roles act, editing roles are recorded on the focused page. */
function runRole(role, win) {
  const name = CANONICAL_ROLE.get(role);
  if (name === 'quit') return app.quit();
  if (name === 'close') return win?.close();
  const wc = win?.webContents;
  if (wc && typeof wc[name] === 'function') return wc[name]();
  record.roleActions.push(name);
}

class MenuItem {
  constructor(o) {
    const role = o.role === undefined ? undefined : CANONICAL_ROLE.get(String(o.role).toLowerCase());
    if (o.role !== undefined && !role) throw new Error(`Invalid role: ${o.role}`);
    const [label, accelerator] = role ? roleDefaults(role) : ['', undefined];
    this.role = role?.toLowerCase();
    this.type = o.type ?? (o.submenu || (role && roleSubmenu(role)) ? 'submenu' : 'normal');
    this.label = o.label ?? (this.type === 'separator' ? '' : label);
    this.accelerator = o.accelerator ?? accelerator;
    this.enabled = o.enabled ?? true;
    this.visible = o.visible ?? true;
    this.toolTip = o.toolTip ?? '';
    const sub = o.submenu ?? (role ? roleSubmenu(role) : null);
    this.submenu = sub ? (sub instanceof Menu ? sub : Menu.buildFromTemplate(sub)) : null;
    this._click = o.click;
  }
  click(event = {}, focusedWindow = BrowserWindow.getFocusedWindow()) {
    if (!this.enabled) return;
    if (this._click) this._click(this, focusedWindow ?? undefined, event);
    else if (this.role) runRole(this.role, focusedWindow);
  }
}

class Menu extends EventEmitter {
  constructor() {
    super();
    this.items = [];
  }
  append(item) {
    this.items.push(item);
  }
  static buildFromTemplate(template) {
    if (!Array.isArray(template)) throw new TypeError('Invalid template for Menu: Menu template must be an array');
    const m = new Menu();
    for (const o of template) m.append(o instanceof MenuItem ? o : new MenuItem(o));
    return m;
  }
  static setApplicationMenu(menu) {
    Menu._app = menu;
    record.applicationMenus.push(describeMenu(menu));
  }
  static getApplicationMenu() {
    return Menu._app ?? null;
  }
  popup(options = {}) {
    record.popups.push({ window: options.window?.id ?? null, items: describeMenu(this) });
    Menu._lastPopup = this;
  }
  closePopup() {}
}
Menu._app = null;
Menu._lastPopup = null;

/** A menu as plain data for the driver. */
function describeMenu(menu) {
  if (!menu) return null;
  return menu.items.map((i) => ({
    label: i.label,
    role: i.role ?? null,
    type: i.type,
    accelerator: i.accelerator ?? null,
    enabled: i.enabled,
    toolTip: i.toolTip,
    submenu: i.submenu ? describeMenu(i.submenu) : null,
  }));
}

// ---------- dialogs: pending until the person (the driver) answers ----------

let nextDialog = 1;
const pending = new Map();

function pendingDialog(list, entry) {
  const id = nextDialog++;
  list.push({ id, ...entry, answer: null });
  return new Promise((resolve) => pending.set(id, { list, resolve }));
}

function splitWindow(a, b) {
  return a instanceof BrowserWindow ? [a, b] : [null, a];
}

const dialog = {
  /** An AbortSignal closes the box as if the person cancelled it (Electron's `signal` option). */
  showMessageBox(a, b) {
    const [win, options] = splitWindow(a, b);
    if (!options || !Array.isArray(options.buttons ?? [])) throw new TypeError('Invalid options');
    const shown = pendingDialog(record.messageBoxes, {
      window: win?.id ?? null,
      options: JSON.parse(JSON.stringify(options)),
    });
    const entry = record.messageBoxes.at(-1);
    options.signal?.addEventListener('abort', () => {
      if (entry.answer !== null) return;
      entry.answer = { aborted: true };
      const p = pending.get(entry.id);
      pending.delete(entry.id);
      p.resolve({ response: options.cancelId ?? 0, checkboxChecked: false });
    });
    return shown;
  },
  showMessageBoxSync() {
    throw new Error('The stand-in cannot block for an answer: use dialog.showMessageBox');
  },
  showOpenDialog(a, b) {
    const [win, options] = splitWindow(a, b);
    return pendingDialog(record.fileDialogs, {
      kind: 'open',
      window: win?.id ?? null,
      options: JSON.parse(JSON.stringify(options ?? {})),
    });
  },
  showSaveDialog(a, b) {
    const [win, options] = splitWindow(a, b);
    return pendingDialog(record.fileDialogs, {
      kind: 'save',
      window: win?.id ?? null,
      options: JSON.parse(JSON.stringify(options ?? {})),
    });
  },
  /** Before 'ready' on Linux, Electron only prints it to stderr: no one sees a box. */
  showErrorBox(title, content) {
    if (!app.isReady() && config.platform === 'linux') {
      record.stderr.push(`${title}\n${content}`);
      process.stderr.write(`${title}\n${content}\n`);
      return;
    }
    record.errorBoxes.push({ title, content });
  },
};

/** The person's answer to the oldest open dialog of a kind ('message' or 'file'). */
function answerDialog(kind, answer) {
  const list = kind === 'message' ? record.messageBoxes : record.fileDialogs;
  const open = list.find((d) => d.answer === null);
  if (!open) throw new Error(`No ${kind} dialog is open`);
  open.answer = answer;
  const p = pending.get(open.id);
  pending.delete(open.id);
  p.resolve(kind === 'message' ? { response: answer.response, checkboxChecked: false } : answer);
}

// ---------- session, ipcMain, clipboard, shell, utilityProcess ----------

const session = {
  defaultSession: {
    _headers: null,
    _permission: null,
    _permissionCheck: null,
    webRequest: {
      onHeadersReceived(filterOrListener, maybeListener) {
        session.defaultSession._headers = typeof filterOrListener === 'function' ? filterOrListener : maybeListener;
        record.headerListeners++;
      },
    },
    setPermissionRequestHandler(handler) {
      session.defaultSession._permission = handler;
      record.permissionHandlerSet = true;
    },
    setPermissionCheckHandler(handler) {
      session.defaultSession._permissionCheck = handler;
    },
  },
};

const handlers = new Map();
const ipcMain = Object.assign(new EventEmitter(), {
  handle(channel, listener) {
    if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    handlers.set(channel, listener);
  },
  handleOnce(channel, listener) {
    ipcMain.handle(channel, (...a) => (handlers.delete(channel), listener(...a)));
  },
  removeHandler(channel) {
    handlers.delete(channel);
  },
});

const clipboard = {
  writeText(text, type) {
    record.clipboard.push({ text: String(text), type: type ?? 'clipboard' });
  },
  readText() {
    return record.clipboard.at(-1)?.text ?? '';
  },
};

const shell = {
  async openExternal(url) {
    record.external.push(url);
  },
};

/**
 * protocol as Electron's: registerSchemesAsPrivileged only before ready (once); handle only after,
 * once per scheme (a second throws), its handler given a Request and answering a Response.
 */
const protocolHandlers = new Map();
const protocol = {
  registerSchemesAsPrivileged(schemes) {
    if (app.isReady()) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
    for (const s of schemes) record.privilegedSchemes.push({ scheme: s.scheme, privileges: { ...s.privileges } });
  },
  handle(scheme, handler) {
    if (!app.isReady()) throw new Error('protocol.handle cannot be used before the app is ready');
    if (protocolHandlers.has(scheme)) throw new Error(`Failed to register protocol: ${scheme}`);
    protocolHandlers.set(scheme, handler);
    record.handledSchemes.push(scheme);
  },
  isProtocolHandled(scheme) {
    return protocolHandlers.has(scheme);
  },
};

/**
 * powerSaveBlocker as Electron's: start(type) with one of its two types (else a TypeError) gives
 * an id; stop(id) returns whether that blocker was running (a second stop, false); isStarted(id).
 */
const powerSaveBlocker = {
  start(type) {
    if (type !== 'prevent-app-suspension' && type !== 'prevent-display-sleep')
      throw new TypeError(`Invalid power save blocker type: ${type}`);
    const id = record.powerSaveBlockers.length;
    record.powerSaveBlockers.push({ id, type, stopped: false });
    return id;
  },
  stop(id) {
    const b = record.powerSaveBlockers[id];
    if (!b || b.stopped) return false;
    b.stopped = true;
    return true;
  },
  isStarted(id) {
    const b = record.powerSaveBlockers[id];
    return Boolean(b && !b.stopped);
  },
};

const UTILITY_CHILD = require('node:path').join(__dirname, 'utility-child.cjs');
const { asElectron } = require('./run-as-node-fuse.cjs');

/** utilityProcess's stdio: stdout and stderr only; stdin can be nothing but 'ignore'. */
function utilityStdio(stdio = 'inherit') {
  const modes = ['pipe', 'ignore', 'inherit'];
  const three = typeof stdio === 'string' ? ['ignore', stdio, stdio] : stdio;
  if (!Array.isArray(three) || three[0] !== 'ignore' || !three.slice(1, 3).every((m) => modes.includes(m)))
    throw new Error(`stdio option ${JSON.stringify(stdio)} is not supported: stdin must be 'ignore'`);
  return [...three.slice(0, 3), 'ipc'];
}

/**
 * utilityProcess.fork as Electron's: only in main once the app is ready; the module runs with
 * `process.parentPort`, not `process.send` (utility-child.cjs); 'spawn', 'message' (the data),
 * 'exit' (the code only). `pid` is undefined until 'spawn' and again after 'exit', stdout and
 * stderr are streams only with stdio 'pipe' and null after 'exit'; kill() asks with SIGTERM and
 * returns whether it could.
 */
const utilityProcess = {
  fork(modulePath, args = [], options = {}) {
    if (!app.isReady()) throw new Error('utilityProcess cannot be created before app is ready.');
    if (typeof modulePath !== 'string') throw new TypeError('Invalid modulePath');
    const stdio = utilityStdio(options.stdio);
    record.utilityProcesses.push({ modulePath, args, serviceName: options.serviceName ?? null });
    const child = asElectron(() =>
      fork(modulePath, args, {
        stdio,
        execArgv: ['--require', UTILITY_CHILD],
        serialization: 'advanced',
        env: options.env ?? process.env,
        cwd: options.cwd,
      }),
    );
    const up = new EventEmitter();
    up.pid = undefined;
    up.stdout = child.stdout ?? null;
    up.stderr = child.stderr ?? null;
    up.postMessage = (m) => child.connected && child.send(m);
    up.kill = () => up.pid !== undefined && child.kill('SIGTERM');
    child.on('message', (m) => up.emit('message', m));
    child.once('spawn', () => {
      up.pid = child.pid;
      up.emit('spawn');
    });
    child.on('exit', (code, signal) => {
      up.pid = undefined;
      up.emit('exit', code ?? (signal ? 1 : 0));
      up.stdout = null;
      up.stderr = null;
    });
    return up;
  },
};

module.exports = {
  app,
  BrowserWindow,
  Menu,
  MenuItem,
  dialog,
  session,
  ipcMain,
  clipboard,
  shell,
  utilityProcess,
  protocol,
  powerSaveBlocker,
  // The driver's side door; not part of Electron's API.
  __standin: { config, record, handlers, answerDialog, describeMenu, electronEvent, setOnExit: (f) => (onExit = f) },
};
