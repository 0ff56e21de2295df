/**
 * `--ssh HOST` against a real OpenSSH server on 127.0.0.1 (tests/helpers/sshd.ts), whose sessions
 * run the CLI packed and installed from this checkout: the host's hardware, a simulator matrix
 * run there with its progress here, a dropped link (the ssh client killed) and a lost CLI picked
 * up again with nothing measured twice, a run that died there resumed from its journal, Stop,
 * and what a person is told when the host cannot be used.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect } from 'vitest';
import { cellKey } from '#shared/cell-key';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { remoteRunState } from '../../../src-main/workflows/remote/remote-run';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';
import { freePort } from '../../../src-main/engine/server/port';
import { sshTest as it, type SshHost } from '../../helpers/fixtures';
import { commandLinesHolding, filesHolding, followClientOf, processesOfHome, sshdAvailable } from '../../helpers/sshd';

const CONCURRENCY = [1, 2, 4, 8];
const CELLS = CONCURRENCY.map((c) => `0x${c}`);
const LONG = [1, 2, 4, 8, 16, 32, 64];
/** A compact simulator matrix: each cell's 3 s window takes 1.5 s, so there is time to cut in. */
const MATRIX = ['--demo', '--contexts', '0', '--concurrency', CONCURRENCY.join(','), '--prefill-contexts', 'none'];
const TIMING = ['--duration', '3', '--sim-speed', '2', '--yes'];

interface Ev {
  type: string;
  context?: number;
  concurrency?: number;
  cell?: { context: number; concurrency: number; status: string };
}
const events = (text: string): Ev[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Ev);
const started = (text: string) =>
  events(text)
    .filter((e) => e.type === 'cell-start')
    .map((e) => cellKey(e as { context: number; concurrency: number }));
const done = (text: string) => events(text).flatMap((e) => (e.type === 'cell-done' && e.cell ? [cellKey(e.cell)] : []));

const sshFlags = (h: { host: string; options: string[] }) => [
  '--ssh',
  h.host,
  ...h.options.flatMap((o) => ['--ssh-option', o]),
];

/** The CLI from this checkout as a process of its own, its output collected as it comes. */
function startCli(args: string[], cwd: string) {
  const child = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const closed = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  return { child, out, closed };
}

async function until(what: string, ok: () => boolean, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The run's folder on the host, from the id the CLI printed. */
function runFolder(host: SshHost, stderr: string): string {
  const id = /Started run (\S+) on/.exec(stderr)?.[1];
  if (!id) throw new Error(`no run id in: ${stderr}`);
  return join(host.home, '.speedmatrix', 'remote', id);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!sshdAvailable)('speedmatrix over SSH to a real sshd', () => {
  it('hw --ssh prints the hardware the host’s own speedmatrix detects', async ({ sshHost, tempDir }) => {
    const here = await runCli(['hw', '--json', ...sshFlags(sshHost)], { cwd: tempDir(), timeoutMs: 120_000 });
    expect(here.stderr).toBe('');
    expect(here.code).toBe(0);
    const remote = JSON.parse(here.stdout) as { hardware: { cpu: unknown; os: unknown } };
    const local = JSON.parse((await runCli(['hw', '--json'], { timeoutMs: 60_000 })).stdout) as typeof remote;
    expect(remote.hardware.cpu).toEqual(local.hardware.cpu);
    expect(remote.hardware.os).toEqual(local.hardware.os);
    const text = await runCli(['hw', ...sshFlags(sshHost)], { timeoutMs: 120_000 });
    expect(text.stdout).toMatch(/^Hardware\n[\s\S]*CPU:/);
  }, 240_000);

  it('a run there streams its progress here; the ssh client killed mid-run is followed again, each cell measured once', async ({
    sshHost,
    tempDir,
  }) => {
    const work = tempDir();
    const out = join(work, 'remote.speedmatrix.json');
    const cli = startCli(['run', ...sshFlags(sshHost), ...MATRIX, ...TIMING, '--json-progress', '--out', out], work);
    await until('two cells done and the third started', () => done(cli.out.stdout).length >= 2);
    const ssh = followClientOf(cli.child.pid!);
    expect(ssh).not.toBeNull();
    process.kill(ssh!, 'SIGKILL');
    const code = await cli.closed;
    expect(code, cli.out.stderr).toBe(0);
    expect(cli.out.stderr).toMatch(/Connection to root@127\.0\.0\.1 lost \(the ssh client was ended \(SIGKILL\)\)/);
    // Followed again from the byte where the link dropped: no line twice, every cell once.
    expect(started(cli.out.stdout).sort()).toEqual([...CELLS].sort());
    expect(done(cli.out.stdout).sort()).toEqual([...CELLS].sort());
    const s = await readSessionFile(out);
    expect(s.ok && s.data.cells.map((c) => `${cellKey(c)}:${c.status}`).sort()).toEqual(
      CELLS.map((k) => `${k}:valid`).sort(),
    );
    expect(s.ok && s.data.simulated).toBe(true);
    expect(cli.out.stderr).toContain(`Session file: ${out}`);
  }, 240_000);

  it('--reattach resumes a run that died on the host from its journal, measuring only what was not finished', async ({
    sshHost,
    tempDir,
  }) => {
    const work = tempDir();
    const out = join(work, 'lost.speedmatrix.json');
    const first = startCli(['run', ...sshFlags(sshHost), ...MATRIX, ...TIMING, '--json-progress'], work);
    await until('one cell done', () => done(first.out.stdout).length >= 1);
    first.child.kill('SIGKILL');
    await first.closed;
    const folder = runFolder(sshHost, first.out.stderr);
    const progress = () => readFileSync(join(folder, 'progress.jsonl'), 'utf8');
    // This side is gone, the run goes on there; then it dies there too.
    await until('two cells done on the host', () => done(progress()).length >= 2);
    const finishedBefore = done(progress());
    process.kill(Number(readFileSync(join(folder, 'pid'), 'utf8')), 'SIGKILL');
    await until('the run to end there', () => existsSync(join(folder, 'exit')));

    const id = folder.split('/').pop()!;
    const again = await runCli(['run', ...sshFlags(sshHost), '--reattach', id, '--out', out, '--json-progress'], {
      cwd: work,
      timeoutMs: 180_000,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/It is not running there \(it was killed\): resuming it\./);
    const resumed = progress().slice(progress().lastIndexOf('"type":"plan"'));
    expect(started(resumed).filter((k) => finishedBefore.includes(k))).toEqual([]);
    expect([...finishedBefore, ...done(resumed)].sort()).toEqual([...CELLS].sort());
    const s = await readSessionFile(out);
    expect(s.ok && s.data.cells.map((c) => `${cellKey(c)}:${c.status}`).sort()).toEqual(
      CELLS.map((k) => `${k}:valid`).sort(),
    );
  }, 300_000);

  it('reads a run whose exit code is written as over, while its wrapper shell is still ending', async ({ sshHost }) => {
    const id = '20261202040000-0abcde';
    const folder = join(sshHost.home, '.speedmatrix', 'remote', id);
    mkdirSync(folder, { recursive: true });
    // The wrapper writes `exit` as its last act: a process still alive under its pid is that moment.
    const wrapper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      writeFileSync(join(folder, 'wrapper.pid'), `${wrapper.pid}\n`);
      const target = { host: sshHost.host, options: sshHost.options };
      expect(await remoteRunState(target, id)).toMatchObject({ running: true, exit: null });
      writeFileSync(join(folder, 'exit'), '137\n');
      expect(await remoteRunState(target, id)).toMatchObject({ running: false, exit: 137 });
    } finally {
      wrapper.kill('SIGKILL');
    }
  }, 60_000);

  it('--reattach follows a run still going there; Ctrl-C then stops it on the host, which saves what it measured', async ({
    sshHost,
    tempDir,
  }) => {
    const work = tempDir();
    const out = join(work, 'stopped.speedmatrix.json');
    // Real-time simulator clock and seven cells: the run is still going when the second CLI has started.
    const longer = ['--demo', '--contexts', '0', '--concurrency', LONG.join(','), '--prefill-contexts', 'none'];
    const slow = ['--duration', '3', '--sim-speed', '1', '--yes'];
    const first = startCli(['run', ...sshFlags(sshHost), ...longer, ...slow, '--json-progress'], work);
    await until('a cell started', () => started(first.out.stdout).length >= 1);
    first.child.kill('SIGKILL');
    await first.closed;
    const folder = runFolder(sshHost, first.out.stderr);
    const id = folder.split('/').pop()!;

    const cli = startCli(['run', ...sshFlags(sshHost), '--reattach', id, '--out', out, '--json-progress'], work);
    await until('a cell done, seen by the second CLI', () => done(cli.out.stdout).length >= 1);
    expect(cli.out.stderr).toMatch(/Reattaching to \S+ on root@127\.0\.0\.1/);
    cli.child.kill('SIGINT');
    expect(await cli.closed, cli.out.stderr).toBe(130);
    expect(readFileSync(join(folder, 'exit'), 'utf8').trim()).toBe('130');
    expect(alive(Number(readFileSync(join(folder, 'wrapper.pid'), 'utf8')))).toBe(false);
    const s = await readSessionFile(out);
    expect(s.ok).toBe(true);
    const valid = s.ok ? s.data.cells.filter((c) => c.status === 'valid').length : 0;
    expect(valid).toBeGreaterThanOrEqual(1);
    expect(valid).toBeLessThan(LONG.length);
    expect(cli.out.stderr).toMatch(/Stopped; saved what was measured on root@127\.0\.0\.1\./);
  }, 300_000);

  it('sweep --ssh runs the variants there and copies the sweep folder here; an --api-key in the server command reaches the host in the environment only', async ({
    sshHost,
    tempDir,
  }) => {
    const work = tempDir();
    const dir = join(work, 'sim-sweep');
    const port = String(await freePort());
    const key = `sk-sweep-${process.pid}-${Date.now()}`;
    const cli = startCli(
      [
        'sweep',
        ...sshFlags(sshHost),
        '--vary',
        '--max-num-seqs=4,16',
        ...['--contexts', '8k', '--concurrency', '8', '--prefill-contexts', 'none', '--duration', '10'],
        ...['--max-output', '2048', '--sim-speed', '10', '--out-dir', dir],
        ...['--', 'speedmatrix', 'sim', 'serve', 'microsoft/Fara1.5-4B', '--port', port, '--sim-speed', '10'],
        ...['--max-model-len', '32768', '--api-key', key],
      ],
      work,
    );
    const serverThere = () =>
      processesOfHome(sshHost.home).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(
            `sim\0serve\0microsoft/Fara1.5-4B\0--port\0${port}`,
          );
        } catch {
          return false;
        }
      });
    await until('the first variant’s server there', () => serverThere().length > 0, 120_000);
    expect(commandLinesHolding(key, processesOfHome(sshHost.home))).toEqual([]);
    expect(filesHolding(sshHost.home, key)).toEqual([]);
    expect(await cli.closed, cli.out.stderr).toBe(0);
    expect(cli.out.stdout).toContain(`Done on root@127.0.0.1. The sweep folder: ${dir}`);
    expect(cli.out.stdout + cli.out.stderr).not.toContain(key);
    expect(readdirSync(dir).sort()).toEqual([
      'max-num-seqs-16.speedmatrix.json',
      'max-num-seqs-4.speedmatrix.json',
      'sweep.html',
      'sweep.json',
      'sweep.md',
    ]);
    expect(filesHolding(dir, key)).toEqual([]);
    expect(filesHolding(sshHost.home, key)).toEqual([]);
    // The server there refuses requests without the key: measured cells say it reached the runs there.
    const s = await readSessionFile(join(dir, 'max-num-seqs-16.speedmatrix.json'));
    expect(s.ok && s.data.cells.map((c) => `${cellKey(c)}:${c.status}`)).toEqual(['8192x8:valid']);
    expect(readFileSync(join(dir, 'sweep.md'), 'utf8')).toMatch(/max-num-seqs/);
  }, 300_000);

  it('serve --ssh supervises the server there, its --api-key in the environment only, shows its ready line here, and Ctrl-C stops it on the host', async ({
    sshHost,
    tempDir,
  }) => {
    const work = tempDir();
    const port = String(await freePort());
    const key = `sk-serve-${process.pid}-${Date.now()}`;
    const sim = ['speedmatrix', 'sim', 'serve', 'microsoft/Fara1.5-4B', '--port', port, '--sim-load-seconds', '0'];
    const cli = startCli(['serve', ...sshFlags(sshHost), '--json', '--', ...sim, '--api-key', key], work);
    await until('the ready line', () => /"event":"ready"/.test(cli.out.stdout), 60_000);
    const url = `http://127.0.0.1:${port}/v1/models`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${key}` } })).ok).toBe(true);
    // Not on a command line there, not in its files, not in what it printed here.
    expect(commandLinesHolding(key, processesOfHome(sshHost.home))).toEqual([]);
    expect(filesHolding(sshHost.home, key)).toEqual([]);
    expect(cli.out.stdout + cli.out.stderr).not.toContain(key);
    const folder = join(sshHost.home, '.speedmatrix', 'remote', /Started serve (\S+) on/.exec(cli.out.stderr)![1]);
    cli.child.kill('SIGINT');
    expect(await cli.closed, cli.out.stderr).toBe(0);
    expect(cli.out.stdout).toMatch(/"event":"stopped"/);
    expect(readFileSync(join(folder, 'exit'), 'utf8').trim()).toBe('0');
    await expect(fetch(url)).rejects.toThrow();
  }, 120_000);

  it('run --ssh --launch takes an --api-key out of the server command: in the environment there only, the run measured with it', async ({
    sshHost,
    tempDir,
  }) => {
    const work = tempDir();
    const out = join(work, 'keyed.speedmatrix.json');
    const key = `sk-run-${process.pid}-${Date.now()}`;
    const sim = ['speedmatrix', 'sim', 'serve', 'microsoft/Fara1.5-4B', '--sim-load-seconds', '0', '--sim-speed', '2'];
    const matrix = ['--contexts', '0', '--concurrency', '1', '--prefill-contexts', 'none', '--duration', '3', '--yes'];
    const args = ['run', ...sshFlags(sshHost), '--launch', ...matrix, '--json-progress', '--out', out];
    const cli = startCli([...args, '--', ...sim, '--api-key', key], work);
    await until('the cell started', () => started(cli.out.stdout).length >= 1);
    expect(commandLinesHolding(key, processesOfHome(sshHost.home))).toEqual([]);
    expect(filesHolding(sshHost.home, key)).toEqual([]);
    expect(await cli.closed, cli.out.stderr).toBe(0);
    expect(cli.out.stdout + cli.out.stderr).not.toContain(key);
    const s = await readSessionFile(out);
    expect(s.ok && s.data.cells.map((c) => `${cellKey(c)}:${c.status}`)).toEqual(['0x1:valid']);
    expect(readFileSync(out, 'utf8')).not.toContain(key);
  }, 240_000);

  it('says what to do when the host key is unknown, the key is refused, or speedmatrix is missing or older there', async ({
    sshHost,
    launchSshd,
    tempDir,
  }) => {
    const work = tempDir();
    const hw = (flags: string[]) => runCli(['hw', ...flags], { cwd: work, timeoutMs: 60_000 });
    const empty = join(work, 'known_hosts');
    writeFileSync(empty, '');
    const unknown = await hw(
      sshFlags({ host: sshHost.host, options: [`UserKnownHostsFile=${empty}`, ...sshHost.options] }),
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /host key is not one ssh knows \(known_hosts\): connect once with `ssh root@127\.0\.0\.1`/,
    );

    const stranger = await hw(
      sshFlags({
        host: sshHost.host,
        options: sshHost.options.map((o) =>
          o.startsWith('IdentityFile=') ? `IdentityFile=${sshHost.strangerKey}` : o,
        ),
      }),
    );
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/refused the login without a password: SpeedMatrix runs ssh with BatchMode=yes/);

    const node = dirname(process.execPath);
    const bare = await launchSshd([node, '/usr/bin', '/bin']);
    const missing = await hw(sshFlags(bare));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/speedmatrix is not installed on root@127\.0\.0\.1: install it there/);
    expect(missing.stderr).toContain('npm install -g ./speedmatrix-');

    const oldBin = join(work, 'old-bin');
    mkdirSync(oldBin);
    writeFileSync(join(oldBin, 'speedmatrix'), '#!/bin/sh\necho 0.0.1\n');
    chmodSync(join(oldBin, 'speedmatrix'), 0o755);
    const old = await launchSshd([oldBin, node, '/usr/bin', '/bin']);
    const older = await runCli(['run', ...sshFlags(old), ...MATRIX], { cwd: work, timeoutMs: 60_000 });
    expect(older.code).toBe(1);
    expect(older.stderr).toMatch(/speedmatrix on root@127\.0\.0\.1 is version 0\.0\.1, older than this one/);
    expect(existsSync(join(old.home, '.speedmatrix'))).toBe(false);
  }, 240_000);
});
