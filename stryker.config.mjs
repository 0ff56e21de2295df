// Mutation testing of the pure modules that decide figures and statuses (README, "Mutation
// testing"). `npm run mutate` (scripts/mutate.ts) runs Stryker one module at a time against its
// results in tests/mutation/ and fails when a module is below the floor (thresholds.break).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'tests/vitest.mutate.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src-main/engine/bench/plan.ts',
    'src-main/engine/bench/figures.ts',
    'src-main/engine/bench/status.ts',
    'src-main/engine/bench/readiness.ts',
    'src-main/engine/bench/loop-detector.ts',
    'src-shared/report/confidence.ts',
    'src-shared/report/slo.ts',
    'src-shared/report/compare-model.ts',
    'src-shared/report/cell-difference.ts',
    'src-main/workflows/remote/page-ssh-options.ts',
    'src-shared/report/compare-verdict.ts',
    'src-shared/report/load-gate.ts',
    'src-shared/session/status-words.ts',
    'src-main/engine/bench/precision.ts',
    'src-main/engine/bench/load-figures.ts',
    'src-main/engine/bench/load-arrivals.ts',
    'src-main/engine/bench/load-trace.ts',
    'src-main/engine/bench/repetitions.ts',
    'src-main/engine/bench/stats.ts',
    'src-main/engine/sim/kv-budget.ts',
    'src-main/hosts/cli/commands/compare-flags.ts',
    'src-main/engine/bench/client-threads.ts',
  ],
  // The recorded results (scripts/mutate.ts) are not part of what the tests read.
  ignorePatterns: ['tests/mutation', 'bench-results', 'dist-app'],
  coverageAnalysis: 'perTest',
  // The machine is shared: one test process at a time.
  concurrency: 1,
  thresholds: { high: 90, low: 85, break: 85 },
  reporters: ['clear-text', 'progress'],
  clearTextReporter: { allowColor: false, reportMutants: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
