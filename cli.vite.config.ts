import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { PROGRAM_SOURCES } from './src-main/platform/runtime/node-entry';

/**
 * The installable CLI package (`npm pack`, README "On a GPU server"): the CLI and the Node
 * programs it spawns, compiled to plain CommonJS for Node 20 in out/cli/. Dependencies stay
 * external (npm installs them from package.json); nothing of Electron, tsx or TypeScript is in it.
 */
export default defineConfig({
  build: {
    ssr: true,
    target: 'node20',
    outDir: 'out/cli',
    emptyOutDir: true,
    minify: false,
    sourcemap: false,
    rollupOptions: {
      input: Object.fromEntries(Object.entries(PROGRAM_SOURCES).map(([name, src]) => [name, resolve(__dirname, src)])),
      output: { format: 'cjs', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
});
