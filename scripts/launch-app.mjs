#!/usr/bin/env node
/**
 * `npm start` and `npm run dev`: make sure Electron's binary is installed, then hand over to
 * electron-vite (`preview` builds once and opens the app; `dev` serves the renderer with hot
 * reload). Electron's npm package downloads its binary lazily, on the first
 * `require('electron')`, but electron-vite reads node_modules/electron/path.txt directly and
 * never triggers that, so on a fresh install it only says "Electron uninstall". Here the first
 * start runs Electron's own installer (node_modules/electron/install.js) when this Node can run
 * it; otherwise, or when the download fails, it prints one paragraph saying what is missing,
 * why, and the command that fixes it, and exits 1. Plain JavaScript with no dependencies, so it
 * runs on any Node and can say which one is needed. No shell: every command is an argv array.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The lowest Node an engines range allows: ">= 22.12.0" and "^20.19.0 || >=22.12.0" give their first version. */
export function minimumNode(range) {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(range ?? '');
  return m ? m.slice(1, 4).join('.') : null;
}

export function nodeAtLeast(version, minimum) {
  if (!minimum) return true;
  const a = version.replace(/^v/, '').split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/** The binary's path inside Electron's dist folder, as electron's own index.js names it. */
function platformExecutable(platform = process.platform) {
  if (platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/**
 * What node_modules/electron holds: its version, the Node its installer needs, and whether the
 * binary is there (path.txt names it, and the file exists under dist/ or ELECTRON_OVERRIDE_DIST_PATH).
 */
export function electronState(electronDir, env = process.env) {
  const pkg = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8'));
  const pathFile = join(electronDir, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const distDir = env.ELECTRON_OVERRIDE_DIST_PATH || join(electronDir, 'dist');
  const executable = rel || env.ELECTRON_OVERRIDE_DIST_PATH ? join(distDir, rel || platformExecutable()) : null;
  return {
    version: pkg.version,
    minimumNode: minimumNode(pkg.engines?.node),
    installer: join(electronDir, 'install.js'),
    executable,
    installed: executable !== null && existsSync(executable),
  };
}

const HEAD = (s) =>
  `SpeedMatrix cannot open: the Electron ${s.version} binary is not installed (node_modules/electron/dist is missing).`;
const WHY = 'Electron downloads it once, on the first start.';

/** The one paragraph for a missing binary: what, why, and the exact command that fixes it. */
export function missingBinaryHelp(s, problem) {
  if (problem.kind === 'old-node') {
    return [
      HEAD(s),
      `${WHY} Its downloader needs Node.js ${s.minimumNode} or newer, and this is Node.js ${problem.node.replace(/^v/, '')}.`,
      `Fix: install Node.js ${s.minimumNode} or newer (for example \`nvm install 22\`), then run \`npm start\` again.`,
      ...(problem.cliWorks ? ['The command-line tool (`npx speedmatrix`) works with this Node already.'] : []),
    ].join(' ');
  }
  return [
    HEAD(s),
    `${WHY} That download failed: ${problem.detail}.`,
    'Fix: connect to the internet and run `npm start` again.',
    'Behind a proxy: `ELECTRON_GET_USE_PROXY=true HTTPS_PROXY=http://proxy.example:3128 npm start`.',
    'From a mirror: `ELECTRON_MIRROR=https://npmmirror.com/mirrors/electron/ npm start`.',
  ].join(' ');
}

/** The installer's error in one line: the first line of its stack trace, without the error class. */
export function installFailure(stderr, code) {
  const line = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('at '));
  const text = line
    ? line.replace(/^[A-Za-z]*Error:\s*/, '').replace(/\.$/, '')
    : `the installer exited with code ${code}`;
  // undici says only "fetch failed" when it cannot connect at all.
  return text === 'fetch failed' ? 'no connection to the download server (fetch failed)' : text;
}

/** Runs Electron's own installer; its stack trace is kept out of sight and summed up instead. */
function runInstaller(s, env) {
  return new Promise((resolve) => {
    process.stdout.write(`Downloading the Electron ${s.version} binary (once, about 100 MB)…\n`);
    const child = spawn(process.execPath, [s.installer], { stdio: ['ignore', 'inherit', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d.toString('utf8')));
    child.on('error', (e) => resolve({ ok: false, detail: e.message }));
    child.on('close', (code) =>
      resolve(code === 0 ? { ok: true } : { ok: false, detail: installFailure(stderr, code) }),
    );
  });
}

/**
 * The binary, installed if need be: {ok: true} or {ok: false, message}. `nodeVersion` and `env`
 * are parameters so the tests can stand in for another Node or another network.
 */
export async function ensureElectron({
  electronDir,
  nodeVersion = process.version,
  env = process.env,
  cliMinimumNode = null,
}) {
  let s = electronState(electronDir, env);
  if (s.installed) return { ok: true, executable: s.executable };
  if (!nodeAtLeast(nodeVersion, s.minimumNode)) {
    const cliWorks = nodeAtLeast(nodeVersion, cliMinimumNode);
    return { ok: false, message: missingBinaryHelp(s, { kind: 'old-node', node: nodeVersion, cliWorks }) };
  }
  const r = await runInstaller(s, env);
  s = electronState(electronDir, env);
  if (r.ok && s.installed) return { ok: true, executable: s.executable };
  return {
    ok: false,
    message: missingBinaryHelp(s, {
      kind: 'download',
      detail: r.ok ? 'the installer finished but left no binary' : r.detail,
    }),
  };
}

/** electron-vite's command-line entry, found through its package.json like npm's bin link would. */
function electronViteBin(root) {
  const req = createRequire(join(root, 'package.json'));
  const pkgFile = req.resolve('electron-vite/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin['electron-vite'];
  return join(dirname(pkgFile), bin);
}

/**
 * Options (`--noSandbox`) stay electron-vite's; files to open go to the app after `--`, resolved
 * against the folder `npm start` was typed in (npm runs scripts from the package root).
 */
export function electronViteArgs(args, cwd = process.env.INIT_CWD || process.cwd()) {
  const options = args.filter((a) => a.startsWith('-'));
  const files = args.filter((a) => !a.startsWith('-')).map((f) => resolve(cwd, f));
  return files.length ? [...options, '--', ...files] : options;
}

/**
 * Linux with no display (a GPU server over SSH): Chromium would only say "Missing X server or
 * $DISPLAY". Say it plainly and point to the command-line tool, which needs none.
 */
export function displayProblem(platform = process.platform, env = process.env) {
  if (platform !== 'linux' || env.DISPLAY || env.WAYLAND_DISPLAY) return null;
  return [
    'SpeedMatrix cannot open its window: this Linux session has no display (neither DISPLAY nor WAYLAND_DISPLAY is set), as on a GPU server reached over SSH.',
    'Run the same tests here with the command-line tool, which needs no display: `npx speedmatrix run --demo`, or `npx speedmatrix run --url http://127.0.0.1:8000` against a running server (`npx speedmatrix --help` lists the rest).',
    'Or open the app where there is a screen: from the machine’s desktop, or over `ssh -X`.',
  ].join(' ');
}

/** One keypress's signal may come more than once (the terminal and npm both send it, milliseconds apart): repeats this close together are dropped. */
const SAME_SIGNAL_MS = 200;
/** A second Ctrl+C this soon after the first ends the app at once (README "The desktop app"). */
const SECOND_PRESS_MS = 1000;
/** What the app reads on its stdin as File > Quit (src-main/hosts/electron/quit-line.ts): Windows has no SIGINT to send it. */
export const QUIT_LINE = 'quit';

/**
 * Forwards a signal to the child once per keypress. Ctrl+C on `npm start` signals the whole
 * foreground process group, and npm forwards it again, so the launcher gets it twice; the app
 * takes the first as a graceful quit (which asks about unsaved results and stops the server).
 * A second Ctrl+C within a second ends it at once (`endNow`: the child's whole process group).
 * On Windows a signal to a child is TerminateProcess, which the app cannot answer, so the quit
 * goes as a line on the app's stdin instead (`quit`). The child runs in its own process group
 * (see main), so this forward is the only way a signal reaches it.
 */
export function signalForwarder(child, { now = Date.now, platform = process.platform, endNow } = {}) {
  const last = new Map();
  return (signal) => {
    const t = now();
    const since = t - (last.get(signal) ?? -Infinity);
    if (since < SAME_SIGNAL_MS) return false;
    last.set(signal, t);
    if (signal === 'SIGINT' && since < SECOND_PRESS_MS) endNow?.();
    else if (platform === 'win32') child.stdin?.write(`${QUIT_LINE}\n`);
    else child.kill(signal);
    return true;
  };
}

/** Ends the child and everything it started at once: its process group (POSIX), its process tree (Windows). */
function endTree(child, platform) {
  if (!child.pid) return;
  if (platform === 'win32') {
    spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    return;
  }
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

export async function main(argv = process.argv.slice(2), root = ROOT, env = process.env, platform = process.platform) {
  const [mode, ...rest] = argv;
  if (mode !== 'preview' && mode !== 'dev') {
    process.stderr.write('Usage: node scripts/launch-app.mjs preview|dev [electron-vite options]\n');
    return 2;
  }
  const say = (paragraph) => (process.stderr.write(`\n${paragraph}\n\n`), 1);
  const noDisplay = displayProblem(platform, env);
  if (noDisplay) return say(noDisplay);
  let electronDir;
  try {
    electronDir = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
  } catch {
    return say(
      'SpeedMatrix cannot open: its packages are not installed (node_modules/electron is missing). Fix: run `npm install`, then `npm start` again.',
    );
  }
  // The project's own requirement (package.json engines): the build (Vite) and the CLI need it.
  const projectMinimumNode = minimumNode(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node);
  const ready = await ensureElectron({ electronDir, env, cliMinimumNode: projectMinimumNode });
  if (!ready.ok) return say(ready.message);
  if (!nodeAtLeast(process.version, projectMinimumNode)) {
    return say(
      `SpeedMatrix cannot open: building the app needs Node.js ${projectMinimumNode} or newer, and this is Node.js ${process.version.replace(/^v/, '')}. Fix: install a newer Node.js (for example \`nvm install 22\`), then run \`npm start\` again.`,
    );
  }
  // preview builds once, then starts the app; there is no separate build step before it.
  // ELECTRON_EXEC_PATH: electron-vite reads only node_modules/electron/path.txt otherwise, so
  // ELECTRON_OVERRIDE_DIST_PATH would be honoured here and ignored there.
  const windows = platform === 'win32';
  const child = spawn(process.execPath, [electronViteBin(root), mode, ...electronViteArgs(rest)], {
    // Windows: the app's stdin is ours, for the quit line (electron-vite passes its stdin on to Electron).
    stdio: [windows ? 'pipe' : 'inherit', 'inherit', 'inherit'],
    cwd: root,
    env: { ...env, ELECTRON_EXEC_PATH: ready.executable, ...(windows ? { SPEEDMATRIX_QUIT_ON_STDIN: '1' } : {}) },
    // Its own process group (POSIX), so the terminal's Ctrl+C reaches it only through signalForwarder.
    detached: !windows,
  });
  child.stdin?.on('error', () => undefined);
  const forward = signalForwarder(child, { platform, endNow: () => endTree(child, platform) });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => forward(sig));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then((code) => process.exit(code));
}
