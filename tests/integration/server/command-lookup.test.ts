/**
 * Finding the file a command starts, per platform, and a supervisor that ends in 'failed' with
 * a clear message (never stuck on 'starting') when the command is a Windows batch file or when
 * Node refuses to spawn at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { resolveCommand } from '../../../src-main/platform/processes/command-lookup';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import { emulatedWindows } from '../../helpers/emulated-windows';
import { fakeVllmLaunch, freePort } from '../../helpers/fake-servers';

const WIN_FILES = new Set([
  'C:\\Program Files\\nodejs\\node.exe',
  'C:\\Program Files\\nodejs\\npx.cmd',
  'C:\\Program Files\\nodejs\\npx',
  'C:\\venv\\Scripts\\vllm.exe',
  'C:\\tools\\serve.bat',
]);
const winEnv = {
  Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs;C:\\venv\\Scripts',
  PATHEXT: '.COM;.EXE;.BAT;.CMD;.VBS;.JS',
};
const win = (cmd: string, env: NodeJS.ProcessEnv = winEnv) =>
  resolveCommand(cmd, { platform: 'win32', env, isFile: (p) => WIN_FILES.has(p) });

describe('resolveCommand on Windows (PATH and PATHEXT)', () => {
  it('finds npx as the batch file npx.cmd (not the extensionless shell script beside it)', () => {
    expect(win('npx')).toEqual({ path: 'C:\\Program Files\\nodejs\\npx.cmd', batch: true });
  });
  it('finds node.exe and vllm.exe, reading "Path" whatever its case', () => {
    expect(win('node')).toEqual({ path: 'C:\\Program Files\\nodejs\\node.exe', batch: false });
    expect(win('vllm')).toEqual({ path: 'C:\\venv\\Scripts\\vllm.exe', batch: false });
  });
  it('a path with a folder is tried with each PATHEXT extension; a .bat given in full is a batch file', () => {
    expect(win('C:\\venv\\Scripts\\vllm')).toEqual({ path: 'C:\\venv\\Scripts\\vllm.exe', batch: false });
    expect(win('C:\\tools\\serve.bat')).toEqual({ path: 'C:\\tools\\serve.bat', batch: true });
    expect(win('C:/tools/serve')).toEqual({ path: null, batch: false });
  });
  it("without PATHEXT uses Windows' default .COM;.EXE;.BAT;.CMD", () => {
    expect(win('npx', { Path: 'C:\\Program Files\\nodejs' })).toEqual({
      path: 'C:\\Program Files\\nodejs\\npx.cmd',
      batch: true,
    });
  });
});

describe('resolveCommand on macOS and Linux', () => {
  it('searches PATH with ":" and no extensions; nothing is a batch file', () => {
    const files = new Set(['/opt/homebrew/bin/vllm', '/usr/bin/npx.cmd']);
    const mac = (cmd: string) =>
      resolveCommand(cmd, {
        platform: 'darwin',
        env: { PATH: '/opt/homebrew/bin:/usr/bin' },
        isFile: (p) => files.has(p),
      });
    expect(mac('vllm')).toEqual({ path: '/opt/homebrew/bin/vllm', batch: false });
    expect(mac('npx.cmd')).toEqual({ path: '/usr/bin/npx.cmd', batch: false });
    expect(mac('missing')).toEqual({ path: null, batch: false });
  });
  it('finds a real program on this machine', () => {
    expect(resolveCommand('node', { platform: 'linux', env: { PATH: join(process.execPath, '..') } }).path).toBe(
      process.execPath,
    );
  });
});

describe('the supervisor refuses what cannot be spawned, and fails instead of staying on "starting"', () => {
  const running: Supervisor[] = [];
  afterEach(async () => {
    for (const s of running.splice(0)) await s.stop();
  });

  it('a batch file on Windows: failed, naming the file and what to run instead; nothing spawned', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-bat-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const bat = join(dir, 'serve.cmd');
    writeFileSync(bat, '@echo off\r\nvllm serve %*\r\n');
    const { control, commands } = emulatedWindows();
    const sup = new Supervisor();
    running.push(sup);
    const states: string[] = [];
    sup.on('state', (s) => states.push(s));
    const r = await sup.start(
      {
        engineKind: 'custom',
        customArgv: [bat, 'Qwen/Qwen3-8B'],
        model: 'm',
        host: '127.0.0.1',
        port: await freePort(),
      },
      { control },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('executable-not-found');
    expect(r.error.message).toContain(`is the batch file ${bat}`);
    expect(r.error.message).toContain('never starts a server through a shell');
    expect(r.error.advice).toContain('vllm.exe');
    expect(states).toEqual(['starting', 'failed']);
    expect(sup.pid).toBeNull();
    expect(commands).toEqual([]);
  });

  it('a spawn that throws at once (an argument Node refuses) fails with the reason', async () => {
    const sup = new Supervisor();
    running.push(sup);
    const r = await sup.start(fakeVllmLaunch(await freePort(), 'ok', ['bad\0arg']));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('exited-before-ready');
    expect(r.error.message).toMatch(/^Could not start ".*node.*": .*null bytes/);
    expect(sup.state).toBe('failed');
  });
});
