/**
 * The regression gate for load sessions (`speedmatrix compare --max-regression`, docs/load.md,
 * "Comparing"): each later session's passes against the first's at the same offered rate (or the
 * sweep's synchronous or throughput pass), figure by figure. One pass has no repetitions to
 * measure its noise, so a figure regresses when it is worse by more than the limit and by more
 * than BAND_FLOOR, the tie band of one decode window.
 */
import type { LoadRateResult, LoadRun } from '../session/schema-load';
import { BAND_FLOOR } from './cell-difference';
import { fmtMs, fmtRate, fmtTokPerSec } from './format';
import { passKey } from './load-compare';
import { passLabel } from './load-model';

interface GatedFigure {
  name: string;
  of: (r: LoadRateResult) => number | null | undefined;
  /** Throughputs regress when lower, latencies when higher. */
  higherIsBetter: boolean;
  fmt: (v: number) => string;
}

const FIGURES: readonly GatedFigure[] = [
  { name: 'achieved req/s', of: (r) => r.achievedRate, higherIsBetter: true, fmt: (v) => fmtRate(v) },
  { name: 'output tok/s', of: (r) => r.outputTokensPerSecond, higherIsBetter: true, fmt: fmtTokPerSec },
  { name: 'TTFT p99', of: (r) => r.ttft?.p99, higherIsBetter: false, fmt: fmtMs },
  { name: 'time between tokens p99', of: (r) => r.timeBetweenTokens?.p99, higherIsBetter: false, fmt: fmtMs },
  { name: 'end-to-end p99', of: (r) => r.e2e?.p99, higherIsBetter: false, fmt: fmtMs },
];

export interface LoadRegression {
  /** "B / A". */
  label: string;
  /** The pass as the tables name it: "8.0 req/s", "synchronous". */
  pass: string;
  figure: string;
  /** Speed of B over A: B / A for a throughput, A / B for a latency; below 1 is slower. */
  ratio: number;
  /** The two figures as shown. */
  a: string;
  b: string;
}

/** Why these load sessions cannot be gated, in words; null when every later one shares an offered rate with the first. */
export function loadGateRefusal(loads: readonly LoadRun[], labels: readonly string[]): string | null {
  const first = new Set(loads[0].results.map(passKey));
  const offered = (l: LoadRun) => l.results.map(passLabel).join(', ') || 'nothing';
  const apart = loads.slice(1).flatMap((l, i) => (l.results.some((r) => first.has(passKey(r))) ? [] : [i + 1]));
  if (!apart.length) return null;
  const each = apart.map((i) => `${labels[i]} offered ${offered(loads[i])}`).join('; ');
  return `the regression gate compares passes at the same offered rate, and ${each} against ${labels[0]}'s ${offered(loads[0])}. Run them at the same --rates (or both as a --sweep).`;
}

/** The figures of one pass of B slower than A's at the same pass by more than the limit and the band. */
function passRegressions(a: LoadRateResult, b: LoadRateResult, label: string, limit: number): LoadRegression[] {
  return FIGURES.flatMap((f) => {
    const [x, y] = [f.of(a), f.of(b)];
    if (x == null || y == null || x <= 0) return [];
    const ratio = f.higherIsBetter ? y / x : y > 0 ? x / y : Number.POSITIVE_INFINITY;
    if (!(ratio < 1 - Math.max(limit, BAND_FLOOR))) return [];
    return [{ label, pass: passLabel(a), figure: f.name, ratio, a: f.fmt(x), b: f.fmt(y) }];
  });
}

/** Every figure of a later load session slower than the first's at the same pass by more than `limit` (a fraction) and the band. */
export function loadRegressions(loads: readonly LoadRun[], labels: readonly string[], limit: number): LoadRegression[] {
  return loads.slice(1).flatMap((l, i) =>
    loads[0].results.flatMap((a) => {
      const b = l.results.find((r) => passKey(r) === passKey(a));
      return b ? passRegressions(a, b, `${labels[i + 1]} / ${labels[0]}`, limit) : [];
    }),
  );
}

/** "B / A at 8.0 req/s: output tok/s 0.54× (46% slower: 275.8 vs 513.1)". */
export function fmtLoadRegression(g: LoadRegression): string {
  return `${g.label} at ${g.pass}: ${g.figure} ${g.ratio.toFixed(2)}× (${Math.round((1 - g.ratio) * 100)}% slower: ${g.b} vs ${g.a})`;
}
