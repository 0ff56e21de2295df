import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { CSP, devCsp } from './src-main/hosts/electron/csp';
import { PROGRAM_SOURCES } from './src-main/platform/runtime/node-entry';
import { SITE_SCRIPT_FILE, bundleSiteScript } from './src-main/workflows/site/script-bundle';

/**
 * `npm run dev` only: the page's CSP meta tag becomes the dev variant (src-main/hosts/electron/csp.ts), or the
 * React plugin's inline fast-refresh preamble is blocked and the window stays blank. The build
 * keeps the production policy untouched.
 */
function devServerCsp(): Plugin {
  return {
    name: 'speedmatrix-dev-csp',
    apply: 'serve',
    transformIndexHtml(html, ctx) {
      const origin =
        ctx.server?.resolvedUrls?.local[0] ?? `http://localhost:${ctx.server?.config.server.port ?? 5173}/`;
      if (!html.includes(`content="${CSP}"`))
        throw new Error('src-renderer/index.html: the CSP meta tag differs from src-main/hosts/electron/csp.ts.');
      return html.replace(`content="${CSP}"`, `content="${devCsp(origin)}"`);
    },
  };
}

/**
 * Every build of main (`npm run build`, and the one `npm start` makes) writes the results site's
 * browser script beside it (src-main/workflows/site/script-bundle.ts): the packaged app has
 * neither the TypeScript sources nor esbuild to bundle it at run time.
 */
function siteScript(outDir: string): Plugin {
  return {
    name: 'speedmatrix-site-script',
    apply: 'build',
    async closeBundle() {
      mkdirSync(outDir, { recursive: true });
      writeFileSync(join(outDir, SITE_SCRIPT_FILE), await bundleSiteScript(__dirname));
    },
  };
}

// Three bundles: the main process (plus the separate Node processes it spawns:
// the benchmark worker and the simulated vLLM server), the sandboxed preload
// (CommonJS, as sandboxed preloads must be), and the React renderer.
export default defineConfig({
  main: {
    plugins: [siteScript(resolve(__dirname, 'out/main'))],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/hosts/electron/index.ts'),
          // The Node programs (CLI, benchmark worker, simulator), listed once in node-entry.ts.
          ...Object.fromEntries(Object.entries(PROGRAM_SOURCES).map(([name, src]) => [name, resolve(__dirname, src)])),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    // The renderer reaches code it shares with main only through this alias (docs/architecture.md).
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: { index: resolve(__dirname, 'src-renderer/index.html') } },
    },
    plugins: [devServerCsp(), react()],
  },
});
