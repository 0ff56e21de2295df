/**
 * `speedmatrix sweep` as a person runs it: the real CLI launching the simulator once per
 * variant through the supervisor, real session files, the sweep reports, resume after a stop.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';
import { freePort } from '../../helpers/sim';

const MATRIX = [
  '--contexts',
  '8k',
  '--concurrency',
  '8',
  '--prefill-contexts',
  'none',
  '--duration',
  '10',
  '--max-output',
  '2048',
  '--sim-speed',
  '10',
];
const simCommand = (port: number, extra: string[] = []) => [
  '--',
  'speedmatrix',
  'sim',
  'serve',
  'microsoft/Fara1.5-4B',
  '--sim-profile',
  'rtx-pro-6000-fara-4b-bf16',
  '--port',
  String(port),
  '--sim-speed',
  '10',
  '--max-model-len',
  '32768',
  ...extra,
];

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sm-sweep-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cellOf = async (file: string) => {
  const s = await readSessionFile(file);
  if (!s.ok) throw new Error(s.error.message);
  return s.data.cells.find((c) => c.context === 8192 && c.concurrency === 8);
};

describe('speedmatrix sweep', () => {
  it('runs every variant through its own server: too few sequences are queued, enough are Valid, and the report names the best', async () => {
    const dir = join(mkdtempSync(join(root, 'seqs-')), 'sweep');
    const r = await runCli(
      ['sweep', '--vary', '--max-num-seqs=4,16', ...MATRIX, '--out-dir', dir, ...simCommand(await freePort())],
      { timeoutMs: 240_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Sweep plan: 2 of 2 variants to run \(2 server starts\), up to 1 cell each/);
    expect(r.stdout).toContain('Sweep done: 2 of 2 variants measured.');
    const a = await cellOf(join(dir, 'max-num-seqs-4.speedmatrix.json'));
    const b = await cellOf(join(dir, 'max-num-seqs-16.speedmatrix.json'));
    expect(a?.status).toBe('queued');
    expect(b?.status).toBe('valid');
    const md = readFileSync(join(dir, 'sweep.md'), 'utf8');
    expect(md).toContain('| A | --max-num-seqs=4 | max-num-seqs-4.speedmatrix.json | Requests queued 1 | 0 |');
    expect(md).toContain('| B | --max-num-seqs=16 | max-num-seqs-16.speedmatrix.json | Valid 1 | 1 |');
    expect(md).toMatch(/\| 8K \| B · [\d,.]+ \|/);
    expect(md).toMatch(/\*\*Launch\*\* \| \*\*--max-num-seqs\*\* \| \*\*4\*\* \| \*\*16\*\*/);
    expect(readFileSync(join(dir, 'sweep.html'), 'utf8')).toContain('<h2>Best variant per cell</h2>');
    const manifest = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
    expect(manifest.variants.map((v: { state: string }) => v.state)).toEqual(['done', 'done']);
  });

  it('records a variant whose server does not start, with its root cause, and goes on', async () => {
    const dir = join(mkdtempSync(join(root, 'fail-')), 'sweep');
    const r = await runCli(
      [
        'sweep',
        '--vary',
        '--max-model-len=99999999,32768',
        ...MATRIX,
        '--duration',
        '3',
        '--out-dir',
        dir,
        ...simCommand(await freePort()).filter(
          (a, i, all) => a !== '--max-model-len' && all[i - 1] !== '--max-model-len',
        ),
      ],
      { timeoutMs: 240_000 },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Variant A \(1\/2\) --max-model-len=99999999: the server did not start: .*greater than the derived max_model_len/,
    );
    expect(r.stdout).toContain('Sweep done: 1 of 2 variants measured, 1 did not start.');
    const manifest = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
    expect(manifest.variants[0]).toMatchObject({ state: 'failed', failure: expect.stringContaining('max_model_len') });
    expect(manifest.variants[1].state).toBe('done');
    expect(readFileSync(join(dir, 'sweep.md'), 'utf8')).toMatch(
      /\| A \| --max-model-len=99999999 \| — \| Did not start: /,
    );
  });

  it('stops on Ctrl-C after saving, and --resume finishes only what is missing', async () => {
    const dir = join(mkdtempSync(join(root, 'resume-')), 'sweep');
    const args = [
      'sweep',
      '--vary',
      '--max-num-seqs=8,16',
      ...MATRIX,
      '--out-dir',
      dir,
      ...simCommand(await freePort()),
    ];
    const child = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      // Stop while the second variant's server starts: the first is done, the second not begun.
      if (/Variant B \(2\/2\) --max-num-seqs=16: starting the server/.test(out) && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(out).toContain(`Finish it with: speedmatrix sweep --resume ${dir}`);
    const stopped = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
    expect(stopped.variants.map((v: { state: string }) => v.state)).toEqual(['done', 'pending']);
    const first = readFileSync(join(dir, 'max-num-seqs-8.speedmatrix.json'), 'utf8');

    const r = await runCli(['sweep', '--resume', dir], { timeoutMs: 240_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Sweep plan: 1 of 2 variants to run \(1 server start\)/);
    expect(r.stdout).not.toContain('Variant A');
    expect(readFileSync(join(dir, 'max-num-seqs-8.speedmatrix.json'), 'utf8')).toBe(first);
    expect(existsSync(join(dir, 'max-num-seqs-16.speedmatrix.json'))).toBe(true);
  });

  it('refuses bad input before anything starts, exit 2', async () => {
    const port = String(await freePort());
    const bad = await runCli([
      'sweep',
      '--vary',
      '--max-num-seqs',
      '--out-dir',
      join(root, 'x'),
      '--',
      'sim',
      'serve',
      'm',
      '--port',
      port,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"--max-num-seqs" is not FLAG=V1,V2');
    const noDir = await runCli(['sweep', '--vary', '--max-num-seqs=4,8', '--', 'sim', 'serve', 'm']);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain('--out-dir DIR');
    const notSweep = await runCli(['sweep', '--resume', root]);
    expect(notSweep.code).toBe(1);
    expect(notSweep.stderr).toContain('is not a sweep folder: it has no sweep.json');
    expect(existsSync(join(root, 'x'))).toBe(false);
  });
});
