/**
 * The built main process (out/main/index.js, from `npm run build`) booted in plain Node against
 * a stand-in of the `electron` module that keeps Electron's API (electron-standin/), and used as
 * a person would: the menus and their shortcuts, Copy, the right-click menu, quitting with
 * unsaved results (Cmd+Q, File > Quit, closing the window) and during a run, files opened from
 * Open Recent, a second launch, macOS open-file and the command line, the CSP in production and
 * in development, the IPC sender check, and a start that fails. Roles read back lowercased, as
 * Electron keeps them. What the stand-in cannot settle
 * (the real clipboard, native menus, a page that runs) is in tests/e2e, with the binary.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { CSP, devCsp } from '../../../src-main/hosts/electron/csp';
import { createSession } from '../../../src-main/platform/session/create';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { serializeSession } from '../../../src-main/platform/session/write';
import { SYNTHETIC_REPORT } from '../../helpers/paths';
import { type BootMain, standinTest } from '../../helpers/fixtures';
import type { SimHandle } from '../../helpers/sim';
import { type MainProcess, type Recorded, menuItem } from './electron-standin/boot';

/** What src-main/hosts/electron/ipc-handlers.ts answers a sender it does not trust (that module needs the real electron). */
const REFUSED = 'Refused: this message did not come from the SpeedMatrix window.';
const tmp = mkdtempSync(join(tmpdir(), 'speedmatrix-main-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The simulator of the run in progress, started on the first test that asks for it.
const it = standinTest.override('simOptions', { scope: 'file' }, { speed: 20, args: ['--served-model-name', 'fara'] });

const started = (m: MainProcess) =>
  m.waitFor((s) => s.windows.length > 0 && s.applicationMenus.length > 0, 'the window and the menu');
const lastMenu = (s: Recorded) => s.applicationMenus.at(-1);
const sentOn = (s: Recorded, channel: string) =>
  s.sent.filter((x) => x.channel === `speedmatrix:${channel}`).map((x) => x.args[0]);
const openBoxes = (s: Recorded) => s.messageBoxes.filter((d) => d.answer === null);
const directives = (csp: string) =>
  new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v.join(' ')]),
  );

function sessionFile(name: string): string {
  const file = join(tmp, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, serializeSession(createSession({ simulated: true })));
  return file;
}

/** Another tool's report imported, as a person would drop it on the window: nothing unsaved, its file is still there. */
async function importReport(m: MainProcess): Promise<void> {
  const r = await m.call<{ ok: boolean; data: { dirty: boolean } }>('invoke', {
    channel: 'session:open-data',
    args: [{ name: 'reference.txt', text: readFileSync(SYNTHETIC_REPORT, 'utf8') }],
  });
  expect(r.ok).toBe(true);
  expect(r.data.dirty).toBe(false);
}

/** Unsaved results: a one-cell run measured against the simulator through the page's IPC, to its end. */
async function measureUnsaved(m: MainProcess, sim: SimHandle): Promise<void> {
  const d = await m.call<{ ok: boolean; data: Record<string, unknown> }>('invoke', { channel: 'server:defaults' });
  const attach = { ...d.data, kind: 'attach', url: sim.url, model: '' };
  expect(await m.call('invoke', { channel: 'server:start', args: [attach] })).toMatchObject({ ok: true });
  const state = async () =>
    (await m.call<{ data: { state: string } }>('invoke', { channel: 'server:snapshot' })).data.state;
  for (let i = 0; i < 200 && (await state()) !== 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
  const form = {
    contexts: [0],
    concurrency: [1],
    prefillContexts: [],
    secondsPerMeasurement: 2,
    maxOutputTokens: 64,
    tokenTargeting: 'estimate',
  };
  expect(await m.call('invoke', { channel: 'run:start', args: [form] })).toMatchObject({ ok: true });
  const phase = async () =>
    (await m.call<{ data: { phase: string } }>('invoke', { channel: 'run:snapshot' })).data.phase;
  for (let i = 0; i < 600 && (await phase()) !== 'done'; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await phase()).toBe('done');
  expect(await openSessionMeta(m)).toMatchObject({ dirty: true });
}

async function openSessionMeta(
  m: MainProcess,
): Promise<{ file: string | null; sourceName: string | null; dirty: boolean }> {
  const r = await m.call<{
    ok: boolean;
    data: { meta: { file: string | null; sourceName: string | null; dirty: boolean } };
  }>('invoke', { channel: 'session:get' });
  return r.data.meta;
}

describe('a plain start', () => {
  it('opens one secure window and an application menu with File, Edit, View, Window and Help', async ({ bootMain }) => {
    const s = await started(bootMain());
    expect(s.windows).toHaveLength(1);
    expect(s.windows[0].options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    // The built page on the app's own scheme, never file:// (the GrantFileProtocolExtraPrivileges fuse is off).
    expect(s.windows[0].loaded).toEqual(['app://speedmatrix/index.html']);
    expect(s.privilegedSchemes).toEqual([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
    expect(s.handledSchemes).toEqual(['app']);
    expect(s.served).toEqual([
      {
        url: 'app://speedmatrix/index.html',
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP },
      },
    ]);
    const menu = lastMenu(s)!;
    expect(menu.map((i) => i.label)).toEqual(['File', 'Edit', 'View', 'Window', 'Help']);
    const edit = menuItem(menu, 'Edit')!;
    expect(edit.role).toBe('editmenu');
    const roles = Object.fromEntries(edit.submenu!.filter((i) => i.role).map((i) => [i.role, i.accelerator]));
    expect(roles).toMatchObject({
      undo: 'CommandOrControl+Z',
      cut: 'CommandOrControl+X',
      copy: 'CommandOrControl+C',
      paste: 'CommandOrControl+V',
      selectall: 'CommandOrControl+A',
    });
    expect(menuItem(menu, 'Window')!.role).toBe('windowmenu');
    expect(menuItem(menu, 'File', 'quit')).toBeDefined();
    // Nothing open yet: Save and Export wait for a session.
    expect(menuItem(menu, 'File', 'Save')!.enabled).toBe(false);
    expect(menuItem(menu, 'File', 'Export Markdown…')!.enabled).toBe(false);
  });

  it('View > Hardware, Server, Run, Results show Ctrl/Cmd+1..4 and send the view to the page; Edit > Copy copies in the page', async ({
    bootMain,
  }) => {
    const m = bootMain();
    const s = await started(m);
    const view = menuItem(lastMenu(s), 'View')!.submenu!;
    expect(view.slice(0, 4).map((i) => [i.label, i.accelerator])).toEqual([
      ['Hardware', 'CmdOrCtrl+1'],
      ['Server', 'CmdOrCtrl+2'],
      ['Run', 'CmdOrCtrl+3'],
      ['Results', 'CmdOrCtrl+4'],
    ]);
    for (const label of ['Run', 'Hardware', 'Results', 'Server']) await m.call('menuClick', { path: ['View', label] });
    await m.call('menuClick', { path: ['Edit', 'copy'] });
    const after = await m.state();
    expect(sentOn(after, 'menu')).toEqual(['view-run', 'view-hardware', 'view-results', 'view-server']);
    expect(after.roleActions).toContain('copy');
  });

  it('macOS: the app menu first, the same Edit and Window menus, Close in File', async ({ bootMain }) => {
    const s = await started(bootMain({ env: { STANDIN_PLATFORM: 'darwin' } }));
    const menu = lastMenu(s)!;
    expect(menu.map((i) => i.role ?? i.label)).toEqual(['appmenu', 'File', 'editmenu', 'View', 'windowmenu', 'help']);
    expect(menuItem(menu, 'appMenu', 'quit')!.accelerator).toBe('CommandOrControl+Q');
    expect(menuItem(menu, 'File', 'close')).toBeDefined();
    expect(menuItem(menu, 'Edit', 'selectAll')!.accelerator).toBe('CommandOrControl+A');
    expect(menuItem(menu, 'Edit', 'paste')!.accelerator).toBe('CommandOrControl+V');
  });

  it('Copy goes through main’s clipboard from the app’s page only; the page still gets no permission', async ({
    bootMain,
  }) => {
    const m = bootMain();
    await started(m);
    const text = 'vllm serve Qwen/Qwen3-8B --api-key <redacted> --port 8000';
    expect(await m.call('invoke', { channel: 'clipboard:write-text', args: [text] })).toEqual({ ok: true, data: true });
    expect(
      await m.call('invoke', { channel: 'clipboard:write-text', args: ['from a child frame'], from: 'child' }),
    ).toEqual({ ok: false, error: REFUSED });
    expect((await m.state()).clipboard).toEqual([{ text, type: 'clipboard' }]);
    for (const permission of ['clipboard-sanitized-write', 'clipboard-read', 'media', 'notifications']) {
      expect(await m.call('permission', { permission }), permission).toEqual({ granted: false, check: false });
    }
  });

  it('the IPC check trusts the window’s main frame by identity: a child frame or another page with the same URL is refused', async ({
    bootMain,
  }) => {
    const m = bootMain();
    await started(m);
    expect(await m.call('invoke', { channel: 'app:info' })).toMatchObject({ ok: true, data: { host: 'electron' } });
    for (const from of ['child', 'url-twin'])
      expect(await m.call('invoke', { channel: 'app:info', from }), from).toEqual({ ok: false, error: REFUSED });
  });

  it('right-click in a text field shows Cut, Copy, Paste and Select All; on selected text, Copy; elsewhere nothing', async ({
    bootMain,
  }) => {
    const m = bootMain();
    await started(m);
    const flags = {
      canUndo: false,
      canRedo: false,
      canCut: true,
      canCopy: true,
      canPaste: true,
      canDelete: true,
      canSelectAll: true,
      canEditRichly: false,
    };
    const field = await m.call<{ items: { role: string | null; enabled: boolean; label: string }[] }>('contextMenu', {
      params: { x: 5, y: 5, isEditable: true, selectionText: 'abc', editFlags: flags, linkURL: '', mediaType: 'none' },
    });
    expect(field.items.filter((i) => i.role).map((i) => [i.role, i.enabled])).toEqual([
      ['undo', false],
      ['redo', false],
      ['cut', true],
      ['copy', true],
      ['paste', true],
      ['selectall', true],
    ]);
    const selection = await m.call<{ items: { role: string | null }[] }>('contextMenu', {
      params: {
        isEditable: false,
        selectionText: '34.6K tok/s',
        editFlags: { ...flags, canCut: false, canPaste: false },
        mediaType: 'none',
      },
    });
    expect(selection.items.map((i) => i.role)).toEqual(['copy']);
    expect(
      await m.call('contextMenu', {
        params: { isEditable: false, selectionText: '', editFlags: flags, mediaType: 'none' },
      }),
    ).toBeNull();
  });

  it("production CSP on every response: script-src 'self', nothing inline", async ({ bootMain }) => {
    const m = bootMain();
    await started(m);
    const r = await m.call<{ responseHeaders: Record<string, string[]> }>('headers', {
      url: 'file:///x/index.html',
      responseHeaders: { 'Content-Type': ['text/html'] },
    });
    expect(r.responseHeaders['Content-Security-Policy']).toEqual([CSP]);
    expect(r.responseHeaders['Content-Type']).toEqual(['text/html']);
    expect(directives(CSP).get('script-src')).toBe("'self'");
  });

  it('quits at once when nothing is unsaved: no question, exit 0', async ({ bootMain }) => {
    const m = bootMain();
    await started(m);
    await m.call('appQuit');
    const { code, record } = await m.exited;
    expect(code).toBe(0);
    expect(record!.messageBoxes).toEqual([]);
    expect(record!.appEvents).toContain('will-quit');
  });
});

describe('development (npm run dev)', () => {
  it('loads the dev server and sends its CSP, which differs only by the inline preamble and the hot-reload socket', async ({
    bootMain,
  }) => {
    const m = bootMain({ env: { ELECTRON_RENDERER_URL: 'http://localhost:5173' } });
    const s = await started(m);
    expect(s.windows[0].loaded).toEqual(['http://localhost:5173']);
    const r = await m.call<{ responseHeaders: Record<string, string[]> }>('headers', {
      url: 'http://localhost:5173/',
      responseHeaders: {},
    });
    const dev = r.responseHeaders['Content-Security-Policy'][0];
    expect(dev).toBe(devCsp('http://localhost:5173'));
    const [prod, d] = [directives(CSP), directives(dev)];
    const changed = [...d.keys()].filter((k) => d.get(k) !== prod.get(k));
    expect(changed.sort()).toEqual(['connect-src', 'script-src']);
    expect(d.get('script-src')).toBe("'self' 'unsafe-inline'");
    expect(d.get('connect-src')).toBe("'self' ws://localhost:5173");
    expect([...d.keys()]).toEqual([...prod.keys()]);
  });
});

describe('quitting with unsaved results', () => {
  it('Cmd+Q asks (Save / Don’t Save / Cancel); Cancel keeps the app and the results; File > Quit then Don’t Save quits', async ({
    bootMain,
    sim,
  }) => {
    const m = bootMain();
    await started(m);
    await measureUnsaved(m, sim);
    await m.call('appQuit');
    let s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    const box = openBoxes(s)[0];
    expect(box.window).toBe(s.windows[0].id);
    expect(box.options.buttons).toEqual(['Save…', "Don't Save", 'Cancel']);
    expect(box.options.cancelId).toBe(2);
    expect(box.options.message).toMatch(/not saved\. Save them before quitting\?/);
    expect(s.appEvents).not.toContain('will-quit');
    await m.call('answer', { kind: 'message', answer: { response: 2 } });
    s = await m.state();
    expect(s.openWindows).toHaveLength(1);
    expect(await openSessionMeta(m)).toMatchObject({ dirty: true });
    expect(await m.call('invoke', { channel: 'app:info' })).toMatchObject({ ok: true });

    await m.call('menuClick', { path: ['File', 'quit'] });
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question again');
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    const { code, record } = await m.exited;
    expect(code).toBe(0);
    expect(record!.messageBoxes).toHaveLength(2);
    expect(record!.appEvents.filter((e) => e === 'will-quit')).toHaveLength(1);
  });

  it('closing the window asks too; Save asks where, writes the session, then quits', async ({ bootMain, sim }) => {
    const m = bootMain();
    await started(m);
    await measureUnsaved(m, sim);
    await m.call('windowClose');
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    await m.call('answer', { kind: 'message', answer: { response: 0 } });
    const s = await m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'the save dialog');
    expect(s.fileDialogs[0].kind).toBe('save');
    const target = join(tmp, 'closing.speedmatrix.json');
    await m.call('answer', { kind: 'file', answer: { canceled: false, filePath: target } });
    const { code } = await m.exited;
    expect(code).toBe(0);
    const saved = await readSessionFile(target);
    expect(saved.ok).toBe(true);
  });

  it('Save then cancelling the save dialog keeps the app open with the results', async ({ bootMain, sim }) => {
    const m = bootMain();
    await started(m);
    await measureUnsaved(m, sim);
    await m.call('appQuit');
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    await m.call('answer', { kind: 'message', answer: { response: 0 } });
    await m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'the save dialog');
    await m.call('answer', { kind: 'file', answer: { canceled: true, filePath: undefined } });
    await new Promise((r) => setTimeout(r, 300));
    const s = await m.state();
    expect(s.openWindows).toHaveLength(1);
    expect(s.appEvents).not.toContain('will-quit');
    expect(await openSessionMeta(m)).toMatchObject({ dirty: true });
  });
});

describe('a run in progress when quitting', () => {
  // Windows of 30 simulated seconds (1.5 s at speed 20): the run cannot end while the test waits on the question.
  const form = {
    contexts: [0],
    concurrency: [1, 2, 4, 8, 16, 32],
    prefillContexts: [],
    secondsPerMeasurement: 30,
    maxOutputTokens: 1024,
    tokenTargeting: 'estimate',
  };
  const runOf = (m: MainProcess) => async () =>
    (
      await m.call<{ data: { phase: string; progress: { done: number } | null } }>('invoke', {
        channel: 'run:snapshot',
      })
    ).data;

  /** Attaches to the simulator and starts a run through the page's IPC; returns once a cell is done. */
  async function runningApp(boot: BootMain, sim: SimHandle, userData: string): Promise<MainProcess> {
    const m = boot({ userData });
    await started(m);
    const d = await m.call<{ ok: boolean; data: Record<string, unknown> }>('invoke', { channel: 'server:defaults' });
    expect(
      await m.call('invoke', {
        channel: 'server:start',
        args: [{ ...d.data, kind: 'attach', url: sim.url, model: '' }],
      }),
    ).toMatchObject({ ok: true });
    const snap = async () =>
      (await m.call<{ data: { state: string } }>('invoke', { channel: 'server:snapshot' })).data.state;
    for (let i = 0; i < 200 && (await snap()) !== 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await m.call('invoke', { channel: 'run:start', args: [form] })).toMatchObject({ ok: true });
    const run = runOf(m);
    for (let i = 0; i < 600 && ((await run()).progress?.done ?? 0) < 1; i++)
      await new Promise((r) => setTimeout(r, 100));
    return m;
  }

  it('keeps running while the question is open, and is stopped and kept in its working file only after the answer', async ({
    bootMain,
    sim,
  }) => {
    const userData = join(tmp, 'user-run');
    const m = await runningApp(bootMain, sim, userData);
    const run = runOf(m);
    await new Promise((r) => setTimeout(r, 300));
    const menusBefore = (await m.state()).applicationMenus.length;

    await m.call('appQuit');
    const s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    expect(openBoxes(s)[0].options.message).toMatch(/A run is in progress/);
    // Unanswered: the run goes on.
    await new Promise((r) => setTimeout(r, 2500));
    const during = await run();
    expect(['prefill', 'decode']).toContain(during.phase);
    expect(during.progress!.done).toBeGreaterThanOrEqual(1);
    // Finished cells do not rebuild the menu.
    expect((await m.state()).applicationMenus.length).toBe(menusBefore);

    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    const { code } = await m.exited;
    expect(code).toBe(0);
    const runsDir = join(userData, 'core', 'runs');
    const files = readdirSync(runsDir).filter((f) => f.endsWith('.speedmatrix.json'));
    expect(files).toHaveLength(1);
    const saved = await readSessionFile(join(runsDir, files[0]));
    expect(saved.ok).toBe(true);
    const cells = saved.ok ? saved.data.cells : [];
    const measured = cells.filter((c) => c.status !== 'cancelled' && c.status !== 'skipped').length;
    expect(measured, JSON.stringify(cells.map((c) => [c.concurrency, c.status]))).toBeGreaterThanOrEqual(
      during.progress!.done,
    );
    // Stopped, not run to the end.
    expect(measured).toBeLessThan(form.concurrency.length);
    // The full file is on disk, so the journal is gone.
    expect(readdirSync(runsDir).filter((f) => f.endsWith('.journal'))).toEqual([]);
  }, 120_000);

  it('Save stops the run first, then saves every finished cell where the person chose, then quits', async ({
    bootMain,
    sim,
  }) => {
    const m = await runningApp(bootMain, sim, join(tmp, 'user-run-save'));
    const done = (await runOf(m)()).progress!.done;
    await m.call('windowClose');
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    await m.call('answer', { kind: 'message', answer: { response: 0 } });
    await m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'the save dialog');
    const target = join(tmp, 'stopped-run.speedmatrix.json');
    await m.call('answer', { kind: 'file', answer: { canceled: false, filePath: target } });
    expect((await m.exited).code).toBe(0);
    const saved = await readSessionFile(target);
    expect(saved.ok).toBe(true);
    const cells = saved.ok ? saved.data.cells : [];
    expect(cells.filter((c) => c.status !== 'cancelled' && c.status !== 'skipped').length).toBeGreaterThanOrEqual(done);
  }, 120_000);
});

describe('files opened from main', () => {
  it('Open Recent asks before replacing unsaved results; Cancel keeps them, Don’t Save opens the file', async ({
    bootMain,
    sim,
  }) => {
    const file = sessionFile('recent/earlier.speedmatrix.json');
    const m = bootMain({ recent: [file] });
    let s = await started(m);
    expect(menuItem(lastMenu(s), 'File', 'Open Recent', 'earlier.speedmatrix.json')!.toolTip).toBe(file);
    const menusAtStart = s.applicationMenus.length;
    await importReport(m);
    await importReport(m);
    s = await m.state();
    // One rebuild for the first import (Save and Export become available), none for the second.
    expect(s.applicationMenus.length).toBe(menusAtStart + 1);
    expect(menuItem(lastMenu(s), 'File', 'Save')!.enabled).toBe(true);
    await measureUnsaved(m, sim);

    await m.call('menuClick', { path: ['File', 'Open Recent', 'earlier.speedmatrix.json'] });
    s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    expect(openBoxes(s)[0].options.message).toMatch(/Save them before opening earlier\.speedmatrix\.json\?/);
    await m.call('answer', { kind: 'message', answer: { response: 2 } });
    await new Promise((r) => setTimeout(r, 300));
    expect(await openSessionMeta(m)).toMatchObject({ sourceName: null, dirty: true });

    await m.call('menuClick', { path: ['File', 'Open Recent', 'earlier.speedmatrix.json'] });
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question again');
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    s = await m.waitFor((x) => sentOn(x, 'menu').includes('view-results'), 'the Results view');
    expect(await openSessionMeta(m)).toMatchObject({ file, dirty: false });
    expect(sentOn(s, 'notice')).toContainEqual({ level: 'info', message: `Opened ${file}` });
  });

  it('an imported report left unchanged is not unsaved: Open Recent opens without asking, and quitting asks nothing', async ({
    bootMain,
  }) => {
    const file = sessionFile('recent/after-import.speedmatrix.json');
    const m = bootMain({ recent: [file] });
    await started(m);
    await importReport(m);
    await m.call('menuClick', { path: ['File', 'Open Recent', 'after-import.speedmatrix.json'] });
    await m.waitFor((x) => sentOn(x, 'menu').includes('view-results'), 'the Results view');
    expect(await openSessionMeta(m)).toMatchObject({ file, dirty: false });
    await importReport(m);
    await m.call('appQuit');
    const { code, record } = await m.exited;
    expect(code).toBe(0);
    expect(record!.messageBoxes).toEqual([]);
  });

  it('a file opened for the first time is in Open Recent at once', async ({ bootMain }) => {
    const file = sessionFile('recent/first-time.speedmatrix.json');
    const m = bootMain();
    await started(m);
    // The page names a path nobody picked: refused. Dropped (the preload tells main its path): opened.
    const named = await m.call<{ ok: boolean; error?: string }>('invoke', { channel: 'session:open', args: [file] });
    expect(named.error).toMatch(/^Nothing opened: SpeedMatrix opens only files you chose/);
    await m.call('invoke', { channel: 'file:dropped', args: [file] });
    expect(await m.call('invoke', { channel: 'session:open', args: [file] })).toMatchObject({ ok: true });
    const s = await m.waitFor(
      (x) => menuItem(lastMenu(x), 'File', 'Open Recent', 'first-time.speedmatrix.json') !== undefined,
      'the file in Open Recent',
      5_000,
    );
    expect(menuItem(lastMenu(s), 'File', 'Open Recent')!.submenu!.map((i) => i.toolTip)).toEqual([file]);
  });

  it('a second launch with a relative path opens it from that launch’s folder, after asking', async ({
    bootMain,
    sim,
  }) => {
    const file = sessionFile('second/sub/other.speedmatrix.json');
    const m = bootMain();
    await started(m);
    await measureUnsaved(m, sim);
    const launchedFrom = join(tmp, 'second');
    await m.call('emitApp', {
      name: 'second-instance',
      args: [['/opt/SpeedMatrix/speedmatrix', '--no-sandbox', 'sub/other.speedmatrix.json'], launchedFrom, {}],
    });
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    const s = await m.waitFor((x) => sentOn(x, 'menu').includes('view-results'), 'the Results view');
    expect(await openSessionMeta(m)).toMatchObject({ file });
    expect(s.windows[0].focused).toBeGreaterThanOrEqual(1);
  });

  it('macOS open-file: before ready it opens once the window is there; after ready it is handled (preventDefault) and opened', async ({
    bootMain,
  }) => {
    const early = sessionFile('finder/early.speedmatrix.json');
    const late = sessionFile('finder/late.speedmatrix.json');
    const m = bootMain({ env: { STANDIN_OPEN_FILE_BEFORE_READY: early } });
    await started(m);
    await m.waitFor(
      (x) => sentOn(x, 'notice').some((n) => (n as { message: string }).message === `Opened ${early}`),
      'the early file',
    );
    expect(await m.call('emitApp', { name: 'open-file', args: [late] })).toEqual({ defaultPrevented: true });
    await m.waitFor(
      (x) => sentOn(x, 'notice').some((n) => (n as { message: string }).message === `Opened ${late}`),
      'the late file',
    );
    expect(await openSessionMeta(m)).toMatchObject({ file: late });
  });

  it('a file on the command line opens once the page has loaded', async ({ bootMain }) => {
    const file = sessionFile('argv/cli.speedmatrix.json');
    const m = bootMain({ argv: [file] });
    await m.waitFor((x) => sentOn(x, 'menu').includes('view-results'), 'the Results view');
    expect(await openSessionMeta(m)).toMatchObject({ file });
  });
});

describe('a start that fails', () => {
  it('an unwritable user-data folder shows an error dialog and exits 1, with no window left', async ({ bootMain }) => {
    const blocker = join(tmp, 'not-a-folder');
    writeFileSync(blocker, '');
    const m = bootMain({ userData: join(blocker, 'SpeedMatrix') });
    const { code, record } = await m.exited;
    expect(code).toBe(1);
    expect(record!.errorBoxes).toHaveLength(1);
    expect(record!.errorBoxes[0].title).toBe('SpeedMatrix could not start');
    expect(record!.errorBoxes[0].content).toContain(join(blocker, 'SpeedMatrix'));
    expect(record!.errorBoxes[0].content).toMatch(/--user-data-dir=/);
    expect(record!.windows).toEqual([]);
  });
});
