/**
 * A session's figures as data to plot elsewhere: one CSV row per decode cell, one JSON Lines
 * record per request. Numbers stay in base units (seconds, tokens, tokens per second) and
 * unformatted; an empty CSV field or a JSON null is a figure the session does not have. The
 * columns in words: docs/session-format.md, "Exports".
 */
import type { DecodeCell, Session } from '#shared/session/schema';
import { LATENCY_KINDS, type LatencyKind, latencyCount, latencyValue } from '#shared/report/latency';
import { requestRecords, requestsRepetition, requestsView } from '#shared/report/requests';
import { medianOnly } from '#shared/report/slo';
import type { CountedStats, LoadRun } from '#shared/session/schema-load';

export type DataFormat = 'csv' | 'jsonl';

type Field = number | string | null | undefined;

const PERCENTILES = ['p50', 'p90', 'p95', 'p99', 'mean'] as const;

const latencyColumns = (kind: LatencyKind): string[] => [...PERCENTILES.map((p) => `${kind}_${p}_s`), `${kind}_count`];

export const CELL_CSV_COLUMNS: readonly string[] = [
  'context',
  'concurrency',
  'status',
  'total_tokens_per_s',
  'per_request_tokens_per_s',
  ...LATENCY_KINDS.flatMap(latencyColumns),
  'avg_active_requests',
  'completed_requests',
  'failed_requests',
  'output_tokens',
  'window_s',
  'repetitions',
  'started_at',
];

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(v: Field): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? String(v) : v;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** An imported report's percentiles are its medians repeated: only p50 is written. */
function latencyFields(cell: DecodeCell, kind: LatencyKind, medians: boolean): Field[] {
  return [
    ...PERCENTILES.map((p) => (medians && p !== 'p50' ? null : latencyValue(cell, kind, p))),
    latencyCount(cell, kind),
  ];
}

function cellFields(cell: DecodeCell, medians: boolean): Field[] {
  return [
    cell.context,
    cell.concurrency,
    cell.status,
    cell.totalTokensPerSecond,
    cell.perRequestTokensPerSecond,
    ...LATENCY_KINDS.flatMap((k) => latencyFields(cell, k, medians)),
    cell.avgActiveRequests,
    cell.completedRequests,
    cell.failedRequests,
    cell.outputTokens,
    cell.windowSeconds,
    cell.repetitions?.length ?? 1,
    cell.startedAt,
  ];
}

const byMatrixOrder = (a: DecodeCell, b: DecodeCell): number => a.context - b.context || a.concurrency - b.concurrency;

/** One line per decode cell, in matrix order, with a header line. */
export function renderCellsCsv(session: Session): string {
  const medians = medianOnly(session);
  const lines = [CELL_CSV_COLUMNS, ...[...session.cells].sort(byMatrixOrder).map((c) => cellFields(c, medians))];
  return `${lines.map((l) => l.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/** One JSON object per request of every decode cell, in matrix order, then repetition and send order. */
export function renderRequestsJsonl(session: Session): string {
  const lines: string[] = [];
  for (const cell of [...session.cells].sort(byMatrixOrder)) {
    for (const set of requestsView(cell).sets) {
      const repetition = set.repetition ?? requestsRepetition(cell);
      for (const r of requestRecords(set.requests)) {
        lines.push(
          JSON.stringify({
            context: cell.context,
            concurrency: cell.concurrency,
            repetition,
            request: r.index,
            sent_at_s: r.sentAt,
            first_token_at_s: r.firstTokenAt,
            last_token_at_s: r.lastTokenAt,
            ttft_s: r.ttft,
            tokens_per_s: r.tokensPerSecond,
            output_tokens: r.outputTokens,
            window_tokens: r.windowTokens,
            prompt_tokens: r.promptTokens,
            outcome: r.outcome,
            longest_gap_s: r.longestGap,
            longest_gap_ended_at_s: r.longestGapEndedAt,
          }),
        );
      }
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

const STATS = ['p50', 'p90', 'p99', 'mean'] as const;
const LOAD_LATENCIES = ['ttft', 'tbt', 'e2e'] as const;

/** A load session's CSV (docs/load.md): one row per pass, in the order run. */
export const LOAD_CSV_COLUMNS: readonly string[] = [
  'pass',
  'target_rate_per_s',
  'offered_rate_per_s',
  'achieved_rate_per_s',
  'output_tokens_per_s',
  'total_tokens_per_s',
  ...LOAD_LATENCIES.flatMap((k) => [...STATS.map((p) => `${k}_${p}_s`), `${k}_count`]),
  'requests',
  'completed',
  'errors',
  'unfinished',
  'held_back',
  'kept_up',
  'goodput_per_s',
  'window_s',
  'started_at',
];

const statFields = (s: CountedStats | null): Field[] => [...STATS.map((p) => s?.[p]), s?.count];

export function renderLoadCsv(load: LoadRun): string {
  const rows = load.results.map((r): Field[] => [
    r.pass,
    r.targetRate,
    r.offeredRate,
    r.achievedRate,
    r.outputTokensPerSecond,
    r.totalTokensPerSecond,
    ...statFields(r.ttft),
    ...statFields(r.timeBetweenTokens),
    ...statFields(r.e2e),
    r.requests,
    r.completed,
    r.errors,
    r.unfinished,
    r.heldBack,
    r.keptUp ? 'yes' : 'no',
    r.goodput,
    r.windowSeconds,
    r.startedAt,
  ]);
  return `${[LOAD_CSV_COLUMNS, ...rows].map((l) => l.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/** The export in `format`: a load session's CSV has one row per pass instead of one per cell. */
export function renderDataExport(session: Session, format: DataFormat): string {
  if (format === 'csv') return session.load ? renderLoadCsv(session.load) : renderCellsCsv(session);
  return renderRequestsJsonl(session);
}

/**
 * Why the session cannot give this export, in words a person can act on; null when it can.
 * `csvHint` says how this host exports the cells instead ("-o cells.csv", a button's name).
 */
export function dataExportRefusal(session: Session, format: DataFormat, csvHint: string): string | null {
  if (session.load)
    return format === 'jsonl'
      ? `a load session keeps no per-request timings. Its passes can be exported as CSV: ${csvHint}.`
      : null;
  if (session.cells.length === 0) return 'this session has no decode cells to export.';
  if (format === 'jsonl' && !session.cells.some((c) => (c.requests?.sentAt.length ?? 0) > 0)) {
    const why =
      session.origin.kind === 'measured'
        ? 'it kept no per-request timings'
        : "the source tool's file has no per-request timings";
    return `no request to export: ${why}. The per-cell figures can still be exported as CSV: ${csvHint}.`;
  }
  return null;
}
