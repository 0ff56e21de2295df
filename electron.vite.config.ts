import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Three bundles: the main process (plus the separate Node processes it spawns:
// the benchmark worker and the simulated vLLM server), the sandboxed preload
// (CommonJS, as sandboxed preloads must be), and the React renderer.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/index.ts'),
          'bench-worker': resolve(__dirname, 'src-main/bench/worker-main.ts'),
          sim: resolve(__dirname, 'src-main/sim/main.ts'),
          // The headless CLI, run by src-main/cli/bin.cjs when built.
          cli: resolve(__dirname, 'src-main/cli/main.ts'),
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
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: { index: resolve(__dirname, 'src-renderer/index.html') } },
    },
    plugins: [react()],
  },
});
