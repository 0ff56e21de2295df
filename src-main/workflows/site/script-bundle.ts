/**
 * The results site's script (site-script.ts and what it imports: the comparison model and
 * renderer) for the browser. The build bundles it once into site.js beside the compiled
 * programs (electron.vite.config.ts, scripts/build-site-script.ts), so the installed CLI and the packaged app read that
 * file; run from the TypeScript sources, it is bundled here, once per process, with esbuild
 * (a development dependency). See docs/site.md.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { projectRoot } from '../../platform/runtime/node-entry';

const SITE_SCRIPT_SOURCE = 'src-main/workflows/site/browser-script.ts';
/** The prebuilt script's name beside out/main/*.js and out/cli/*.js. */
export const SITE_SCRIPT_FILE = 'site.js';

const runningFromSource = __filename.endsWith('.ts');

/** The script bundled from the sources under `root`, with esbuild from that project's node_modules. */
export async function bundleSiteScript(root: string): Promise<string> {
  // Required at run time, never bundled: esbuild's API finds its binary beside itself.
  const { build } = createRequire(join(root, 'package.json'))('esbuild') as typeof import('esbuild');
  const out = await build({
    entryPoints: [join(root, SITE_SCRIPT_SOURCE)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  return out.outputFiles[0].text;
}

/** The built site.js: beside this module, or one folder up when it sits in a chunks/ folder. */
function prebuilt(): string | null {
  const candidates = [join(__dirname, SITE_SCRIPT_FILE), join(__dirname, '..', SITE_SCRIPT_FILE)];
  return candidates.find((c) => existsSync(c)) ?? null;
}

let bundled: Promise<string> | null = null;

export function siteScript(): Promise<string> {
  const file = runningFromSource ? null : prebuilt();
  if (file) return readFile(file, 'utf8');
  bundled ??= bundleSiteScript(projectRoot()).catch((e: unknown) => {
    bundled = null;
    throw new Error(`Could not build the site's script from ${SITE_SCRIPT_SOURCE}: ${(e as Error).message}`);
  });
  return bundled;
}
