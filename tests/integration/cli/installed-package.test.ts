import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../../helpers/cli';
import { type InstalledCli, packAndInstall } from '../../helpers/installed-cli';

let dir: string;
let cli: InstalledCli;
/** A folder outside the repository, where a user would type the commands. */
let work: string;

/** Run the installed `speedmatrix` as a user's shell would: by name, on a PATH holding node. */
function speedmatrix(args: string[], timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${dirname(cli.command)}:${dirname(process.execPath)}:/usr/bin:/bin`,
    };
    delete env.NODE_OPTIONS;
    const child = spawn('speedmatrix', args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every file under `root`, relative to it. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1));
}

describe.skipIf(process.platform === 'win32')('the CLI installed from its npm pack tarball', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'speedmatrix-pkg-'));
    cli = packAndInstall(dir);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs compiled JavaScript with its runtime dependencies only: no TypeScript, tsx, Electron or engine warnings', () => {
    const own = filesUnder(cli.packageDir).filter((f) => !f.startsWith('node_modules/'));
    expect(own.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(own).toContain('out/cli/cli.js');
    expect(own).toContain('out/cli/sim.js');
    expect(own).toContain('out/cli/bench-worker.js');
    // The licence package.json names, and the files the helps cite.
    expect(own).toEqual(
      expect.arrayContaining(['LICENSE', 'docs/adaptive-precision.md', 'src-main/engine/sim/README.md']),
    );
    const deps = readdirSync(join(cli.packageDir, 'node_modules'));
    for (const dev of ['tsx', 'typescript', 'electron', 'vite', 'vitest', 'react']) expect(deps).not.toContain(dev);
    expect(cli.installLog).not.toMatch(/EBADENGINE|Unsupported engine/i);
  });

  it('runs hw, a short simulated run, report, compare and site from a folder outside the repository', async () => {
    work = mkdtempSync(join(dir, 'work-'));
    const version = await speedmatrix(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(cli.packageDir, 'package.json'), 'utf8')).version);

    const hw = await speedmatrix(['hw']);
    expect(hw.stderr).toBe('');
    expect(hw.code).toBe(0);
    expect(hw.stdout).toMatch(/^Hardware\n/);
    expect(hw.stdout).toMatch(/CPU:/);

    // The simulator and the benchmark worker start from the package: the installed copy has
    // no sources and no tsx, so a run that measured anything ran them compiled.
    const tiny = ['--contexts', '8k', '--concurrency', '1', '--prefill-contexts', '8k', '--duration', '3'];
    const run = await speedmatrix(
      ['run', '--demo', ...tiny, '--sim-speed', '20', '--out', 'demo.speedmatrix.json'],
      120_000,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Session file: ${join(work, 'demo.speedmatrix.json')}`);
    expect(existsSync(join(work, 'demo.md'))).toBe(true);

    const html = await speedmatrix(['report', 'demo.speedmatrix.json', '--format', 'html']);
    expect(html.stderr).toBe('');
    expect(html.stdout).toBe(`Wrote the HTML report to ${join('demo.html')}\n`);
    expect(readFileSync(join(work, 'demo.html'), 'utf8')).toMatch(/<html[\s>]/);

    // The Markdown report the run wrote is report text: report and compare read it as import does.
    const fromText = await speedmatrix(['report', 'demo.md', '--out', 'again.md']);
    expect(fromText.stderr).toBe('');
    expect(fromText.code).toBe(0);
    expect(readFileSync(join(work, 'again.md'), 'utf8')).toMatch(/fara/);

    const compare = await speedmatrix(['compare', 'demo.speedmatrix.json', 'demo.md', '--out', 'compare.md']);
    expect(compare.stderr).toBe('');
    expect(compare.code).toBe(0);
    expect(readFileSync(join(work, 'compare.md'), 'utf8')).toMatch(/fara/);

    // The results site's browser script was bundled at build time: nothing is compiled here.
    const site = await speedmatrix(['site', '.', '-o', 'site']);
    expect(site.stderr).toBe('');
    expect(site.code).toBe(0);
    expect(readFileSync(join(work, 'site', 'index.html'), 'utf8')).toMatch(/fara/i);
    expect(readFileSync(join(work, 'site', 'site.js'), 'utf8').length).toBeGreaterThan(1000);
  }, 180_000);
});
