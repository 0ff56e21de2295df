/**
 * A run that launched its server (the demo's simulator, a typed server command) takes that
 * server with it when it stops. `run --resume FILE`, as the CLI prints it, starts the same
 * server again from the session and measures the cells left: after Ctrl-C and after kill -9.
 * The real CLI, the real simulator; the kill -9 leaves its server behind, ended by the test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { LaunchedRegistry } from '../../../src-main/engine/server/launched-registry';
import { freePort } from '../../../src-main/engine/server/port';
import { shellSplit } from '#shared/shell-quote';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';

const SMALL = ['--contexts', '0', '--concurrency', '1,2,4', '--prefill-contexts', 'none', '--duration', '40'];

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Start `speedmatrix run ARGS --json-progress`; `stop` once the first cell is done; resolves with its output. */
function runUntilFirstCell(args: string[], env: NodeJS.ProcessEnv, signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), 'run', '--json-progress', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let sent = false;
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => {
    stdout += d;
    if (!sent && /"type":"cell-done"/.test(stdout)) {
      sent = true;
      child.kill(signal);
    }
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

async function expectAllValid(file: string) {
  const s = await readSessionFile(file);
  if (!s.ok) throw new Error(s.error.message);
  expect(s.data.cells.map((c) => `${c.concurrency}:${c.status}`)).toEqual(['1:valid', '2:valid', '4:valid']);
}

describe('run --resume of a run that launched its server', () => {
  it('after Ctrl-C of run --launch: the printed command, typed as printed, starts the server again and finishes', async () => {
    const dir = temp('sm-resume-');
    const env = { SPEEDMATRIX_DATA_DIR: join(dir, 'data') };
    const out = join(dir, 'launch.speedmatrix.json');
    const port = await freePort();
    const server = ['speedmatrix', 'sim', 'serve', 'm', '--port', String(port), '--sim-speed', '20'];
    const first = await runUntilFirstCell(
      ['--launch', ...SMALL, '--sim-speed', '20', '--out', out, '--', ...server],
      env,
      'SIGINT',
    );
    expect(first.code, first.stderr + first.stdout.slice(-1500)).toBe(130);
    const printed = /^Continue later with: (.*)$/m.exec(first.stderr + first.stdout)?.[1];
    expect(printed).toBe(`speedmatrix run --resume ${out}`);
    const [, ...args] = shellSplit(printed!);
    const again = await runCli(args, { env, timeoutMs: 120_000 });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Launching the server\.\.\.$/m);
    await expectAllValid(out);
  }, 240_000);

  it('after Ctrl-C of run --demo: resume rewrites the report beside the session and says where; resumed again, it says nothing is left, starting no server', async () => {
    const dir = temp('sm-resume-');
    const env = { SPEEDMATRIX_DATA_DIR: join(dir, 'data') };
    const out = join(dir, 'demo.speedmatrix.json');
    const md = join(dir, 'demo.md');
    const first = await runUntilFirstCell(['--demo', ...SMALL, '--sim-speed', '20', '--out', out], env, 'SIGINT');
    expect(first.code, first.stderr).toBe(130);
    expect(readFileSync(md, 'utf8')).toContain('Cancelled');
    const again = await runCli(['run', '--resume', out], { env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^Report: ${md.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    await expectAllValid(out);
    expect(readFileSync(md, 'utf8')).not.toContain('Cancelled');

    const done = await runCli(['run', '--resume', out], { env, timeoutMs: 60_000 });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(
      /^Nothing left to measure: every cell of .*demo\.speedmatrix\.json is done, so no server was started\.$/m,
    );
    expect(done.stdout).not.toMatch(/Launching|Server:/);
  }, 240_000);

  it('a load session is not resumed: exit 2 saying so and what to run, before anything is launched or attached', async () => {
    const dir = temp('sm-resume-');
    const env = { SPEEDMATRIX_DATA_DIR: join(dir, 'data') };
    const out = join(dir, 'load.speedmatrix.json');
    const load = await runCli(
      [
        'load',
        '--demo',
        '--rates',
        '2',
        '--duration',
        '3',
        '--warmup',
        '1',
        '--input-len',
        '256',
        '--output-len',
        '32',
        '--out',
        out,
      ],
      { env, timeoutMs: 120_000 },
    );
    expect(load.code, load.stderr).toBe(0);
    const r = await runCli(['run', '--resume', out], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `speedmatrix run: --resume: ${out} is a load session, and load sessions are not resumed (a rate cut short is measured again whole); run \`speedmatrix load\` again with a new --out.\n`,
    );
    expect(r.stdout).toBe('');
  }, 180_000);

  it('after kill -9 of run --demo: run --resume FILE starts the demo’s simulator again and finishes', async () => {
    const dir = temp('sm-resume-');
    const data = join(dir, 'data');
    const out = join(dir, 'demo.speedmatrix.json');
    onTestFinished(async () => {
      const reg = new LaunchedRegistry(data);
      for (const left of await reg.leftovers()) await reg.end(left, 5000);
    });
    const first = await runUntilFirstCell(
      ['--demo', ...SMALL, '--sim-speed', '20', '--out', out],
      { SPEEDMATRIX_DATA_DIR: data },
      'SIGKILL',
    );
    expect(first.code).toBeNull();
    const again = await runCli(['run', '--resume', out], { env: { SPEEDMATRIX_DATA_DIR: data }, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/SIMULATED/);
    await expectAllValid(out);
  }, 240_000);
});
