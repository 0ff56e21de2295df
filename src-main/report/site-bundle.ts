/**
 * The results site's script (site-script.ts and what it imports: the comparison model and
 * renderer) bundled for the browser, once per process. esbuild comes with tsx, a runtime
 * dependency, and is loaded from the project's node_modules; it bundles from the TypeScript
 * sources, which the source and the built CLI (and app) both find under the project root.
 * See docs/site.md.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { projectRoot } from '../runtime/node-entry';

const SITE_SCRIPT_SOURCE = 'src-main/report/site-script.ts';

let bundled: Promise<string> | null = null;

async function bundle(): Promise<string> {
  const root = projectRoot();
  // Required from the project root at run time, never bundled: esbuild's API finds its binary
  // beside itself (the built main process would otherwise carry a copy that cannot).
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

export function siteScript(): Promise<string> {
  bundled ??= bundle().catch((e: unknown) => {
    bundled = null;
    throw new Error(`Could not build the site's script from ${SITE_SCRIPT_SOURCE}: ${(e as Error).message}`);
  });
  return bundled;
}
