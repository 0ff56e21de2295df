/**
 * Boots the built main process (out/main/index.js) in plain Node with the `electron` stand-in,
 * and drives it as a person would (see driver.cjs).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../../helpers/paths';
import { signalChild } from '../../../../src-main/platform/processes/signal-child';

export const MAIN_BUNDLE = join(ROOT, 'out/main/index.js');
export const hasMainBundle = existsSync(MAIN_BUNDLE);
const DRIVER = join(ROOT, 'tests/integration/app/electron-standin/driver.cjs');

export interface MenuItemData {
  label: string;
  role: string | null;
  type: string;
  accelerator: string | null;
  enabled: boolean;
  toolTip: string;
  submenu: MenuItemData[] | null;
}

export interface DialogData {
  id: number;
  window: number | null;
  options: {
    message?: string;
    detail?: string;
    buttons?: string[];
    cancelId?: number;
    defaultId?: number;
    defaultPath?: string;
  };
  kind?: 'open' | 'save';
  answer: unknown;
}

export interface Recorded {
  windows: {
    id: number;
    options: { webPreferences?: Record<string, unknown> };
    loaded: string[];
    title: string;
    shown: boolean;
    minimized: boolean;
    focused: number;
    destroyed: boolean;
  }[];
  applicationMenus: MenuItemData[][];
  popups: { window: number | null; items: MenuItemData[] }[];
  messageBoxes: DialogData[];
  fileDialogs: DialogData[];
  errorBoxes: { title: string; content: string }[];
  clipboard: { text: string; type: string }[];
  sent: { window: number; channel: string; args: unknown[] }[];
  external: string[];
  headerListeners: number;
  permissionHandlerSet: boolean;
  exitCode: number | null;
  appEvents: string[];
  roleActions: string[];
  recentDocuments: string[];
  stderr: string[];
  utilityProcesses: { modulePath: string; args: string[]; serviceName: string | null }[];
  privilegedSchemes: { scheme: string; privileges: Record<string, boolean> }[];
  handledSchemes: string[];
  served: { url: string; status: number; headers: Record<string, string> }[];
  powerSaveBlockers: { id: number; type: string; stopped: boolean }[];
  ready: boolean;
  openWindows: number[];
}

export interface MainProcess {
  call<T = unknown>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  state(): Promise<Recorded>;
  /** Polls the recorded state until `pred` holds. */
  waitFor(pred: (s: Recorded) => boolean, what: string, timeoutMs?: number): Promise<Recorded>;
  /** Resolves when the process exits, with its code and the last recorded state. */
  exited: Promise<{ code: number | null; record: Recorded | null }>;
  stderr(): string;
  /** Writes to the process's stdin (booted with `stdin: true`). */
  writeStdin(text: string): void;
  kill(): void;
}

/**
 * `userData` goes to the app as Electron's --user-data-dir switch; null gives none, so the app
 * chooses its folder itself. `main` is another built main bundle (the packaged app's).
 */
export function bootMain(opts: {
  userData: string | null;
  argv?: string[];
  env?: Record<string, string>;
  cwd?: string;
  main?: string;
  /** A pipe on its stdin (writeStdin), as `npm start` gives the app on Windows. */
  stdin?: boolean;
}): MainProcess {
  const argv = [...(opts.userData === null ? [] : [`--user-data-dir=${opts.userData}`]), ...(opts.argv ?? [])];
  const child: ChildProcess = fork(opts.main ?? MAIN_BUNDLE, argv, {
    cwd: opts.cwd ?? ROOT,
    execArgv: ['--require', DRIVER],
    env: { ...process.env, ELECTRON_RENDERER_URL: '', ...opts.env },
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout?.on('data', () => undefined);
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let last: Recorded | null = null;
  child.on(
    'message',
    (m: { type: string; id?: number; ok?: boolean; result?: unknown; error?: string; record?: Recorded }) => {
      if (m.type === 'exit') last = { ...(m.record as Recorded), ready: true, openWindows: [] };
      if (m.type !== 'reply' || m.id === undefined) return;
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.ok) w?.resolve(m.result);
      else w?.reject(new Error(m.error));
    },
  );
  const exited = new Promise<{ code: number | null; record: Recorded | null }>((resolve) =>
    child.on('exit', (code) => {
      for (const w of waiting.values())
        w.reject(new Error(`main process exited (${code}) before answering; stderr:\n${stderr}`));
      waiting.clear();
      resolve({ code, record: last });
    }),
  );
  const call = <T>(cmd: string, args: Record<string, unknown> = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!child.connected) return reject(new Error(`main process is gone; stderr:\n${stderr}`));
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, cmd, args });
    });
  const state = () => call<Recorded>('state');
  return {
    call,
    state,
    async waitFor(pred, what, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const s = await state();
        if (pred(s)) return s;
        if (Date.now() > until) throw new Error(`Timed out waiting for ${what}; stderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    exited,
    stderr: () => stderr,
    writeStdin: (text) => void child.stdin?.write(text),
    kill: () => void signalChild(child, 'SIGKILL'),
  };
}

/** The item at a path of labels in a described menu. */
export function menuItem(menu: MenuItemData[] | undefined, ...path: string[]): MenuItemData | undefined {
  let items = menu ?? [];
  let found: MenuItemData | undefined;
  for (const label of path) {
    found = items.find((i) => i.label === label || i.role === label.toLowerCase());
    if (!found) return undefined;
    items = found.submenu ?? [];
  }
  return found;
}

/**
 * Start the simulated server from the Server view, as the page does (at `simSpeed` times real time), and wait until it has
 * settled; resolves with its state ('ready', else 'failed') and the last lines of its log.
 */
export async function startSimulatorServer(m: MainProcess, simSpeed = 20): Promise<{ state: string; log: string[] }> {
  await m.waitFor((s) => s.windows.length > 0, 'the window');
  const start = await m.call<{ ok: boolean; error?: string }>('invoke', {
    channel: 'server:start',
    args: [{ kind: 'simulator', model: 'sim', simSpeed, simLoadSeconds: 0 }],
  });
  if (!start.ok) throw new Error(`server:start refused: ${start.error}`);
  const state = async () =>
    (await m.call<{ data: { state: string } }>('invoke', { channel: 'server:snapshot' })).data.state;
  for (let i = 0; i < 300 && (await state()) === 'starting'; i++) await new Promise((r) => setTimeout(r, 100));
  const log = await m.call<{ data: string[] }>('invoke', { channel: 'server:log' });
  return { state: await state(), log: log.data.slice(-10) };
}
