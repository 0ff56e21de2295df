/**
 * The default matrix's requests at once (docs/method.md), here so the CLI's help, the app's Run
 * form and the plan say the same levels: the plan (defaultConcurrency in plan.ts) decides which
 * of the large levels a server gets, as only its KV budget and running cap tell.
 */
export const DEFAULT_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64, 128];
/** Levels the default matrix adds past 128 on a server with room for them. */
export const LARGE_CONCURRENCY = [256, 512];

/** The default levels in words: "1–128 in powers of two, and 256 and 512 where the KV cache holds them". */
export const DEFAULT_CONCURRENCY_WORDS = `${DEFAULT_CONCURRENCY[0]}–${DEFAULT_CONCURRENCY.at(-1)} in powers of two, and ${LARGE_CONCURRENCY.join(' and ')} where the KV cache holds them`;
