/**
 * Whether the Electron binary is installed. Checked by file, never by requiring 'electron'
 * (whose index.js would try to download the binary).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths';

const pkg = join(ROOT, 'node_modules/electron');

export function electronBinaryPath(): string | null {
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile) && !override) return null;
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : 'electron';
  const exe = join(override ?? join(pkg, 'dist'), rel);
  return existsSync(exe) ? exe : null;
}

export const hasElectronBinary = electronBinaryPath() !== null;
export const NOT_RUN = 'not run: no Electron binary (node_modules/electron/dist is missing)';
