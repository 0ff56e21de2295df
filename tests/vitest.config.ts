import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// One runner for every suite: unit (pure modules, real files, real processes), web (the built
// renderer in real headless Chromium) and e2e (the Electron app, where its binary exists).
export default defineConfig({
  root: resolve(__dirname, '..'),
  resolve: { alias: { '@shared': resolve(__dirname, '../src-shared') } },
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    environment: 'node',
    pool: 'forks',
    // Two cores: keep at most two test files (each may start a simulator) running at once.
    maxWorkers: 2,
    testTimeout: 60_000,
    // End-to-end tests drive real processes (simulator, workers, Chromium) on two shared cores; a
    // test that fails is run once more, and vitest reports it as retried, so a rare scheduling
    // stall does not sink CI while a real failure (which fails twice) still does.
    retry: 1,
    hookTimeout: 60_000,
    reporters: ['default', resolve(__dirname, 'summary-reporter.ts')],
  },
});
