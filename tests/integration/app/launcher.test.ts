/**
 * `npm start` / `npm run dev` (scripts/launch-app.mjs): on Linux with no display it says so and
 * points to the CLI; one Ctrl+C reaches Electron once (a stand-in binary counts the signals).
 * With no Electron binary it runs
 * Electron's own installer when this Node can, and otherwise, or when the download fails, prints
 * one paragraph (what, why, the command that fixes it) and exits 1, before building anything.
 * The download failures come from Electron's real installer against a local mirror that
 * refuses or answers 404; the success path uses a stand-in installer that leaves what the real
 * one leaves (path.txt and the binary under dist/).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/paths';
import { hasElectronBinary } from '../../e2e/electron-binary';
// @ts-expect-error plain JavaScript (it must run on any Node to say which one it needs); shapes checked here
import * as launcher from '../../../scripts/launch-app.mjs';

const L = launcher as {
  minimumNode(range: string): string | null;
  nodeAtLeast(v: string, min: string | null): boolean;
  installFailure(stderr: string, code: number): string;
  electronViteArgs(args: string[], cwd: string): string[];
  main(argv: string[], root: string, env?: NodeJS.ProcessEnv, platform?: NodeJS.Platform): Promise<number>;
  displayProblem(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string | null;
  signalForwarder(
    child: { kill(s: string): void; stdin?: { write(t: string): void } },
    o: { now: () => number; platform?: NodeJS.Platform; endNow?: () => void },
  ): (signal: string) => boolean;
  ensureElectron(o: {
    electronDir: string;
    nodeVersion?: string;
    env?: NodeJS.ProcessEnv;
    cliMinimumNode?: string | null;
  }): Promise<{ ok: true; executable: string } | { ok: false; message: string }>;
};

const REAL_ELECTRON = join(ROOT, 'node_modules/electron');
const electronPkg = JSON.parse(readFileSync(join(REAL_ELECTRON, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
};
const tmp = mkdtempSync(join(tmpdir(), 'speedmatrix-launch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** An electron package folder like a fresh install: package.json and an installer, no binary. */
function freshElectronDir(name: string, installer: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'electron', version: electronPkg.version, engines: electronPkg.engines }),
  );
  writeFileSync(join(dir, 'install.js'), installer);
  return dir;
}

/** Does what the real installer's extractFile leaves behind, and counts its runs. */
const STANDIN_INSTALLER = `
const fs = require('fs'), path = require('path');
fs.appendFileSync(path.join(__dirname, 'runs'), 'x');
fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true });
fs.writeFileSync(path.join(__dirname, 'dist', 'electron'), '');
fs.writeFileSync(path.join(__dirname, 'path.txt'), 'electron');
`;

function isOneParagraph(text: string): void {
  expect(text.trim().split('\n')).toHaveLength(1);
  expect(text).not.toMatch(/\n\s+at |Electron uninstall|Error:/);
}

describe('version checks', () => {
  it('reads the lowest Node an engines range allows and compares versions', () => {
    expect(L.minimumNode('>= 22.12.0')).toBe('22.12.0');
    expect(L.minimumNode('^20.19.0 || >=22.12.0')).toBe('20.19.0');
    expect(L.minimumNode('')).toBeNull();
    expect(L.nodeAtLeast('v22.12.0', '22.12.0')).toBe(true);
    expect(L.nodeAtLeast('v22.11.9', '22.12.0')).toBe(false);
    expect(L.nodeAtLeast('v20.20.2', '22.12.0')).toBe(false);
    expect(L.nodeAtLeast('v24.0.0', '22.12.0')).toBe(true);
    expect(L.nodeAtLeast('v18.0.0', null)).toBe(true);
  });
});

it('passes electron-vite its options and the app its files, resolved from where npm start was typed', () => {
  expect(L.electronViteArgs([], '/home/me')).toEqual([]);
  expect(L.electronViteArgs(['--noSandbox'], '/home/me')).toEqual(['--noSandbox']);
  expect(L.electronViteArgs(['runs/a.speedmatrix.json', '--noSandbox', '/tmp/b.json'], '/home/me')).toEqual([
    '--noSandbox',
    '--',
    '/home/me/runs/a.speedmatrix.json',
    '/tmp/b.json',
  ]);
});

it('before npm install: one paragraph saying to run it, exit 1', async () => {
  const root = join(tmp, 'no-install');
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'speedmatrix', engines: { node: '^20.19.0 || >=22.12.0' } }),
  );
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    expect(await L.main(['preview'], root, { ...process.env, DISPLAY: ':99' })).toBe(1);
  } finally {
    process.stderr.write = write;
  }
  isOneParagraph(written.join(''));
  expect(written.join('')).toContain('run `npm install`, then `npm start` again');
});

describe('a missing binary', () => {
  it('on a Node too old for the downloader: the paragraph names both versions and the fix, and the installer never runs', async () => {
    const dir = freshElectronDir('old-node', STANDIN_INSTALLER);
    const r = await L.ensureElectron({ electronDir: dir, nodeVersion: 'v20.20.2', cliMinimumNode: '20.19.0' });
    expect(r.ok).toBe(false);
    const msg = (r as { message: string }).message;
    isOneParagraph(msg);
    expect(msg).toContain(`the Electron ${electronPkg.version} binary is not installed`);
    expect(msg).toContain('needs Node.js 22.12.0 or newer, and this is Node.js 20.20.2');
    expect(msg).toContain('then run `npm start` again');
    expect(msg).toContain('`npx speedmatrix`) works with this Node already');
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    const older = await L.ensureElectron({ electronDir: dir, nodeVersion: 'v18.20.0', cliMinimumNode: '20.19.0' });
    expect((older as { message: string }).message).not.toContain('works with this Node');
  });

  it('on a new enough Node: runs the installer once, then starts with the binary it left', async () => {
    const dir = freshElectronDir('installs', STANDIN_INSTALLER);
    const installed = { ok: true, executable: join(dir, 'dist', 'electron') };
    expect(await L.ensureElectron({ electronDir: dir, nodeVersion: 'v22.12.0' })).toEqual(installed);
    expect(await L.ensureElectron({ electronDir: dir, nodeVersion: 'v22.12.0' })).toEqual(installed);
    expect(readFileSync(join(dir, 'runs'), 'utf8')).toBe('x');
  });

  it('an installer that exits 0 without a binary is a failure, not a start', async () => {
    const dir = freshElectronDir('empty-install', 'process.exit(0)');
    const r = await L.ensureElectron({ electronDir: dir, nodeVersion: 'v22.12.0' });
    expect((r as { message: string }).message).toContain('the installer finished but left no binary');
  });

  it('sums up an installer stack trace in one line', () => {
    const stack =
      'TypeError: fetch failed\n    at node:internal/deps/undici/undici:14976:13\n    at async FetchDownloader.download (file:///x/FetchDownloader.js:46:30)\n';
    expect(L.installFailure(stack, 1)).toBe('no connection to the download server (fetch failed)');
    expect(
      L.installFailure(
        'HTTPError: Response code 404 (Not Found) for http://m/v45.5.0/electron-v45.5.0-linux-x64.zip\n    at x\n',
        1,
      ),
    ).toBe('Response code 404 (Not Found) for http://m/v45.5.0/electron-v45.5.0-linux-x64.zip');
    expect(L.installFailure('', 3)).toBe('the installer exited with code 3');
  });
});

describe.skipIf(hasElectronBinary)(
  `Electron’s real installer, offline (${hasElectronBinary ? 'not run: an Electron binary is installed here' : 'no binary here'})`,
  () => {
    let mirror: Server;
    let mirrorUrl = '';
    let refusing = '';
    beforeAll(async () => {
      mirror = createServer((_req, res) => res.writeHead(404).end('not here'));
      await new Promise<void>((r) => mirror.listen(0, '127.0.0.1', r));
      mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`;
      // A port that was free a moment ago: connecting is refused, as with no network.
      const probe = createNetServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      refusing = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/`;
      await new Promise((r) => probe.close(r));
    });
    afterAll(() => new Promise((r) => mirror.close(r)));
    const env = (mirror: string) => ({
      ...process.env,
      // A display, so the launcher goes on to the binary (without one it stops earlier; see below).
      DISPLAY: ':99',
      ELECTRON_MIRROR: mirror,
      electron_config_cache: join(tmp, 'cache'),
    });

    it.each([
      ['no connection', () => refusing, 'no connection to the download server (fetch failed)'],
      ['a mirror without the file', () => mirrorUrl, 'Response code 404 (Not Found)'],
    ])(
      '%s: the paragraph gives the cause, the proxy and mirror commands, and no stack trace',
      async (_n, url, cause) => {
        const r = await L.ensureElectron({ electronDir: REAL_ELECTRON, nodeVersion: 'v22.12.0', env: env(url()) });
        expect(r.ok).toBe(false);
        const msg = (r as { message: string }).message;
        isOneParagraph(msg);
        expect(msg).toContain(`That download failed: ${cause}`);
        expect(msg).toContain('ELECTRON_GET_USE_PROXY=true HTTPS_PROXY=');
        expect(msg).toContain('ELECTRON_MIRROR=');
        expect(existsSync(join(REAL_ELECTRON, 'path.txt'))).toBe(false);
      },
    );

    it.each(['start', 'run dev'])(
      '`npm %s` on this machine ends within a minute with the paragraph and exit 1, before building anything',
      async (script) => {
        const started = Date.now();
        const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          // The offline mirror makes the outcome the same on a machine with a network.
          const child = spawn('npm', script.split(' '), {
            cwd: ROOT,
            env: { ...env(refusing) },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
          child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
          child.on('close', (code) => resolve({ code, stdout, stderr }));
        });
        expect(Date.now() - started).toBeLessThan(60_000);
        expect(r.code).toBe(1);
        const paragraph = r.stderr.split('\n').filter((l) => l.startsWith('SpeedMatrix cannot open'));
        expect(paragraph).toHaveLength(1);
        isOneParagraph(paragraph[0]);
        expect(r.stderr + r.stdout).not.toMatch(/\n\s+at |Electron uninstall|building|vite v/);
      },
      70_000,
    );
  },
);

it('the scripts hand over to electron-vite once: start is preview (which builds), dev is dev', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.start).toBe('node scripts/launch-app.mjs preview');
  expect(pkg.scripts.dev).toBe('node scripts/launch-app.mjs dev');
  expect(readdirSync(join(ROOT, 'scripts'))).toContain('launch-app.mjs');
});

describe('a Linux session with no display (a GPU server over SSH)', () => {
  it('says so in one paragraph, points to the command-line tool, and exits 1 before anything else', async () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const env = { PATH: process.env.PATH, ELECTRON_OVERRIDE_DIST_PATH: join(tmp, 'never-looked-at') };
      expect(await L.main(['preview'], ROOT, env, 'linux')).toBe(1);
    } finally {
      process.stderr.write = write;
    }
    const text = written.join('');
    isOneParagraph(text);
    expect(text).toContain('no display (neither DISPLAY nor WAYLAND_DISPLAY is set)');
    expect(text).toContain('`npx speedmatrix run --demo`');
    expect(text).not.toMatch(/Missing X server/);
  });

  it('a display of either kind, or another OS, is no problem', () => {
    expect(L.displayProblem('linux', { DISPLAY: ':0' })).toBeNull();
    expect(L.displayProblem('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBeNull();
    expect(L.displayProblem('darwin', {})).toBeNull();
    expect(L.displayProblem('win32', {})).toBeNull();
  });
});

it('a signal that arrives twice for one keypress is forwarded once; a second Ctrl+C within a second ends the app at once', () => {
  const sent: string[] = [];
  let ended = 0;
  let now = 0;
  const forward = L.signalForwarder(
    { kill: (s) => sent.push(s) },
    { now: () => now, platform: 'linux', endNow: () => ended++ },
  );
  expect(forward('SIGINT')).toBe(true);
  now = 5;
  expect(forward('SIGINT')).toBe(false);
  expect(forward('SIGTERM')).toBe(true);
  expect(ended).toBe(0);
  now = 400;
  expect(forward('SIGINT')).toBe(true);
  expect(ended).toBe(1);
  expect(sent).toEqual(['SIGINT', 'SIGTERM']);
  now = 3000;
  expect(forward('SIGINT')).toBe(true);
  expect(sent).toEqual(['SIGINT', 'SIGTERM', 'SIGINT']);
  expect(ended).toBe(1);
});

it('on Windows the quit goes as the line quit on the app’s stdin, never as a signal (TerminateProcess there)', () => {
  const sent: string[] = [];
  const written: string[] = [];
  let ended = 0;
  let now = 0;
  const forward = L.signalForwarder(
    { kill: (s) => sent.push(s), stdin: { write: (t) => written.push(t) } },
    { now: () => now, platform: 'win32', endNow: () => ended++ },
  );
  expect(forward('SIGINT')).toBe(true);
  expect(written).toEqual(['quit\n']);
  now = 500;
  forward('SIGINT');
  expect(ended).toBe(1);
  expect(sent).toEqual([]);
});

/**
 * A stand-in for Electron's binary, found through ELECTRON_OVERRIDE_DIST_PATH: it writes down
 * every SIGINT, and like Electron quits gracefully on the first (after a moment, so that any
 * second one still arrives) and dies on a second.
 */
const SIGNAL_RECORDER = `#!/usr/bin/env node
const fs = require('fs');
const log = (line) => fs.appendFileSync(process.env.STANDIN_SIGNAL_LOG, line + '\\n');
log('started ' + process.pid);
let n = 0;
process.on('SIGINT', () => {
  log('SIGINT');
  if (++n === 1) setTimeout(() => (log('quit'), process.exit(0)), 1500);
  else process.exit(130);
});
setInterval(() => undefined, 1000);
`;

it('Ctrl+C on `npm start` (SIGINT to its whole process group) reaches Electron exactly once', async () => {
  if (!existsSync(join(ROOT, 'out/main/index.js'))) throw new Error('out/ is missing: run `npm run build` first.');
  const dist = join(tmp, 'signal-dist');
  mkdirSync(dist, { recursive: true });
  writeFileSync(join(dist, 'electron'), SIGNAL_RECORDER, { mode: 0o755 });
  const log = join(tmp, 'signals.log');
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  // detached: its own process group, as a terminal's foreground job is. --skipBuild: `npm test` built out/ once
  // before the suites, and a rebuild here would pull out/main from under the suites that run the built CLI meanwhile.
  const npm = spawn('npm', ['start', '--', '--skipBuild'], {
    cwd: ROOT,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, DISPLAY: ':99', ELECTRON_OVERRIDE_DIST_PATH: dist, STANDIN_SIGNAL_LOG: log },
  });
  const closed = new Promise((r) => npm.on('close', r));
  try {
    for (let i = 0; i < 1200 && !lines().length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(lines()[0], 'the stand-in binary was not started').toMatch(/^started \d+$/);
    process.kill(-npm.pid!, 'SIGINT');
    await closed;
    for (let i = 0; i < 50 && !lines().includes('quit'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(lines().slice(1)).toEqual(['SIGINT', 'quit']);
  } finally {
    const pid = Number(lines()[0]?.split(' ')[1]);
    for (const p of [-npm.pid!, pid]) {
      try {
        if (p) process.kill(p, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
}, 180_000);
