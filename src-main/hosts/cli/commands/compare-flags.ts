/**
 * `speedmatrix compare`'s flags that are rules (pure, mutation-tested: stryker.config.mjs): the
 * regression gate's limit.
 */

/** "5%", "5" or "0.5%" as a fraction; null when it is not a percentage from 0 up to (not including) 100. */
export function parseRegressionLimit(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!m) return null;
  const pct = Number(m[1]);
  return pct >= 0 && pct < 100 ? pct / 100 : null;
}
