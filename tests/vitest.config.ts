import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// One runner for every suite: unit (pure modules on real files), integration (real processes:
// simulator, workers, CLI, servers), web (the built renderer in real headless Chromium) and e2e
// (the Electron app, where its binary exists).
// Shared set-ups (the simulator, the bridge + Chromium, the Electron stand-in) are vitest fixtures in
// tests/helpers/fixtures.ts (docs/architecture.md, "Test set-up").

export default defineConfig({
  root: resolve(__dirname, '..'),
  test: {
    environment: 'node',
    pool: 'forks',
    // Two cores: keep at most two test files (each may start a simulator) running at once.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', resolve(__dirname, 'summary-reporter.ts')],
    // Projects follow folders (docs/architecture.md, "Test set-up"): tests/unit holds only pure
    // suites (real files, no process, server or browser), which never retry: a failure there is a
    // bug, never a scheduling stall.
    projects: [
      { extends: true, test: { name: 'pure', include: ['tests/unit/**/*.test.ts'], retry: 0 } },
      {
        extends: true,
        test: {
          name: 'processes',
          // The simulator, benchmark workers, CLI and server child processes.
          include: ['tests/integration/**/*.test.ts'],
          // No retries: a test that fails the first time is a failure to fix, not to hide. A test
          // whose assertion rests on the machine's timing says so beside its own `{ retry: 1 }`, and
          // the summary line counts its passes on retry (tests/summary-reporter.ts).
          retry: 0,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['tests/web/**/*.test.ts'],
          // Headless Chromium against the built renderer and a simulator: no retries either.
          retry: 0,
        },
      },
      {
        extends: true,
        test: {
          name: 'electron',
          include: ['tests/e2e/**/*.test.ts'],
          // The Electron app and its simulator, where the binary exists: no retries either.
          retry: 0,
        },
      },
    ],
  },
});
