/**
 * The CLI as a person meets it before anything runs: usage errors (one line and where the
 * help is), an output folder that cannot take the session (refused before anything is
 * launched or measured), a bad hardware file, and a pipe closed early. The real CLI process.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';

/** A fresh folder for the running test, removed when it ends, passed or failed. */
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sm-cli-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

describe('usage errors', () => {
  it('an unknown option: the error and one line naming the command’s --help, exit 2, no help text', async () => {
    const r = await runCli(['run', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("speedmatrix: unknown option '--bogus'\nRun 'speedmatrix run --help' for the options.\n");
    expect(r.stdout).toBe('');
  });

  it('an unknown command names the top-level --help', async () => {
    const r = await runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^speedmatrix: unknown command 'frobnicate'\nRun 'speedmatrix --help' for the options\.\n$/,
    );
  });

  it('--concurrency 0 gives a concurrency example, not a context one', async () => {
    const r = await runCli(['run', '--demo', '--concurrency', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--concurrency: "0" is not a positive whole number (e.g. --concurrency 1,4,16).');
  });

  it('--concurrency 1.5 is refused as a whole number is expected, not rounded to 2', async () => {
    const r = await runCli(['run', '--demo', '--concurrency', '1,1.5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--concurrency: "1.5" is not a positive whole number (e.g. --concurrency 1,4,16).');
    expect(r.stdout).toBe('');
  });

  it('--concurrency above the streams the client can hold is refused up front (exit 2), not left to wait in the ramp', async () => {
    const r = await runCli(['run', '--demo', '--concurrency', '64,4097']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--concurrency 4097 is more than this client can hold at once (4096 streams, one connection each); choose at most 4096.',
    );
    expect(r.stdout).toBe('');
  });

  // prlimit (util-linux) sets the limit; the client reads it from /proc/self/limits, which only Linux has.
  it.skipIf(process.platform !== 'linux')(
    '--concurrency the OS gives too few open files for is refused up front with the ulimit to raise',
    async () => {
      const r = await runCli(['run', '--demo', '--concurrency', '64,1024'], {
        wrap: ['prlimit', '--nofile=1000:1000'],
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        '--concurrency 1024 needs about 1280 open files (one socket per stream), and this system lets the client open only 1000 (ulimit -n). Raise the limit (`ulimit -n 1280` in the shell that starts speedmatrix, or LimitNOFILE= in its systemd unit) or choose at most 744.',
      );
      expect(r.stdout).toBe('');
    },
  );

  it('--url without a scheme is a usage error (exit 2), said before anything is measured', async () => {
    const r = await runCli(['run', '--url', 'localhost:8000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('speedmatrix run: --url: "localhost:8000" must start with http:// or https://\n');
  });

  it('help sim serve shows the simulator’s flags; sim --help shows sim’s commands only', async () => {
    const serve = await runCli(['help', 'sim', 'serve']);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toMatch(/^Usage: speedmatrix sim serve \[MODEL\]/);
    expect(serve.stdout).toContain('Sim flags:');
    const sim = await runCli(['sim', '--help']);
    expect(sim.code).toBe(0);
    expect(sim.stdout).toMatch(/^Usage: speedmatrix sim /);
    expect(sim.stdout).not.toContain('Sim flags:');
    expect((await runCli(['help', 'run'])).stdout).toMatch(/^Usage: speedmatrix run /);
    const unknown = await runCli(['help', 'sim', 'bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'sim bogus'");
  });

  it('--version and --help exit 0', async () => {
    const v = await runCli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const h = await runCli(['run', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/--api-key-file <file>/);
  });
});

describe('the output is checked before anything runs', () => {
  it('--out in a folder that does not exist: exit 2 with the reason, no server launched', async () => {
    const dir = temp();
    const data = join(dir, 'data');
    const out = join(dir, 'missing', 'x.speedmatrix.json');
    const r = await runCli(['run', '--demo', '--out', out], { env: { SPEEDMATRIX_DATA_DIR: data } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out: the folder ${join(dir, 'missing')} does not exist`);
    expect(r.stdout).not.toMatch(/Launching/);
    expect(existsSync(join(data, 'launched-servers.json'))).toBe(false);
  });

  it('--out under a file (not a folder), and an --out that already exists: exit 2', async () => {
    const dir = temp();
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    const under = await runCli(['run', '--demo', '--out', join(file, 'x.speedmatrix.json')]);
    expect(under.code).toBe(2);
    expect(under.stderr).toContain(`--out: ${file} is not a folder.`);
    const exists = await runCli(['run', '--demo', '--out', file]);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain(`--out: ${file} already exists`);
  });

  it('sweep --out-dir on a file: "is not a folder", exit 2, as run says it', async () => {
    const dir = temp();
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    const r = await runCli([
      'sweep',
      '--vary',
      '--max-num-seqs=4,16',
      '--out-dir',
      file,
      '--',
      'speedmatrix',
      'sim',
      'serve',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`speedmatrix sweep: --out-dir: ${file} is not a folder.\n`);
  });

  it('--report in a folder that does not exist: exit 2', async () => {
    const dir = temp();
    const r = await runCli([
      'run',
      '--demo',
      '--out',
      join(dir, 'a.speedmatrix.json'),
      '--report',
      join(dir, 'nope', 'a.md'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--report: the folder ${join(dir, 'nope')} does not exist`);
  });

  it('--hardware that is not `hw --json` output: exit 2 naming the field', async () => {
    const dir = temp();
    const hw = join(dir, 'hw.json');
    writeFileSync(hw, JSON.stringify({ hardware: { gpus: 'many' } }));
    const r = await runCli([
      'run',
      '--url',
      'http://127.0.0.1:9',
      '--out',
      join(dir, 'a.speedmatrix.json'),
      '--hardware',
      hw,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--hardware: The hardware file .*hw\.json is not what `speedmatrix hw --json` writes: gpus: /,
    );
  });
});

describe('a pipe closed early (`speedmatrix help | head`)', () => {
  it('a run whose reader goes away after two lines (| head -2) carries on and writes its whole session', async () => {
    const dir = temp();
    const out = join(dir, 'piped.speedmatrix.json');
    const args = ['run', '--demo', '--contexts', '8k', '--concurrency', '1,2', '--prefill-contexts', 'none'];
    const child = spawn(
      process.execPath,
      [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args, '--duration', '10', '--sim-speed', '20', '--out', out],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SPEEDMATRIX_DATA_DIR: join(dir, 'data') } },
    );
    let seen = '';
    child.stdout.on('data', (d) => {
      seen += d;
      if (seen.split('\n').length > 2) child.stdout.destroy();
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const saved = JSON.parse(readFileSync(out, 'utf8'));
    expect(saved.cells.map((c: { status: string }) => c.status)).toEqual(['valid', 'valid']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') || f.endsWith('.journal'))).toEqual([]);
  }, 120_000);

  it('exits quietly: no EPIPE stack trace', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), 'run', '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(stderr).not.toMatch(/EPIPE|at .*\(node:/);
    expect(code).toBe(0);
  });
});
