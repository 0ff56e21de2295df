/**
 * Knobs of `npm run bench`. BENCH_QUICK=1 shrinks every figure (about 2-3 minutes in all) for
 * iterating; the default fits about 15 minutes on a 2-core machine. BENCH_ONLY=absorb,truth runs
 * a subset. BENCH_SOAK_SECONDS=600 gives the full 10-minute worker soak.
 */
const quick = process.env.BENCH_QUICK === '1';
const num = (name: string, full: number, q: number): number => {
  const v = process.env[name];
  if (v !== undefined && v !== '' && Number.isFinite(Number(v))) return Number(v);
  return quick ? q : full;
};

export const BENCH = {
  quick,
  /** Repeats of each repeatable measurement (median and spread are over these). */
  repeats: num('BENCH_REPEATS', 3, 1),
  /** Seconds per absorb-rate run. */
  absorbSeconds: num('BENCH_ABSORB_SECONDS', 5, 2),
  /** Measurement window of the timing-truth cells, seconds. */
  truthWindowSeconds: num('BENCH_TRUTH_SECONDS', 5, 3),
  /** Measurement window of each cell of the 3 x 3 orchestration matrix, seconds. */
  matrixWindowSeconds: num('BENCH_MATRIX_WINDOW_SECONDS', 30, 3),
  /** Worker soak length, seconds (the full soak is 600). */
  soakSeconds: num('BENCH_SOAK_SECONDS', 180, 20),
  /** Seconds per simulator-throughput run. */
  simSeconds: num('BENCH_SIM_SECONDS', 5, 2),
  /** Prompt sizes for the prompt-preparation figure. */
  promptContexts: quick ? [8192, 32768, 131072] : [8192, 16384, 32768, 65536, 131072, 262144],
  /** Comma-separated figure ids to run (default all). */
  only: (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
};
