/**
 * The figures a decode heatmap can show: one definition each (how to read it from a cell, its
 * unit, which way is better, how to print it), used by the app's metric switch, the CLI and the
 * reports alike. See docs/repeats-and-targets.md.
 */
import type { DecodeCell, Session } from '../session/schema';
import { NONE, fmtJoulesPerToken, fmtTokPerSec, grouped } from './format';
import { medianOnly } from './slo';
import { DEFAULT_CURRENCY } from './price';
import { LATENCY_DEFS, type LatencyKind, type LatencyStat, STAT_WORDS, latencyValue } from './latency';

export const CELL_METRICS = [
  'total',
  'per-request',
  'ttft',
  'ttft-p90',
  'ttft-p99',
  'tbt',
  'tbt-p90',
  'tbt-p99',
  'e2e',
  'e2e-p90',
  'e2e-p99',
  'joules-per-token',
  'tokens-per-watt',
  'cost-per-million',
] as const;
export type CellMetric = (typeof CELL_METRICS)[number];

export interface MetricContext {
  /** Price of one GPU for one hour, in `currency`; needed for cost only. */
  gpuPricePerHour: number | null;
  /** The price's ISO 4217 code (report/price.ts); US dollars when not named. */
  currency?: string;
  /** GPUs the server uses (the cost counts every one). */
  gpuCount: number;
}

interface CellMetricDef {
  label: string;
  /** Unit shown in titles and legends. */
  unit: string;
  better: 'higher' | 'lower';
  value: (cell: DecodeCell, ctx: MetricContext) => number | null;
  format: (v: number | null) => string;
  /** The latency a latency percentile reads, so its sample count can be said beside it. */
  latency?: { kind: LatencyKind; stat: LatencyStat };
}

const finite = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v;
const positive = (v: number | null | undefined): number | null =>
  finite(v) !== null && (v as number) > 0 ? (v as number) : null;

/** Cost of a million output tokens: the server's price per second over its output rate. */
export function costPerMillionTokens(tokensPerSecond: number | null, ctx: MetricContext): number | null {
  const rate = positive(tokensPerSecond);
  const price = positive(ctx.gpuPricePerHour);
  if (rate === null || price === null) return null;
  return ((price * Math.max(1, ctx.gpuCount)) / 3600 / rate) * 1e6;
}

/** A latency percentile as a heatmap figure: "TTFT (p90)", in ms, lower is better. */
function latencyMetric(kind: LatencyKind, stat: LatencyStat): CellMetricDef {
  return {
    label: `${LATENCY_DEFS[kind].label} (${STAT_WORDS[stat]})`,
    unit: 'ms',
    better: 'lower',
    value: (c) => latencyValue(c, kind, stat),
    format: LATENCY_DEFS[kind].format,
    latency: { kind, stat },
  };
}

export const CELL_METRIC_DEFS: Record<CellMetric, CellMetricDef> = {
  total: {
    label: 'Total tok/s',
    unit: 'tok/s',
    better: 'higher',
    value: (c) => finite(c.totalTokensPerSecond),
    format: fmtTokPerSec,
  },
  'per-request': {
    label: 'Per request tok/s',
    unit: 'tok/s',
    better: 'higher',
    value: (c) => finite(c.perRequestTokensPerSecond),
    format: fmtTokPerSec,
  },
  ttft: latencyMetric('ttft', 'p50'),
  'ttft-p90': latencyMetric('ttft', 'p90'),
  'ttft-p99': latencyMetric('ttft', 'p99'),
  tbt: latencyMetric('tbt', 'p50'),
  'tbt-p90': latencyMetric('tbt', 'p90'),
  'tbt-p99': latencyMetric('tbt', 'p99'),
  e2e: latencyMetric('e2e', 'p50'),
  'e2e-p90': latencyMetric('e2e', 'p90'),
  'e2e-p99': latencyMetric('e2e', 'p99'),
  'joules-per-token': {
    label: 'Energy per output token',
    unit: 'J/token',
    better: 'lower',
    value: (c) => finite(c.telemetry?.energyPerTokenJoules),
    format: fmtJoulesPerToken,
  },
  'tokens-per-watt': {
    label: 'Output tok/s per watt',
    unit: 'tok/s/W',
    better: 'higher',
    value: (c) => {
      const watts = positive(c.telemetry?.avgPowerWatts);
      const rate = finite(c.totalTokensPerSecond);
      return watts === null || rate === null ? null : rate / watts;
    },
    format: (v) => (v === null ? NONE : `${grouped(v, 3)} tok/s/W`),
  },
  'cost-per-million': {
    label: 'Cost per million output tokens',
    unit: 'per 1M tokens',
    better: 'lower',
    value: (c, ctx) => costPerMillionTokens(c.totalTokensPerSecond, ctx),
    format: (v) => (v === null ? NONE : grouped(v, 2)),
  },
};

/** The context a session gives its metrics (GPU count from its hardware block). */
export function metricContextOf(
  session: Session,
  gpuPricePerHour: number | null,
  currency: string = DEFAULT_CURRENCY,
): MetricContext {
  return { gpuPricePerHour, currency, gpuCount: Math.max(1, session.hardware.gpus.length) };
}

/** A metric's name for captions and headings; a cost names its currency ("… (EUR)"). */
export function metricLabel(metric: CellMetric, ctx: MetricContext): string {
  const label = CELL_METRIC_DEFS[metric].label;
  return metric === 'cost-per-million' ? `${label} (${ctx.currency ?? DEFAULT_CURRENCY})` : label;
}

/** Why a metric has no values in this session, or null when some cell has one. */
export function metricUnavailable(session: Session, metric: CellMetric, ctx: MetricContext): string | null {
  const def = CELL_METRIC_DEFS[metric];
  // An imported report's p90 and p99 are its median repeated (slo.ts, medianOnly): not shown as such.
  if (def.latency && def.latency.stat !== 'p50' && medianOnly(session))
    return `The source tool reported medians only: choose ${LATENCY_DEFS[def.latency.kind].label} (median).`;
  if (session.cells.some((c) => def.value(c, ctx) !== null)) return null;
  if (metric === 'cost-per-million' && positive(ctx.gpuPricePerHour) === null)
    return 'Give a GPU price per hour to see cost.';
  if (metric === 'joules-per-token' || metric === 'tokens-per-watt') {
    return 'This session has no GPU power telemetry (simulated, remote or imported runs have none).';
  }
  return 'No cell of this session has this figure.';
}
