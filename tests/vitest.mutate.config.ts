import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// The suites Stryker runs against each mutant (npm run mutate, stryker.config.mjs): only pure
// suites, so a mutant's verdict never depends on a process, a server or a browser.
export default defineConfig({
  root: resolve(__dirname, '..'),
  resolve: { alias: { '@shared': resolve(__dirname, '../src-shared') } },
  test: {
    environment: 'node',
    // tests/unit holds only pure suites (tests/vitest.config.ts). MUTATE_TESTS (comma-separated
    // globs) narrows them to the suites that import the mutated module, for a quick run of one
    // module on a loaded machine; fewer suites can only lower the score, never raise it.
    include: process.env.MUTATE_TESTS ? process.env.MUTATE_TESTS.split(',') : ['tests/unit/**/*.test.ts'],
    retry: 0,
    // Stryker's dry run loads every suite into one process on a shared machine: a slow start is
    // not a failed test.
    testTimeout: 20_000,
  },
});
