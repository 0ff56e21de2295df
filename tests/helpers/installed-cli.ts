/**
 * The CLI as a user installs it on a GPU server (README "On a GPU server"): `npm pack` of this
 * checkout, then `npm install -g` of that tarball into a prefix of its own. Nothing of the
 * checkout is reachable from the installed copy, so whatever it runs (the CLI, the benchmark
 * worker, the simulator and its engine) comes from the package.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths';

export interface InstalledCli {
  /** `PREFIX/bin/speedmatrix`, the command npm put on the PATH. */
  command: string;
  /** The installed package's folder, `PREFIX/lib/node_modules/speedmatrix`. */
  packageDir: string;
  tarball: string;
  /** What `npm install` printed (warnings included). */
  installLog: string;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Pack this checkout into `dir` and install the tarball globally under `dir/prefix`. */
export function packAndInstall(dir: string): InstalledCli {
  execFileSync(npm, ['pack', '--pack-destination', dir], { cwd: ROOT, stdio: 'pipe' });
  const tgz = readdirSync(dir).find((f) => /^speedmatrix-.*\.tgz$/.test(f));
  if (!tgz) throw new Error(`npm pack wrote no speedmatrix-*.tgz into ${dir}`);
  const tarball = join(dir, tgz);
  const prefix = join(dir, 'prefix');
  const args = ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball];
  const r = spawnSync(npm, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const installLog = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`npm install -g ${tarball} failed:\n${installLog}`);
  const installed = process.platform === 'win32' ? prefix : join(prefix, 'lib');
  return {
    command: join(prefix, process.platform === 'win32' ? 'speedmatrix.cmd' : 'bin/speedmatrix'),
    packageDir: join(installed, 'node_modules', 'speedmatrix'),
    tarball,
    installLog,
  };
}
