/**
 * Figure 9, CLI start-up (`npm run bench:cli-start`): `speedmatrix --version` and `--help`
 * against a bare `node -e 0` on the same machine, runs interleaved so load on the machine hits
 * all alike. The installed CLI is this checkout packed and installed as README "On a GPU
 * server" says; the clone's compiled CLI is what `npx speedmatrix` runs after `npm run build`
 * (built first when stale). The sources through tsx (a fresh clone, or an edit not yet built)
 * are shown for comparison.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packAndInstall } from '../../helpers/installed-cli';
import { ROOT } from '../../helpers/paths';
import { BENCH } from '../lib/config';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

const BIN = join(ROOT, 'src-main/hosts/cli/bin.cjs');
const { freshBuiltCli } = createRequire(__filename)(join(ROOT, 'src-main/hosts/cli/built-entry.cjs')) as {
  freshBuiltCli: () => string | null;
};

function timeMs(args: string[], env: NodeJS.ProcessEnv = {}): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString().slice(0, 300)}`);
  return ms;
}

export async function cliStartupFigure(): Promise<Row[]> {
  let note: string | undefined;
  if (!freshBuiltCli()) {
    const b = spawnSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: 'ignore' });
    if (b.status !== 0 || !freshBuiltCli())
      throw new Error('the compiled CLI could not be built (npx electron-vite build)');
    note = 'built first';
  }
  const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-bench-pkg-'));
  try {
    return measure(join(packAndInstall(dir).packageDir, 'src-main/hosts/cli/bin.cjs'), note);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function measure(installedBin: string, note: string | undefined): Row[] {
  const n = BENCH.quick ? 7 : 15;
  const bare: number[] = [];
  const installed: number[] = [];
  const version: number[] = [];
  const help: number[] = [];
  const sourceVersion: number[] = [];
  for (let i = 0; i < n; i++) {
    bare.push(timeMs(['-e', '0']));
    installed.push(timeMs([installedBin, '--version']));
    version.push(timeMs([BIN, '--version']));
    help.push(timeMs([BIN, '--help']));
    if (i < 5) sourceVersion.push(timeMs([BIN, '--version'], { SPEEDMATRIX_FROM_SOURCE: '1' }));
  }
  const base = spread(bare).median;
  const ratio = (xs: number[]) => spread(xs.map((x, i) => x / bare[i]));
  const f = '9 CLI start-up';
  return [
    row(f, 'bare `node -e 0`', spread(bare), 'ms', 0, undefined, note),
    row(f, '`speedmatrix --version` (installed package)', spread(installed), 'ms', 0),
    row(f, 'installed `--version` / bare node (run by run)', ratio(installed), '×', 2, {
      text: '≤ 2 ×',
      ok: (v) => v <= 2,
    }),
    row(f, '`speedmatrix --version` (compiled)', spread(version), 'ms', 0),
    row(f, '`--version` / bare node (run by run)', ratio(version), '×', 2, { text: '≤ 4 ×', ok: (v) => v <= 4 }),
    row(f, '`speedmatrix --help` (compiled)', spread(help), 'ms', 0),
    row(f, '`--help` / bare node (run by run)', ratio(help), '×', 2, { text: '≤ 5 ×', ok: (v) => v <= 5 }),
    row(
      f,
      '`--version` from the sources (tsx), for comparison',
      spread(sourceVersion),
      'ms',
      0,
      undefined,
      `${(spread(sourceVersion).median / base).toFixed(1)} × bare node`,
    ),
  ];
}
