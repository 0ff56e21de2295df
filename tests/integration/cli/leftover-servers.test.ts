/**
 * A launcher killed with SIGKILL cannot stop its server. Every launched server is written
 * down under the user's data folder; the next launch finds the ones still alive whose
 * launcher is gone and ends them (--yes) or says how. Real CLI processes, the real simulator,
 * a real state file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LaunchedRegistry, processStartTime } from '../../../src-main/engine/server/launched-registry';
import { findGroupProcesses } from '../../../src-main/engine/server/orphans';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';

const groupAlive = async (pgid: number) => (await findGroupProcesses(pgid)).length > 0;

describe('the launched-server registry', () => {
  it('lists a live group whose launcher is gone (or whose pid a newer process took), not one whose launcher lives; crosses out groups that ended; ends a leftover', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-reg-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const reg = new LaunchedRegistry(dir);
    const server = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    const gone = spawn('true', [], { stdio: 'ignore' });
    await new Promise((r) => gone.on('exit', r));
    const startedAt = new Date().toISOString();
    reg.add({
      pgid: server.pid!,
      command: 'sleep 60',
      port: 8000,
      startedAt,
      launcherPid: gone.pid!,
      launcherStart: null,
    });
    reg.add({
      pgid: 999_999_0,
      command: 'long gone',
      port: null,
      startedAt,
      launcherPid: gone.pid!,
      launcherStart: null,
    });
    expect((await reg.leftovers()).map((e) => e.pgid)).toEqual([server.pid]);
    expect(reg.list().map((e) => e.pgid)).toEqual([server.pid]);
    const ownStart = await processStartTime(process.pid);
    expect(ownStart).not.toBeNull();
    reg.add({
      pgid: server.pid!,
      command: 'sleep 60',
      port: 8000,
      startedAt,
      launcherPid: process.pid,
      launcherStart: ownStart,
    });
    expect(await reg.leftovers()).toEqual([]);
    // The launcher's pid now belongs to a newer process (pids are reused): the server is a leftover.
    reg.add({
      pgid: server.pid!,
      command: 'sleep 60',
      port: 8000,
      startedAt,
      launcherPid: process.pid,
      launcherStart: `${ownStart}0`,
    });
    expect(await reg.end((await reg.leftovers())[0], 2000)).toBe(true);
    expect(await groupAlive(server.pid!)).toBe(false);
    expect(reg.list()).toEqual([]);
  });
});

describe('run --launch killed with SIGKILL', () => {
  it('leaves its server written down; the next launch lists it, and with --yes ends it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sm-data-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const work = mkdtempSync(join(tmpdir(), 'sm-work-'));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    const env = { ...process.env, SPEEDMATRIX_DATA_DIR: dataDir };
    const cli = spawn(
      process.execPath,
      [
        join(ROOT, 'src-main/hosts/cli/bin.cjs'),
        'run',
        '--demo',
        '--contexts',
        '8k',
        '--concurrency',
        '1',
        '--prefill-contexts',
        'none',
        '--duration',
        '60',
        '--json-progress',
        '--out',
        join(work, 'a.speedmatrix.json'),
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    cli.stdout.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no cell started:\n${out}`)), 90_000);
      cli.stdout.on('data', () => /"type":"cell-start"/.test(out) && (clearTimeout(t), resolve()));
    });
    cli.kill('SIGKILL');
    await new Promise((r) => cli.on('exit', r));
    const [entry] = JSON.parse(readFileSync(join(dataDir, 'launched-servers.json'), 'utf8')) as Array<{
      pgid: number;
      command: string;
      port: number;
    }>;
    expect(entry.command).toMatch(/sim/);
    expect(await groupAlive(entry.pgid)).toBe(true);

    // Its log pipe is gone with the CLI; like vLLM, the server keeps running (and holding its GPU).
    await new Promise((r) => setTimeout(r, 3000));
    expect(await groupAlive(entry.pgid)).toBe(true);
    // Without --yes and no terminal to ask on: listed, left running, with the way to end it.
    const ask = await runCli(
      ['serve', '--ready-timeout', '5', '--', '/nonexistent/vllm', 'serve', 'm', '--port', String(entry.port)],
      { env: { SPEEDMATRIX_DATA_DIR: dataDir } },
    );
    expect(ask.stderr).toContain(
      `An earlier SpeedMatrix run was killed and left a server running:\n  process group ${entry.pgid}, port ${entry.port}`,
    );
    expect(ask.stderr).toContain('Add --yes to end them.');
    expect(await groupAlive(entry.pgid)).toBe(true);

    const yes = await runCli(
      [
        'run',
        '--yes',
        '--launch',
        '--ready-timeout',
        '5',
        '--out',
        join(work, 'b.speedmatrix.json'),
        '--',
        '/nonexistent/vllm',
        'serve',
        'm',
      ],
      { env: { SPEEDMATRIX_DATA_DIR: dataDir }, timeoutMs: 60_000 },
    );
    expect(yes.stdout).toContain(`Ended process group ${entry.pgid}.`);
    expect(await groupAlive(entry.pgid)).toBe(false);
    expect(new LaunchedRegistry(dataDir).list()).toEqual([]);
  }, 180_000);
});
