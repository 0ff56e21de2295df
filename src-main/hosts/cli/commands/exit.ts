/**
 * The CLI's exit codes: 0 done, 1 could not do it, 2 usage error, 3 the regression gate found a
 * slower cell (`compare --max-regression`), 130 cancelled (Ctrl-C).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, regression: 3, cancelled: 130 } as const;
