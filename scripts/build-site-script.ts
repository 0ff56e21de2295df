/**
 * Bundles the results site's browser script once, at build time, into each folder named on the
 * command line (out/main for the app, out/cli for the CLI package): installed copies then need
 * neither the TypeScript sources nor esbuild (src-main/workflows/site/script-bundle.ts, docs/site.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SITE_SCRIPT_FILE, bundleSiteScript } from '../src-main/workflows/site/script-bundle';

const ROOT = resolve(import.meta.dirname, '..');

void bundleSiteScript(ROOT).then((text) => {
  for (const dir of process.argv.slice(2)) {
    mkdirSync(join(ROOT, dir), { recursive: true });
    writeFileSync(join(ROOT, dir, SITE_SCRIPT_FILE), text);
  }
});
