/**
 * The Electron shell where real machines differ from a kind stand-in: the single-instance lock
 * that fails on an unwritable user-data folder, one user-data folder shared with the CLI, a page
 * that crashes, cannot load, hangs or loses its preload, save dialogs that ask about the very
 * file written, main's own question before it runs a command the page wrote, no developer
 * tools in an installed app, macOS Dock activation, addRecentDocument, and quitting while the
 * server stops. The built main runs against the electron stand-in (electron-standin/), which
 * behaves here as Electron 45 documents it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { createSession } from '../../../src-main/platform/session/create';
import { createSweep } from '../../../src-main/workflows/sweep/folder';
import { serializeSession } from '../../../src-main/platform/session/write';
import { userDataDir } from '../../../src-main/engine/server/launched-registry';
import { standinTest as it } from '../../helpers/fixtures';
import { type MainProcess, type Recorded, menuItem } from './electron-standin/boot';

const started = (m: MainProcess) =>
  m.waitFor((s) => s.windows.length > 0 && s.applicationMenus.length > 0, 'the window and the menu');
const openBoxes = (s: Recorded) => s.messageBoxes.filter((d) => d.answer === null);
const notices = (s: Recorded) =>
  s.sent.filter((x) => x.channel === 'speedmatrix:notice').map((x) => (x.args[0] as { message: string }).message);

function sessionFile(dir: string, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, serializeSession(createSession({ simulated: true })));
  return file;
}

describe('the user-data folder and the single-instance lock', () => {
  it('a user-data folder that cannot be written: an error box once ready, naming the folder, exit 1', async ({
    bootMain,
    tempDir,
  }) => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, '');
    const m = bootMain({ userData: join(blocker, 'speedmatrix') });
    const { code, record } = await m.exited;
    expect(code).toBe(1);
    expect(record!.errorBoxes).toHaveLength(1);
    expect(record!.errorBoxes[0].content).toContain(join(blocker, 'speedmatrix'));
    expect(record!.stderr).toEqual([]);
    expect(record!.windows).toEqual([]);
  });

  it('another instance holds the lock: this one quits quietly with 0', async ({ bootMain }) => {
    const m = bootMain({ env: { STANDIN_LOCK_HELD: '1' } });
    const { code, record } = await m.exited;
    expect(code).toBe(0);
    expect(record!.errorBoxes).toEqual([]);
    expect(record!.windows).toEqual([]);
  });

  it('without --user-data-dir the app uses the folder the CLI’s launched-servers registry uses', async ({
    bootMain,
    tempDir,
  }) => {
    const config = tempDir();
    const m = bootMain({ userData: null, env: { XDG_CONFIG_HOME: config } });
    await started(m);
    const expected = userDataDir({ XDG_CONFIG_HOME: config }, 'linux');
    expect(expected).toBe(join(config, 'speedmatrix'));
    expect(existsSync(join(expected, 'SingletonLock'))).toBe(true);
    expect(existsSync(join(expected, 'core'))).toBe(true);
  });
});

describe('a page that goes wrong', () => {
  it('a renderer that dies before its first paint: the window is shown, the page reloaded, and it says what happened', async ({
    bootMain,
  }) => {
    const m = bootMain({ env: { STANDIN_PAGE: 'crash' } });
    const s = await m.waitFor(
      (x) => notices(x).some((n) => n.includes('stopped (crashed')),
      'the notice after the reload',
    );
    expect(s.windows[0].shown).toBe(true);
    expect(s.windows[0].loaded).toHaveLength(2);
    expect(notices(s).find((n) => n.includes('stopped'))).toMatch(/was reloaded; your results, any run and the server/);
    expect(await m.call('invoke', { channel: 'app:info' })).toMatchObject({ ok: true });
  });

  it('a page that keeps crashing is not reloaded for ever: the third crash in a minute asks Reload / Quit', async ({
    bootMain,
  }) => {
    const m = bootMain();
    await started(m);
    for (let i = 1; i <= 2; i++) {
      await m.call('page', { event: 'crash' });
      await m.waitFor((x) => x.windows[0].loaded.length === 1 + i, `reload ${i}`);
    }
    await m.call('page', { event: 'crash' });
    const s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    expect(s.windows[0].loaded).toHaveLength(3);
    expect(openBoxes(s)[0].options.buttons).toEqual(['Reload', 'Quit']);
    expect(openBoxes(s)[0].options.message).toMatch(/stopped 3 times in the last minute/);
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    expect((await m.exited).code).toBe(0);
  });

  it('a page that cannot load: the window is shown with the reason and Reload / Quit, and no unhandled rejection', async ({
    bootMain,
  }) => {
    const m = bootMain({ env: { ELECTRON_RENDERER_URL: 'file:///nonexistent/speedmatrix/index.html' } });
    const s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    expect(s.windows[0].shown).toBe(true);
    expect(openBoxes(s)[0].options.message).toBe('The SpeedMatrix page could not load.');
    expect(openBoxes(s)[0].options.detail).toContain('ERR_FILE_NOT_FOUND (-6)');
    await m.call('answer', { kind: 'message', answer: { response: 0 } });
    await m.waitFor((x) => openBoxes(x).length === 1 && x.windows[0].loaded.length === 2, 'the question after Reload');
    expect(m.stderr()).not.toMatch(/Unhandled|UnhandledPromiseRejection/);
  });

  it('a hung page: Wait / Reload, closed by itself when the page recovers; Reload ends the renderer and reloads', async ({
    bootMain,
  }) => {
    const m = bootMain();
    await started(m);
    await m.call('page', { event: 'unresponsive' });
    let s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    expect(openBoxes(s)[0].options.buttons).toEqual(['Wait', 'Reload']);
    await m.call('page', { event: 'responsive' });
    s = await m.waitFor((x) => openBoxes(x).length === 0, 'the question closed');
    expect(s.messageBoxes[0].answer).toEqual({ aborted: true });
    expect(s.windows[0].loaded).toHaveLength(1);

    await m.call('page', { event: 'unresponsive' });
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question again');
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    s = await m.waitFor((x) => notices(x).some((n) => n.includes('stopped (killed')), 'the reload');
    expect(s.windows[0].loaded).toHaveLength(2);
  });

  it('a preload that throws: the window is shown and says the page lost its connection', async ({ bootMain }) => {
    const m = bootMain({ env: { STANDIN_PAGE: 'preload-error' } });
    const s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    expect(s.windows[0].shown).toBe(true);
    expect(openBoxes(s)[0].options.message).toMatch(/lost its connection/);
    expect(openBoxes(s)[0].options.detail).toContain("Cannot find module 'electron/renderer'");
  });
});

describe('save, export and folder dialogs', () => {
  it('Save As opens in the session’s folder and asks GTK to confirm overwriting; a name typed without the extension that exists is asked about', async ({
    bootMain,
    tempDir,
  }) => {
    const dir = tempDir();
    const file = sessionFile(dir, 'mine.speedmatrix.json');
    const taken = join(dir, 'other.speedmatrix.json');
    writeFileSync(taken, 'keep me');
    const m = bootMain();
    await started(m);
    // Dropped on the window: the preload tells main the path first.
    await m.call('invoke', { channel: 'file:dropped', args: [file] });
    expect(await m.call('invoke', { channel: 'session:open', args: [file] })).toMatchObject({ ok: true });
    const saving = m.call<{ ok: boolean; code?: string }>('invoke', { channel: 'session:save-as' });
    let s = await m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'the save dialog');
    const d = s.fileDialogs.at(-1)!;
    expect(d.options.defaultPath).toBe(file);
    expect((d.options as { properties?: string[] }).properties).toEqual(
      expect.arrayContaining(['showOverwriteConfirmation', 'createDirectory']),
    );
    // GTK returns the name as typed: "other", whose file is other.speedmatrix.json.
    await m.call('answer', { kind: 'file', answer: { canceled: false, filePath: join(dir, 'other') } });
    s = await m.waitFor((x) => openBoxes(x).length === 1, 'the replace question');
    expect(openBoxes(s)[0].options.message).toBe('other.speedmatrix.json already exists. Replace it?');
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    expect(await saving).toMatchObject({ ok: false, code: 'cancelled' });
    expect(readFileSync(taken, 'utf8')).toBe('keep me');

    const again = m.call<{ ok: boolean; data: { file: string } }>('invoke', { channel: 'session:save-as' });
    await m.waitFor((x) => x.fileDialogs.filter((f) => f.answer === null).length === 1, 'the save dialog again');
    await m.call('answer', { kind: 'file', answer: { canceled: false, filePath: join(dir, 'other') } });
    await m.waitFor((x) => openBoxes(x).length === 1, 'the replace question again');
    await m.call('answer', { kind: 'message', answer: { response: 0 } });
    expect(await again).toMatchObject({ ok: true, data: { file: taken } });
    expect(readFileSync(taken, 'utf8')).toContain('"format"');
  });

  it('the sweep folder picker can make a new folder (macOS createDirectory, Windows promptToCreate)', async ({
    bootMain,
  }) => {
    const m = bootMain();
    await started(m);
    // Left unanswered: the main process is ended with the test.
    m.call('invoke', { channel: 'sweep:choose-dir' }).catch(() => undefined);
    const s = await m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'the folder dialog');
    expect((s.fileDialogs[0].options as { properties?: string[] }).properties).toEqual([
      'openDirectory',
      'createDirectory',
      'promptToCreate',
    ]);
  });
});

describe('commands the page asks main to run', () => {
  it('a custom command line is shown, argument by argument with its environment, before anything runs; Cancel runs nothing', async ({
    bootMain,
    tempDir,
  }) => {
    const marker = join(tempDir(), 'ran');
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`;
    const form = {
      kind: 'custom',
      model: 'm',
      customCommand: [process.execPath, '-e', script].join('\n'),
      extraEnv: 'LD_PRELOAD=/tmp/evil.so',
      port: 18_999,
    };
    const m = bootMain();
    await started(m);
    const start = m.call<{ ok: boolean; code?: string }>('invoke', { channel: 'server:start', args: [form] });
    const s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    const box = openBoxes(s)[0];
    expect(box.options.buttons).toEqual(['Run', 'Cancel']);
    expect(box.options.cancelId).toBe(1);
    expect(box.options.defaultId).toBe(1);
    expect(box.options.detail).toContain(`  ${JSON.stringify(process.execPath)}\n  "-e"\n  ${JSON.stringify(script)}`);
    expect(box.options.detail).toContain('LD_PRELOAD="/tmp/evil.so"');
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    expect(await start).toMatchObject({ ok: false, code: 'cancelled' });
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(marker)).toBe(false);
    expect(await m.call('invoke', { channel: 'server:snapshot' })).toMatchObject({ data: { state: 'idle' } });

    const again = m.call<{ ok: boolean }>('invoke', { channel: 'server:start', args: [form] });
    await m.waitFor((x) => openBoxes(x).length === 1, 'the question again');
    await m.call('answer', { kind: 'message', answer: { response: 0 } });
    expect(await again).toMatchObject({ ok: true });
    await m.waitFor(() => existsSync(marker), 'the command to run');
  });

  it('Resume on a sweep folder made elsewhere shows the commands its sweep.json would run, and Cancel runs none', async ({
    bootMain,
    tempDir,
  }) => {
    const dir = join(tempDir(), 'from-elsewhere');
    const marker = join(tempDir(), 'ran');
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`;
    const made = await createSweep(dir, {
      command: [process.execPath, '-e', script, '--port', '18998'],
      env: { LD_PRELOAD: '/tmp/evil.so' },
      axes: [{ flag: '--max-num-seqs', values: ['8', '16'] }],
      config: { contexts: [0], concurrency: [1], secondsPerMeasurement: 5 },
    });
    expect(made.ok).toBe(true);
    const m = bootMain();
    await started(m);
    // The app writes only into a folder the person chose: the folder dialog first.
    const chosen = m.call('invoke', { channel: 'sweep:choose-dir' });
    await m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'the folder dialog');
    await m.call('answer', { kind: 'file', answer: { canceled: false, filePaths: [dir] } });
    expect(await chosen).toMatchObject({ ok: true, data: dir });
    const resume = m.call<{ ok: boolean; code?: string }>('invoke', { channel: 'sweep:resume', args: [dir] });
    const s = await m.waitFor((x) => openBoxes(x).length === 1, 'the question');
    const box = openBoxes(s)[0];
    expect(box.options.message).toContain(`Resume the sweep in ${dir}? SpeedMatrix did not start it`);
    for (const seqs of ['8', '16']) expect(box.options.detail).toContain(`--max-num-seqs=${seqs}:`);
    expect(box.options.detail).toContain(JSON.stringify(script));
    expect(box.options.detail).toContain('LD_PRELOAD="/tmp/evil.so"');
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    expect(await resume).toMatchObject({ ok: false, code: 'cancelled' });
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(marker)).toBe(false);
  });

  it('the simulator (SpeedMatrix’s own program) starts without a question', async ({ bootMain }) => {
    const m = bootMain();
    await started(m);
    const r = await m.call('invoke', {
      channel: 'server:start',
      args: [{ kind: 'simulator', model: 'sim', simSpeed: 20, simLoadSeconds: 0 }],
    });
    expect(r).toMatchObject({ ok: true });
    expect((await m.state()).messageBoxes).toEqual([]);
    expect(await m.call('invoke', { channel: 'server:stop' })).toMatchObject({ ok: true });
  });
});

describe('developer tools', () => {
  it('an installed (packaged) app has no developer tools menu item and the window refuses them; npm start has both', async ({
    bootMain,
  }) => {
    const helpItems = (s: Recorded) => menuItem(s.applicationMenus.at(-1), 'help')!.submenu!.map((i) => i.label);
    const packaged = await started(bootMain({ env: { STANDIN_PACKAGED: '1' } }));
    expect(helpItems(packaged)).toEqual(['vLLM documentation']);
    expect(packaged.windows[0].options.webPreferences).toMatchObject({ devTools: false });
    const dev = await started(bootMain());
    expect(helpItems(dev)).toContain('Toggle developer tools');
    expect(dev.windows[0].options.webPreferences).toMatchObject({ devTools: true });
  });
});

describe('macOS', () => {
  it('activate (the Dock icon) restores a minimised window and brings it forward', async ({ bootMain }) => {
    const m = bootMain({ env: { STANDIN_PLATFORM: 'darwin' } });
    await started(m);
    await m.call('windowMinimize');
    const before = (await m.state()).windows[0].focused;
    await m.call('emitApp', { name: 'activate', args: [false] });
    const s = await m.state();
    expect(s.windows[0].minimized).toBe(false);
    expect(s.windows[0].shown).toBe(true);
    expect(s.windows[0].focused).toBe(before + 1);
  });

  it('files opened and saved go to the OS’s recent documents', async ({ bootMain, tempDir }) => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const file = sessionFile(dir, 'recent.speedmatrix.json');
    const m = bootMain({ env: { STANDIN_PLATFORM: 'darwin' } });
    await started(m);
    await m.call('emitApp', { name: 'open-file', args: [file] });
    const s = await m.waitFor((x) => x.recentDocuments.length > 0, 'the recent document');
    expect(s.recentDocuments).toEqual([file]);
  });
});

it('quitting while the server runs says it is stopping the server, then exits', async ({ bootMain }) => {
  const m = bootMain();
  await started(m);
  await m.call('invoke', {
    channel: 'server:start',
    args: [{ kind: 'simulator', model: 'sim', simSpeed: 20, simLoadSeconds: 0 }],
  });
  for (let i = 0; i < 200; i++) {
    const snap = await m.call<{ data: { state: string } }>('invoke', { channel: 'server:snapshot' });
    if (snap.data.state === 'ready') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await m.call('appQuit');
  const { code, record } = await m.exited;
  expect(code).toBe(0);
  expect(notices(record!)).toContain('Stopping the server before quitting…');
  expect(record!.windows[0].title).toBe('SpeedMatrix: stopping the server…');
}, 60_000);
