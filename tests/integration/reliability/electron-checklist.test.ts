/**
 * The Electron security checklist, item by item, with electron mocked: the window as
 * window.ts builds it, the session hardening, the preload surface, and every IPC handler's
 * sender check and argument validation against the contract. The same checks with the real
 * binary are in tests/e2e/security.test.ts.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../../helpers/paths';

interface FakeWebContents {
  handlers: Map<string, (...a: unknown[]) => unknown>;
  openHandler: ((d: { url: string }) => { action: string }) | null;
}
const m = vi.hoisted(() => ({
  windows: [] as { options: Record<string, unknown>; loaded: string[]; wc: FakeWebContents }[],
  external: [] as string[],
  headers: null as
    | null
    | ((
        d: { responseHeaders: Record<string, string[]> },
        cb: (r: { responseHeaders: Record<string, string[]> }) => void,
      ) => void),
  permission: null as null | ((wc: unknown, p: string, cb: (ok: boolean) => void) => void),
  permissionCheck: null as null | (() => boolean),
  ipc: new Map<string, (event: unknown, ...args: unknown[]) => unknown>(),
  exposed: new Map<string, Record<string, unknown>>(),
  invoked: [] as string[],
  invokedArgs: [] as unknown[][],
  /** What webUtils knows: the paths of Files a real drop made. */
  dropped: new WeakMap<object, string>(),
}));

vi.mock('electron', () => {
  class BrowserWindow {
    webContents: FakeWebContents & Record<string, unknown>;
    constructor(options: Record<string, unknown>) {
      const wc: FakeWebContents & Record<string, unknown> = {
        handlers: new Map(),
        openHandler: null,
        setWindowOpenHandler(fn: FakeWebContents['openHandler']) {
          wc.openHandler = fn;
        },
        on(ev: string, fn: (...a: unknown[]) => unknown) {
          wc.handlers.set(ev, fn);
        },
      };
      this.webContents = wc;
      m.windows.push({ options, loaded: [], wc });
    }
    once() {}
    on() {}
    async loadURL(url: string) {
      m.windows.at(-1)!.loaded.push(url);
    }
  }
  return {
    BrowserWindow,
    app: { isPackaged: false },
    shell: { openExternal: async (u: string) => void m.external.push(u) },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (fn: typeof m.headers) => (m.headers = fn) },
        setPermissionRequestHandler: (fn: typeof m.permission) => (m.permission = fn),
        setPermissionCheckHandler: (fn: typeof m.permissionCheck) => (m.permissionCheck = fn),
      },
    },
    ipcMain: {
      handle: (ch: string, fn: (event: unknown, ...args: unknown[]) => unknown) => m.ipc.set(ch, fn),
      removeHandler: (ch: string) => m.ipc.delete(ch),
    },
    contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => m.exposed.set(key, api) },
    ipcRenderer: {
      invoke: async (ch: string, ...args: unknown[]) => void (m.invoked.push(ch), m.invokedArgs.push(args)),
      on: () => undefined,
      removeListener: () => undefined,
    },
    webUtils: {
      // As Electron's: a File's path from a drop or a file input, '' for one the page made, a throw for a non-File.
      getPathForFile: (f: unknown) => {
        if (!(f instanceof File)) throw new TypeError('Error processing argument at index 0, conversion failure');
        return m.dropped.get(f) ?? '';
      },
    },
  };
});

import { CSP, createMainWindow, hardenSession, rendererUrl } from '../../../src-main/hosts/electron/window';
import {
  DROPPED_FILE_CHANNEL,
  EXTERNAL_ALLOWLIST,
  IPC_PREFIX,
  bridgeEvents,
  bridgeMethods,
} from '#shared/ipc/channels';
import { invokeArgs } from '#shared/ipc/contract';
import { REFUSED, registerIpc } from '../../../src-main/hosts/electron/ipc-handlers';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { createSession } from '../../../src-main/platform/session/create';
import { serializeSession } from '../../../src-main/platform/session/write';

/** What a page that dies or hangs would trigger: not exercised here (tests/unit/app/shell.test.ts). */
const NO_HEALTH_CHECKS = { notify: () => undefined, quit: () => undefined };
const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-checklist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  delete process.env.ELECTRON_RENDERER_URL;
});

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([k, ...v]) => [k, v]),
  );
}

describe('the window (window.ts)', () => {
  it('context isolation, sandbox, no Node integration, webSecurity on, no webview, no insecure content', () => {
    createMainWindow(NO_HEALTH_CHECKS);
    const prefs = m.windows.at(-1)!.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    });
    expect(prefs.nodeIntegrationInWorker).not.toBe(true);
    expect(prefs.nodeIntegrationInSubFrames).not.toBe(true);
    expect(prefs.experimentalFeatures).not.toBe(true);
    expect(String(prefs.preload)).toMatch(/preload[/\\]index\.js$/);
  });

  it('loads only the local page: no remote content', () => {
    createMainWindow(NO_HEALTH_CHECKS);
    const loaded = m.windows.at(-1)!.loaded;
    expect(loaded).toEqual([rendererUrl()]);
    expect(loaded[0]).toBe('app://speedmatrix/index.html');
  });

  it('window.open is denied for every URL; allowlisted https links go to the system browser, nothing else does', () => {
    createMainWindow(NO_HEALTH_CHECKS);
    const open = m.windows.at(-1)!.wc.openHandler!;
    m.external.length = 0;
    const tries = [
      'https://github.com/vllm-project/vllm',
      'https://docs.vllm.ai/en/latest/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'http://github.com/',
      'https://github.com.evil.example/',
      'https://evil.example/https://github.com/',
      'data:text/html,<script>1</script>',
      'about:blank',
    ];
    for (const url of tries) expect(open({ url })).toEqual({ action: 'deny' });
    expect(m.external).toEqual(['https://github.com/vllm-project/vllm', 'https://docs.vllm.ai/en/latest/']);
    for (const p of EXTERNAL_ALLOWLIST) expect(p).toMatch(/^https:\/\/[a-z.]+\/$/);
  });

  it('navigation away from the page, redirects and webviews are prevented', () => {
    createMainWindow(NO_HEALTH_CHECKS);
    const { handlers } = m.windows.at(-1)!.wc;
    const nav = (url: string) => {
      let prevented = false;
      handlers.get('will-navigate')!({ preventDefault: () => (prevented = true) }, url);
      return prevented;
    };
    expect(nav('https://evil.example/')).toBe(true);
    expect(nav('file:///tmp/other.html')).toBe(true);
    expect(nav('javascript:alert(1)')).toBe(true);
    expect(nav(rendererUrl())).toBe(false);
    for (const ev of ['will-redirect', 'will-attach-webview']) {
      let prevented = false;
      handlers.get(ev)!({ preventDefault: () => (prevented = true) }, 'https://evil.example/');
      expect(prevented, ev).toBe(true);
    }
  });
});

describe('the session and the CSP', () => {
  it("CSP: script-src 'self' only, nothing inline or eval, default-src 'none', no frames, objects or base", () => {
    const d = directives(CSP);
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('default-src')).toEqual(["'none'"]);
    for (const k of ['object-src', 'frame-src', 'base-uri', 'form-action']) expect(d.get(k), k).toEqual(["'none'"]);
    expect(CSP).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(d.get('connect-src')).toEqual(["'self'"]);
  });

  it('sends the CSP as a header on every response and grants no permission', () => {
    hardenSession();
    let out: Record<string, string[]> = {};
    m.headers!({ responseHeaders: { 'Content-Type': ['text/html'] } }, (r) => (out = r.responseHeaders));
    expect(out['Content-Security-Policy']).toEqual([CSP]);
    expect(out['Content-Type']).toEqual(['text/html']);
    for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read']) {
      let granted: boolean | null = null;
      m.permission!(null, p, (ok) => (granted = ok));
      expect(granted, p).toBe(false);
    }
    expect(m.permissionCheck!()).toBe(false);
  });

  it('the page carries the same CSP as a meta tag (source and built page)', () => {
    const pages = [join(ROOT, 'src-renderer/index.html'), join(ROOT, 'out/renderer/index.html')].filter((f) => {
      try {
        return statSync(f).isFile();
      } catch {
        return false;
      }
    });
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) {
      const html = readFileSync(page, 'utf8');
      const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
      expect(meta?.[1], page).toBe(CSP);
      // No remote script or style: every src/href is local.
      for (const [, url] of html.matchAll(/(?:src|href)="([^"]+)"/g))
        expect(url, page).toMatch(/^(\.?\/|data:,|[a-zA-Z0-9_-]+\/|\/)/);
    }
  });

  it('no source turns a protection off or pulls in remote modules', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|tsx)$/.test(e.name)) files.push(p);
      }
    };
    for (const d of ['src-main', 'src-preload', 'src-renderer']) walk(join(ROOT, d));
    const banned = [
      /webSecurity:\s*false/,
      /nodeIntegration:\s*true/,
      /contextIsolation:\s*false/,
      /sandbox:\s*false/,
      /@electron\/remote/,
      /enableRemoteModule/,
      /allowRunningInsecureContent:\s*true/,
      /dangerouslySetInnerHTML/,
      /\.innerHTML\s*=/,
      /insertAdjacentHTML/,
      /\beval\(/,
      /new Function\(/,
    ];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const re of banned) expect(re.test(text), `${re} in ${f}`).toBe(false);
    }
    expect(files.length).toBeGreaterThan(50);
  });
});

describe('the preload surface', () => {
  it('exposes one object of named methods generated from the contract, never ipcRenderer itself', async () => {
    await import('../../../src-preload/index');
    expect([...m.exposed.keys()]).toEqual(['speedmatrix']);
    const api = m.exposed.get('speedmatrix')!;
    expect(Object.keys(api).sort()).toEqual(
      [...Object.keys(bridgeMethods), ...Object.keys(bridgeEvents), 'pathForFile'].sort(),
    );
    for (const v of Object.values(api)) expect(typeof v).toBe('function');
    expect(Object.values(api).some((v) => (v as { invoke?: unknown }).invoke || (v as { send?: unknown }).send)).toBe(
      false,
    );
    // Each method reaches exactly its own namespaced channel.
    m.invoked.length = 0;
    for (const [method, channel] of Object.entries(bridgeMethods)) {
      await (api[method] as (...a: unknown[]) => Promise<unknown>)('x');
      expect(m.invoked.at(-1)).toBe(IPC_PREFIX + channel);
    }
    expect(new Set(Object.values(bridgeMethods))).toEqual(new Set(Object.keys(invokeArgs)));
  });

  it('pathForFile tells main a dropped file’s path before the page gets it; a File the page made or a string names nothing', async () => {
    await import('../../../src-preload/index');
    const api = m.exposed.get('speedmatrix')!;
    const pathForFile = api.pathForFile as (f: unknown) => Promise<string | null>;
    const drop = new File(['{}'], 'run.speedmatrix.json');
    m.dropped.set(drop, '/data/run.speedmatrix.json');
    m.invoked.length = 0;
    m.invokedArgs.length = 0;
    expect(await pathForFile(drop)).toBe('/data/run.speedmatrix.json');
    expect(m.invoked).toEqual([DROPPED_FILE_CHANNEL]);
    expect(m.invokedArgs).toEqual([['/data/run.speedmatrix.json']]);
    m.invoked.length = 0;
    expect(await pathForFile(new File(['{}'], '/home/me/.ssh/config'))).toBeNull();
    expect(await pathForFile('/home/me/victim.speedmatrix.json')).toBeNull();
    expect(m.invoked).toEqual([]);
  });
});

describe('every IPC handler', () => {
  const RENDERER = 'app://speedmatrix/index.html';
  const core = createAppCore({
    host: 'electron',
    dataDir: dir,
    allowWritePaths: false,
    detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
  });
  const seen: string[] = [];
  const spy = {
    ...core,
    invoke: ((ch: string, args: unknown[]) => (
      seen.push(ch),
      core.invoke(ch as never, args as never)
    )) as typeof core.invoke,
  };
  const mainFrame = { url: RENDERER, processId: 7, frameToken: 'main', parent: null };
  const wc = { mainFrame, send: () => undefined };
  registerIpc(spy, () => ({ isDestroyed: () => false, webContents: wc }) as never);
  afterAll(() => core.dispose());
  const channels = Object.keys(invokeArgs);

  it.each(channels)('%s refuses a foreign or missing sender frame before the core sees it', async (ch) => {
    seen.length = 0;
    const foreign = [
      { sender: wc, senderFrame: null },
      { sender: wc, senderFrame: { url: 'https://evil.example/', processId: 9, frameToken: 'x', parent: null } },
      { sender: wc, senderFrame: { url: RENDERER, processId: 7, frameToken: 'child', parent: mainFrame } },
      { sender: { mainFrame }, senderFrame: mainFrame },
      { sender: wc, senderFrame: { url: 'devtools://devtools/', processId: 8, frameToken: 'main', parent: null } },
    ];
    for (const event of foreign) {
      const r = await m.ipc.get(IPC_PREFIX + ch)!(event);
      expect(r).toEqual({ ok: false, error: REFUSED });
    }
    expect(seen).toEqual([]);
  });

  it('a drop’s path from our window lets the page open that file; from another frame, or not a path, it does not', async () => {
    const file = join(dir, 'dropped.speedmatrix.json');
    writeFileSync(file, serializeSession(createSession({ simulated: true })));
    const ours = { sender: wc, senderFrame: mainFrame };
    const child = { sender: wc, senderFrame: { url: RENDERER, processId: 7, frameToken: 'child', parent: mainFrame } };
    const open = () => m.ipc.get(IPC_PREFIX + 'session:open')!(ours, file) as Promise<{ ok: boolean; error?: string }>;
    expect((await open()).error).toMatch(/^Nothing opened: SpeedMatrix opens only files you chose/);
    expect(await m.ipc.get(DROPPED_FILE_CHANNEL)!(child, file)).toEqual({ ok: false, error: REFUSED });
    expect(await m.ipc.get(DROPPED_FILE_CHANNEL)!(ours, { path: file })).toMatchObject({ ok: false });
    expect((await open()).ok).toBe(false);
    expect(await m.ipc.get(DROPPED_FILE_CHANNEL)!(ours, file)).toEqual({ ok: true, data: true });
    expect(await open()).toMatchObject({ ok: true, data: { file } });
  });

  it.each(channels)('%s validates its arguments against the contract schema', async (ch) => {
    const ours = { sender: wc, senderFrame: mainFrame };
    const bad: unknown[][] = [
      [{ evil: '<script>' }, 1, 2, 3, 4],
      [Symbol.for('x')],
      [{ toString: 'x', __proto__: { polluted: true } }, 'a'.repeat(10), null, null, null],
    ];
    for (const [i, args] of bad.entries()) {
      const r = (await m.ipc.get(IPC_PREFIX + ch)!(ours, ...args)) as { ok: boolean; error?: string };
      expect(r.ok, `${ch} accepted bad arguments #${i}`).toBe(false);
      expect(r.error).toMatch(new RegExp(`^Bad arguments for ${ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
