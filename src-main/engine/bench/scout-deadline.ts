/**
 * How long a prefill scout may take before the client gives up. A slow card needs minutes for a long prompt (a
 * 256K prefill on a 12 GB consumer card takes about seven), so a fixed deadline either gives up on it or waits far
 * too long for a dead server on a fast one. The expected time is extrapolated from the prefills this run already
 * measured at smaller contexts; the deadline is twice that, within a floor and a cap the user can change.
 */

/** A prefill measured on this server: prompt tokens and seconds to the first token (server clock). */
export interface PrefillPoint {
  tokens: number;
  seconds: number;
}

export interface ScoutDeadlineLimits {
  floorSeconds: number;
  capSeconds: number;
}

export const DEFAULT_SCOUT_DEADLINE: ScoutDeadlineLimits = { floorSeconds: 120, capSeconds: 3600 };
/** The deadline is this many times the expected prefill time. */
const DEADLINE_FACTOR = 2;
/** Prefill speed assumed before anything was measured (a fast data-centre card): for the plan's first estimate. */
export const GUESS_PREFILL_TOKENS_PER_SECOND = 20_000;

/** The lower fit point is at most this share of the upper one: two prompts of nearly one size give no slope. */
const FIT_SPREAD = 0.75;

/**
 * Expected seconds to prefill `tokens`, from earlier prefills of fewer tokens. Prefill time grows as a n + b n^2
 * (linear layers, then attention over the whole prompt): fitted through the largest point below `tokens` and the
 * largest one well below that (a run's warm-up and a cell's scout are often prompts of almost the same size, whose
 * small timing noise would swing the slope); with one point, b alone (an upper bound); with none, the guessed
 * speed. Null when no point is usable and `guess` is false.
 */
export function expectedPrefillSeconds(tokens: number, points: readonly PrefillPoint[], guess = true): number | null {
  const below = points
    .filter((p) => p.tokens > 0 && p.seconds > 0 && p.tokens < tokens)
    .sort((x, y) => x.tokens - y.tokens);
  if (below.length === 0) return guess ? tokens / GUESS_PREFILL_TOKENS_PER_SECOND : null;
  const hi = below[below.length - 1];
  const lo = below.filter((p) => p.tokens <= FIT_SPREAD * hi.tokens).pop();
  if (!lo) return hi.seconds * (tokens / hi.tokens) ** 2;
  // Seconds per token is linear in n: s(n) = a + b n, through both points.
  const sLo = lo.seconds / lo.tokens;
  const sHi = hi.seconds / hi.tokens;
  const b = Math.max(0, (sHi - sLo) / (hi.tokens - lo.tokens));
  const a = Math.max(0, sHi - b * hi.tokens);
  return tokens * (a + b * tokens);
}

/** The scout's expected time and deadline (seconds, server clock). */
export function scoutDeadline(
  tokens: number,
  points: readonly PrefillPoint[],
  limits: ScoutDeadlineLimits = DEFAULT_SCOUT_DEADLINE,
): { expectedSeconds: number | null; deadlineSeconds: number } {
  const expected = expectedPrefillSeconds(tokens, points, false);
  const cap = Math.max(limits.floorSeconds, limits.capSeconds);
  const deadline = expected === null ? cap : Math.min(cap, Math.max(limits.floorSeconds, DEADLINE_FACTOR * expected));
  return { expectedSeconds: expected, deadlineSeconds: deadline };
}
