/**
 * `speedmatrix run --url` against the simulator process, as from a terminal: the key from a
 * file (the command-line key warned against), the simulator's own hardware in the session and
 * the title, and a real terminal Ctrl-C (SIGINT to the whole foreground process group, the
 * benchmark worker included).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { reportTitle } from '#shared/report/report-blocks';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';
import { simTest } from '../../helpers/fixtures';

const KEY = 'sk-cli-test-4f9a';
const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  { profile: 'h200-8b-bf16', speed: 20, apiKey: KEY, args: ['--served-model-name', 'llama'] },
);

const small = [
  '--contexts',
  '0',
  '--concurrency',
  '1',
  '--prefill-contexts',
  'none',
  '--duration',
  '5',
  '--sim-speed',
  '20',
];

describe('the API key', () => {
  it('from --api-key-file: no warning; the session records the simulator’s profile GPU, and the title names it', async ({
    sim,
    tempDir,
  }) => {
    const dir = tempDir('sm-url-');
    writeFileSync(join(dir, 'key'), `${KEY}\n`);
    const out = join(dir, 'a.speedmatrix.json');
    const r = await runCli(['run', '--url', sim.url, '--api-key-file', join(dir, 'key'), ...small, '--out', out], {
      timeoutMs: 90_000,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const s = await readSessionFile(out);
    if (!s.ok) throw new Error(s.error.message);
    expect(s.data.hardware.gpus.map((g) => g.name)).toEqual(['NVIDIA H200 (simulated)']);
    expect([s.data.hardware.cpu, s.data.hardware.os]).toEqual([null, null]);
    expect(reportTitle(s.data)).toMatch(/ on NVIDIA H200 \(simulated\) 140GB$/);
    expect(readFileSync(out, 'utf8')).not.toContain(KEY);
  }, 120_000);

  it('on the command line: works, with one warning naming the safer ways; the session is named as the help says', async ({
    sim,
    tempDir,
  }) => {
    const dir = tempDir('sm-url-');
    const r = await runCli(['run', '--url', sim.url, '--api-key', KEY, ...small], { timeoutMs: 90_000, cwd: dir });
    expect(r.code).toBe(0);
    // ./speedmatrix-<model>-<time>.speedmatrix.json: "demo" is for --demo only, not any simulator.
    expect(r.stdout).toMatch(/^Session file: .*\/speedmatrix-llama-\d{4}-\d{2}-\d{2}-\d{6}\.speedmatrix\.json$/m);
    expect(r.stderr.match(/warning: a key given with --api-key/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/SPEEDMATRIX_API_KEY or use --api-key-file/);
    expect(r.stderr + r.stdout).not.toContain(KEY);
  }, 120_000);
});

describe('Ctrl-C in a terminal', () => {
  it('reaches the worker too, which keeps going until told to stop: exit 130, the cell says the run was stopped', async ({
    sim,
    tempDir,
  }) => {
    const dir = tempDir('sm-url-');
    const out = join(dir, 'c.speedmatrix.json');
    // Its own process group, as a terminal's foreground job: the SIGINT goes to every process in it.
    const cli = spawn(
      process.execPath,
      [
        join(ROOT, 'src-main/hosts/cli/bin.cjs'),
        'run',
        '--url',
        sim.url,
        '--contexts',
        '0',
        '--concurrency',
        '1,2',
        '--prefill-contexts',
        'none',
        '--duration',
        '20',
        '--sim-speed',
        '20',
        '--json-progress',
        '--out',
        out,
      ],
      {
        detached: true,
        env: { ...process.env, SPEEDMATRIX_API_KEY: KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    let sent = false;
    cli.stderr.on('data', (d) => (stderr += d));
    cli.stdout.on('data', (d) => {
      stdout += d;
      if (!sent && /"type":"phase","phase":"window"/.test(stdout)) {
        sent = true;
        process.kill(-cli.pid!, 'SIGINT');
      }
    });
    const code = await new Promise<number | null>((r) => cli.on('exit', (c) => r(c)));
    expect(sent).toBe(true);
    expect(code).toBe(130);
    expect(stdout + stderr).not.toMatch(/stopped unexpectedly/);
    const s = await readSessionFile(out);
    if (!s.ok) throw new Error(s.error.message);
    // The worker itself cancelled the cell (it was not killed by the SIGINT): its own words.
    expect(s.data.cells.filter((c) => c.status === 'cancelled').map((c) => c.reason)).toEqual([
      'the run was stopped during this cell',
    ]);
  }, 120_000);
});
