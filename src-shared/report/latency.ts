/**
 * A decode cell's latency figures: time to first token, time between tokens and end-to-end
 * request latency, each at a percentile, with the number of requests behind it. One definition
 * each (its name, how to read it from a cell, how to print it), used by the measurements' latency
 * table, the heatmap's metric switch and the service-level targets (docs/method.md, "Latency
 * percentiles").
 */
import type { DecodeCell, LatencyStats } from '../session/schema';
import { NONE, fmtCount, fmtMs, fmtMsPrecise, fmtOneDecimal } from './format';

export const LATENCY_KINDS = ['ttft', 'tbt', 'e2e'] as const;
export type LatencyKind = (typeof LATENCY_KINDS)[number];

/** The percentiles the reports print; targets may also name p95 and the mean. */
export const REPORTED_PERCENTILES = ['p50', 'p90', 'p99'] as const;
export type LatencyStat = 'p50' | 'p90' | 'p95' | 'p99' | 'mean';

/**
 * Below this many requests a percentile is little more than the few values themselves: the
 * figure is flagged with its count. A cell at a long context often finishes a handful of requests.
 */
export const FEW_SAMPLES = 10;

interface LatencyDef {
  label: string;
  /** What one sample is, for legends: "one per request that got its first token". */
  sample: string;
  stats: (cell: DecodeCell) => LatencyStats | null;
  format: (seconds: number | null | undefined) => string;
}

export const LATENCY_DEFS: Record<LatencyKind, LatencyDef> = {
  ttft: {
    label: 'TTFT',
    sample: 'one per request that got its first token',
    stats: (c) => c.ttft,
    format: fmtMs,
  },
  tbt: {
    label: 'Time between tokens',
    sample: 'one per request with two tokens or more (its own mean gap)',
    stats: (c) => c.timeBetweenTokens,
    format: fmtMsPrecise,
  },
  e2e: {
    label: 'End-to-end latency',
    sample: 'one per request that finished, from sending it to its last token',
    stats: (c) => c.e2eLatency ?? null,
    format: fmtMs,
  },
};

export const STAT_WORDS: Record<LatencyStat, string> = {
  p50: 'median',
  p90: 'p90',
  p95: 'p95',
  p99: 'p99',
  mean: 'mean',
};

/** The figure, or null when the cell has none (or its file predates that percentile). */
export function latencyValue(cell: DecodeCell, kind: LatencyKind, stat: LatencyStat): number | null {
  const v = LATENCY_DEFS[kind].stats(cell)?.[stat];
  return v === undefined || !Number.isFinite(v) ? null : v;
}

/** How many requests a figure stands on, or null when the session did not record it. */
export function latencyCount(cell: DecodeCell, kind: LatencyKind): number | null {
  return LATENCY_DEFS[kind].stats(cell)?.count ?? null;
}

/** True when the figure stands on fewer than FEW_SAMPLES requests. */
export function fewSamples(cell: DecodeCell, kind: LatencyKind): boolean {
  const n = latencyCount(cell, kind);
  return n !== null && n < FEW_SAMPLES;
}

/** "1,956 ms" with "(from 3)" when few requests stand behind it. */
export function fmtLatency(cell: DecodeCell, kind: LatencyKind, stat: LatencyStat): string {
  const text = LATENCY_DEFS[kind].format(latencyValue(cell, kind, stat));
  return text !== NONE && fewSamples(cell, kind) ? `${text} (from ${fmtCount(latencyCount(cell, kind))})` : text;
}

/** The legend line that says what the latency figures stand on. */
export const FEW_SAMPLES_LEGEND = `(from N): the latency stands on fewer than ${FEW_SAMPLES} requests, N of them; read it as those few values, not as a distribution.`;

const TABLE_KIND_WORDS: Record<LatencyKind, string> = { ttft: 'TTFT', tbt: 'Between tokens', e2e: 'End to end' };

/** The latency table's header: context, requests at once, then each latency's percentiles and its count. */
export const LATENCY_COLUMNS: readonly string[] = [
  'Context',
  'Requests at once',
  ...LATENCY_KINDS.flatMap((k) => [
    ...REPORTED_PERCENTILES.map((p) => `${TABLE_KIND_WORDS[k]} ${p}`),
    `${TABLE_KIND_WORDS[k]} n`,
  ]),
];

/**
 * One latency row of a cell: each latency's p50, p90 and p99 and the count behind them. A session
 * that holds medians only (an imported report) prints the median and leaves the rest empty, rather
 * than repeating the median as if it were a p99.
 */
export function latencyRowCells(cell: DecodeCell, medians: boolean): string[] {
  return LATENCY_KINDS.flatMap((kind) => [
    ...REPORTED_PERCENTILES.map((p) =>
      medians && p !== 'p50' ? NONE : LATENCY_DEFS[kind].format(latencyValue(cell, kind, p)),
    ),
    fewSamples(cell, kind) ? `${fmtCount(latencyCount(cell, kind))} (few)` : fmtCount(latencyCount(cell, kind)),
  ]);
}

/** A thinking model's columns, which the latency table adds when any cell's answers had reasoning. */
export const REASONING_COLUMNS: readonly string[] = [
  ...REPORTED_PERCENTILES.map((p) => `First answer ${p}`),
  'Reasoning tok/req',
];

/** What the reasoning columns stand on, in words. */
export const REASONING_CAPTION =
  'First answer: from sending a request to its first answer token, after its reasoning (one per request that reached its answer); Reasoning tok/req: reasoning tokens per request.';

/** True when a cell's answers had reasoning (a thinking model). */
export const hasReasoning = (cell: DecodeCell): boolean => cell.reasoningTokensPerRequest !== undefined;

/** A cell's reasoning columns, in REASONING_COLUMNS order. */
export function reasoningRowCells(cell: DecodeCell): string[] {
  const t = cell.timeToFirstAnswer ?? null;
  return [
    ...REPORTED_PERCENTILES.map((p) => fmtMs(t?.[p])),
    hasReasoning(cell) ? fmtOneDecimal(cell.reasoningTokensPerRequest) : NONE,
  ];
}

/** What the latency table stands on, in words (the legend of its figures). */
export function latencyCaption(medians: boolean): string {
  const per = LATENCY_KINDS.map((k) => `${LATENCY_DEFS[k].label}: ${LATENCY_DEFS[k].sample}`).join('; ');
  const base = medians
    ? 'The source tool reported medians only, so only p50 is shown.'
    : `Percentiles over each cell's requests; n is how many requests a figure stands on, and "few" marks fewer than ${FEW_SAMPLES}.`;
  return `${base} ${per}.`;
}
