import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// One runner for every suite: unit (pure modules, real files, real processes), web (the built
// renderer in real headless Chromium) and e2e (the Electron app, where its binary exists).
// Shared set-ups (the simulator, the bridge + Chromium, the Electron stand-in) are vitest fixtures in
// tests/helpers/fixtures.ts (docs/architecture.md, "Test set-up").

/** Suites of pure code on real files, with no process, server or browser: a failure is never a scheduling stall. */
const PURE = [
  'tests/unit/{renderer,importers}/**/*.test.ts',
  'tests/unit/report/{markdown,html,compare,launch-line,cell-metrics,cell-difference,confidence,slo,failed-display,repeat-report}.test.ts',
  'tests/unit/server/{engine-facts,failures,launch,log-parse,vllm-versions}.test.ts',
  'tests/unit/hardware/{nvidia-smi-parse,h200-fixture,telemetry-summary}.test.ts',
  'tests/unit/bench/{loop-detector,plan,plan-engine-limits,progress,repeat,scout-deadline,sse,stats-status-metrics}.test.ts',
  'tests/unit/session/{journal,session-file,write-retry}.test.ts',
  'tests/unit/core/{run-updates,server-form}.test.ts',
  'tests/unit/sim/model.test.ts',
  'tests/unit/sweep/variants.test.ts',
];

export default defineConfig({
  root: resolve(__dirname, '..'),
  resolve: { alias: { '@shared': resolve(__dirname, '../src-shared') } },
  test: {
    environment: 'node',
    pool: 'forks',
    // Two cores: keep at most two test files (each may start a simulator) running at once.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', resolve(__dirname, 'summary-reporter.ts')],
    projects: [
      { extends: true, test: { name: 'pure', include: PURE, retry: 0 } },
      {
        extends: true,
        test: {
          name: 'processes',
          include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
          exclude: [...PURE, '**/node_modules/**'],
          // These drive real processes (simulator, workers, Chromium, Electron) on two shared
          // cores; a test that fails is run once more, and vitest reports it as retried, so a rare
          // scheduling stall does not sink CI while a real failure (which fails twice) still does.
          retry: 1,
        },
      },
    ],
  },
});
