/** The CLI's exit codes: 0 done, 1 could not do it, 2 usage error, 130 cancelled (Ctrl-C). */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;
