/**
 * Everything a report shows, as display-ready strings, built once from a session. The
 * Markdown and HTML renderers and the app's Results view only lay this out, so all of them say
 * the same thing in the same order as the reference report (docs/architecture.md). Pure: no
 * Node imports.
 */
import { type LoadSection, loadSection } from './load-model';
import type { CellStatus, DecodeCell, Session } from '../session/schema';
import { STATUSES, STATUS_WORDS, hasFigure, legendLine, legendStatuses, statusSourceOf } from '../session/status-words';
import {
  NONE,
  fmtContext,
  fmtCount,
  fmtGigabytes,
  fmtJoulesPerToken,
  fmtMegahertz,
  fmtMs,
  fmtMsPrecise,
  fmtOneDecimal,
  fmtPercent,
  fmtSeconds,
  fmtTemperature,
  fmtTokPerSec,
  fmtWatts,
  withFailed,
  plural,
} from './format';
import { type DecodeMatrixModel, buildDecodeMatrix, matrixAxes, sortedPrefill } from './matrix-model';
import { cellIndex, cellKey } from '../cell-key';
import { fmtCellThroughput, fmtPrefillThroughput, PRECISION_LEGEND, REPEAT_LEGEND } from './confidence';
import { type CapacitySection, buildCapacitySection } from './capacity-section';
import { type GlanceItem, atAGlance } from './at-a-glance';
import { type CellMetric, metricContextOf, metricLabel, metricUnavailable } from './cell-metrics';
import { type TargetSet, medianOnly } from './slo';
import {
  type InfoBlock,
  engineBlock,
  hardwareBlock,
  runBlock,
  modelNameOf,
  gpuLabelOf,
  reportTitle,
  originOf,
  matrixLineOf,
  engineLineOf,
  launchOf,
  launchMissingOf,
} from './report-blocks';
import {
  FEW_SAMPLES_LEGEND,
  LATENCY_COLUMNS,
  fewSamples,
  fmtLatency,
  hasReasoning,
  latencyCaption,
  latencyRowCells,
  REASONING_CAPTION,
  REASONING_COLUMNS,
  reasoningRowCells,
} from './latency';

export interface TableModel {
  header: string[];
  rows: string[][];
}

export interface ReportModel {
  kicker: string;
  title: string;
  modelName: string;
  gpuLabel: string;
  simulated: boolean;
  /** "Imported from ..." when the session came from another tool's output. */
  origin: string | null;
  engineLine: string;
  matrixLine: string;
  /** The headline figures every view opens with (at-a-glance.ts); empty when the session has none. */
  glance: GlanceItem[];
  /** What the session lacks, in sentences. */
  missing: string[];
  blocks: InfoBlock[];
  launch: string | null;
  launchMissing: string;
  prefill: TableModel | null;
  prefillCaption: string;
  /** Each prefill point's caveats (client delay, time cap), also among cellNotes; the app shows them by the chart. */
  prefillNotes: string[];
  decode: DecodeMatrixModel;
  decodeCaption: string;
  /** Why the chosen metric has no values in this session (the heatmap is left out), or null. */
  decodeUnavailable: string | null;
  legend: string[];
  /** What "±" means, when a cell was measured more than once (also the legend's last line); null otherwise. */
  repeatNote: string | null;
  ttftNote: string;
  measurementsCaption: string;
  measurements: TableModel;
  /** Each decode cell's latency percentiles and their sample counts; null when no cell has any. */
  latency: TableModel | null;
  latencyCaption: string;
  /** The same rows with their sort values and cell keys, for the app's sortable table. */
  measurementRows: MeasurementRow[];
  energy: TableModel | null;
  telemetry: TableModel | null;
  cellNotes: string[];
  checksUnavailable: string[];
  /** The service-level targets' section, when targets were given. */
  capacity: CapacitySection | null;
  /** A load session's rates and figures (docs/load.md), in place of the matrix's sections; null for a matrix. */
  load: LoadSection | null;
}

/** What a reader asks of a report beyond the session itself. */
export interface ReportOptions {
  targets?: TargetSet;
  /** The figure the decode heatmap shows (total tok/s unless told). */
  metric?: CellMetric;
  /** Price of one GPU for one hour; cost per million tokens needs it. */
  gpuPricePerHour?: number | null;
  /** That price's ISO 4217 code (report/price.ts); US dollars when absent. */
  gpuPriceCurrency?: string;
}

const REPORT_KICKER = 'Speed test matrix';
/** A load session's kicker: it measured rates offered, not a matrix (docs/load.md). */
const LOAD_KICKER = 'Load test';

/** Exactly the reference's All measurements columns. */
export const MEASUREMENT_COLUMNS = [
  'Phase',
  'Context',
  'Requests at once',
  'Status',
  'Total tok/s',
  'Per request tok/s',
  'TTFT',
  'Time between tokens',
  'Average active requests',
  'Completed requests',
  'Output tokens',
  'Measured for',
] as const;

const PREFILL_COLUMNS = ['Context', 'Prompt tok/s', 'TTFT'] as const;

/** What each measurement column after Phase sorts by, in MEASUREMENT_COLUMNS order. */
export const MEASUREMENT_SORT_KEYS = [
  'context',
  'concurrency',
  'status',
  'total',
  'perRequest',
  'ttft',
  'tbt',
  'active',
  'completed',
  'output',
  'window',
] as const;
export type MeasurementSortKey = (typeof MEASUREMENT_SORT_KEYS)[number];

/** One row of All measurements: its text, and the raw values the app sorts by. */
export interface MeasurementRow {
  /** "p8192" for a prefill point, "d8192x32" for a decode cell. */
  key: string;
  phase: 'Prefill' | 'Sustained decode';
  /** The decode cell's cellKey, for selecting it; null for prefill. */
  cellKey: string | null;
  sort: Record<MeasurementSortKey, number | string | null>;
  text: string[];
}

/**
 * What a cell's TTFT includes (docs/method.md, "TTFT"): the warmed prompt cache covers the shared
 * part of each prompt, but a request may still wait behind others' prefills, so it claims no more.
 */
const TTFT_NOTE =
  "TTFT is measured after the benchmark warms the server's prompt cache: it is the time to the first token as the client saw it, including any wait in the server's queue and any prefill the cache did not cover.";
const TTFT_ABOVE_PREFILL_NOTE = 'Where a cell’s TTFT is longer than a cold prefill at its context, the notes say so.';

/**
 * The cells whose median TTFT is longer than a cold prefill of their context: their first token
 * waited for more than their own prompt (queued behind other requests' prefills), cell by cell.
 */
function ttftAbovePrefillNotes(session: Session): string[] {
  const cold = new Map(
    session.prefill
      .filter((p) => hasFigure(p.status) && p.ttftSeconds !== null)
      .map((p) => [p.context, p.ttftSeconds!]),
  );
  return sortedCells(session).flatMap((c) => {
    const ttft = c.ttft?.p50 ?? null;
    const prefill = cold.get(c.context);
    if (!hasFigure(c.status) || ttft === null || prefill === undefined || ttft <= prefill) return [];
    return [
      `${fmtContext(c.context)} context × ${c.concurrency} at once: TTFT ${fmtMs(ttft)} is longer than a cold ${fmtContext(c.context)} prefill (${fmtMs(prefill)}), so it includes waiting for other requests' prefills, not only cache hits.`,
    ];
  });
}

const PHASE_PREFILL = 'Prefill' as const;
const PHASE_DECODE = 'Sustained decode' as const;

export function contextsOf(session: Session): number[] {
  return [...new Set([...session.prefill.map((p) => p.context), ...session.cells.map((c) => c.context)])];
}

function prefillTable(session: Session): TableModel | null {
  if (session.prefill.length === 0) return null;
  const contexts = contextsOf(session);
  return {
    header: [...PREFILL_COLUMNS],
    rows: sortedPrefill(session.prefill).map((p) => {
      const figures = hasFigure(p.status);
      return [
        fmtContext(p.context, contexts),
        figures ? fmtPrefillThroughput(p) : STATUS_WORDS[p.status],
        figures ? fmtMs(p.ttftSeconds) : NONE,
      ];
    }),
  };
}

/** Completed requests of a prefill scout: 1 when it answered, 0 when it failed, null when not run. */
function prefillCompleted(status: CellStatus): number | null {
  if (!STATUSES[status].ran) return null;
  return hasFigure(status) ? 1 : 0;
}

export function decodeMeasurementRow(c: DecodeCell, contexts: readonly number[] = []): string[] {
  return [
    PHASE_DECODE,
    fmtContext(c.context, contexts),
    String(c.concurrency),
    STATUS_WORDS[c.status],
    withFailed(fmtCellThroughput(c), c.failedRequests),
    fmtTokPerSec(c.perRequestTokensPerSecond),
    fmtLatency(c, 'ttft', 'p50'),
    fmtMsPrecise(c.timeBetweenTokens?.p50),
    fmtOneDecimal(c.avgActiveRequests),
    fmtCount(c.completedRequests),
    fmtCount(c.outputTokens),
    fmtSeconds(c.windowSeconds),
  ];
}

/** All measurements, prefill first then decode in matrix order (a rerun replaces its cell). */
export function measurementRows(session: Session): MeasurementRow[] {
  const contexts = contextsOf(session);
  const prefill = sortedPrefill(session.prefill).map((p): MeasurementRow => {
    const completed = prefillCompleted(p.status);
    return {
      key: `p${p.context}`,
      phase: PHASE_PREFILL,
      cellKey: null,
      sort: {
        context: p.context,
        concurrency: 1,
        status: p.status,
        total: p.tokensPerSecond,
        perRequest: null,
        ttft: p.ttftSeconds,
        tbt: null,
        active: null,
        completed,
        output: null,
        window: null,
      },
      text: [
        PHASE_PREFILL,
        fmtContext(p.context, contexts),
        '1',
        STATUS_WORDS[p.status],
        fmtPrefillThroughput(p),
        NONE,
        fmtMs(p.ttftSeconds),
        NONE,
        NONE,
        completed === null ? NONE : String(completed),
        NONE,
        NONE,
      ],
    };
  });
  const decode = sortedCells(session).map((c): MeasurementRow => ({
    key: `d${cellKey(c)}`,
    phase: PHASE_DECODE,
    cellKey: cellKey(c),
    sort: {
      context: c.context,
      concurrency: c.concurrency,
      status: c.status,
      total: c.totalTokensPerSecond,
      perRequest: c.perRequestTokensPerSecond,
      ttft: c.ttft?.p50 ?? null,
      tbt: c.timeBetweenTokens?.p50 ?? null,
      active: c.avgActiveRequests,
      completed: c.completedRequests,
      output: c.outputTokens,
      window: c.windowSeconds,
    },
    text: decodeMeasurementRow(c, contexts),
  }));
  return [...prefill, ...decode];
}

function sortedCells(session: Session): DecodeCell[] {
  return [...cellIndex(session.cells).values()].sort((a, b) => a.context - b.context || a.concurrency - b.concurrency);
}

function latencyTable(session: Session): TableModel | null {
  const cells = sortedCells(session).filter((c) => hasFigure(c.status) && (c.ttft || c.timeBetweenTokens));
  if (cells.length === 0) return null;
  const contexts = contextsOf(session);
  const medians = medianOnly(session);
  const reasoning = cells.some(hasReasoning);
  return {
    header: [...LATENCY_COLUMNS, ...(reasoning ? REASONING_COLUMNS : [])],
    rows: cells.map((c) => [
      fmtContext(c.context, contexts),
      String(c.concurrency),
      ...latencyRowCells(c, medians),
      ...(reasoning ? reasoningRowCells(c) : []),
    ]),
  };
}

function energyTable(session: Session): TableModel | null {
  const withEnergy = session.cells.filter((c) => c.telemetry?.energyPerTokenJoules != null);
  if (withEnergy.length === 0) return null;
  const { contexts, concurrency } = matrixAxes(session);
  const index = cellIndex(session.cells);
  return {
    header: ['Context', ...concurrency.map(String)],
    rows: contexts.map((ctx) => [
      fmtContext(ctx, contexts),
      ...concurrency.map((c) =>
        fmtJoulesPerToken(index.get(cellKey({ context: ctx, concurrency: c }))?.telemetry?.energyPerTokenJoules),
      ),
    ]),
  };
}

function telemetryTable(session: Session): TableModel | null {
  const cells = sortedCells(session).filter((c) => c.telemetry);
  if (cells.length === 0) return null;
  return {
    header: [
      'Context',
      'Requests at once',
      'GPU busy',
      'Average power',
      'SM clock',
      'Memory used',
      'Temperature',
      'Throttling',
      'Energy per token',
    ],
    rows: cells.map((c) => {
      const t = c.telemetry!;
      return [
        fmtContext(c.context),
        String(c.concurrency),
        fmtPercent(t.avgGpuUtilization),
        fmtWatts(t.avgPowerWatts),
        fmtMegahertz(t.avgSmClockHz),
        fmtGigabytes(t.avgMemoryUsedBytes),
        fmtTemperature(t.avgTemperatureC),
        t.throttleReasons.length ? t.throttleReasons.join(', ') : 'none',
        fmtJoulesPerToken(t.energyPerTokenJoules),
      ];
    }),
  };
}

const EXCERPT_CHARS = 160;

/**
 * Each prefill point's caveats in one line (its reason, such as the client's delay, and a
 * --precision prefill stopped by the time cap): the exports' notes and the app's prefill
 * section say the same.
 */
function prefillNotesOf(session: Session): string[] {
  return sortedPrefill(session.prefill).flatMap((p) => {
    const reason = p.reason ? p.reason.trim().replace(/\.$/, '') : null;
    const capped =
      p.precision?.stopReason === 'max-duration'
        ? `measured ${plural(p.precision.measurements, 'time')} before the time cap stopped it, short of the precision`
        : null;
    const caveats = [reason, capped].filter((c): c is string => c !== null);
    return caveats.length
      ? [`Prefill at ${fmtContext(p.context)}: ${STATUS_WORDS[p.status]}: ${caveats.join('; ')}.`]
      : [];
  });
}

function cellNotesOf(session: Session): string[] {
  const notes: string[] = prefillNotesOf(session);
  for (const c of sortedCells(session)) {
    const ev = c.evidence;
    const excerpt = ev?.loopExcerpt
      ? ` Repeating text${ev.loopPeriodChars ? ` (every ${fmtCount(ev.loopPeriodChars)} characters)` : ''}: “${ev.loopExcerpt.length > EXCERPT_CHARS ? `${ev.loopExcerpt.slice(0, EXCERPT_CHARS)}…` : ev.loopExcerpt}”`
      : '';
    const waited = c.status === 'queued' && c.readinessTimedOut ? ' The start-up wait timed out.' : '';
    const lagged = c.simulatorLagSeconds
      ? ` The simulated server fell ${fmtSeconds(c.simulatorLagSeconds)} behind its own clock during the window (its host was busy): the figures are less certain.`
      : '';
    // Where this verdict deliberately differs from the reference tool's 95% rule, the report says both.
    const ref = c.referenceVerdict;
    const reference = ref
      ? ` The reference tool's 95% rule says ${STATUS_WORDS[ref.status]} (${ref.says}); this verdict differs: ${ref.differs}.`
      : '';
    if (c.reason || excerpt || waited || lagged || reference) {
      const reason = c.reason ? `: ${c.reason.trim().replace(/\.$/, '')}` : '';
      notes.push(
        `${fmtContext(c.context)} context × ${c.concurrency} at once: ${STATUS_WORDS[c.status]}${reason}.${excerpt}${waited}${lagged}${reference}`,
      );
    }
  }
  return notes;
}

function missingOf(session: Session, decode: DecodeMatrixModel): string[] {
  const out: string[] = [];
  const hw = session.hardware;
  if (hw.gpus.length === 0 && !hw.cpu && !hw.os) out.push('Hardware: not recorded.');
  if ((session.engine.name === 'unknown' || !session.engine.name) && !session.engine.version)
    out.push('Engine: not recorded.');
  if (!session.server.display.trim() && session.server.argv.length === 0) out.push('Launch command: not recorded.');
  if (session.prefill.length === 0) out.push('Prefill: no measurements.');
  if (session.cells.length === 0) out.push('Sustained decode: no measurements.');
  else {
    const empty = decode.rows.flat().filter((c) => c.status === null).length;
    if (empty > 0) out.push(`Sustained decode: ${plural(empty, 'cell has', 'cells have')} no measurement.`);
  }
  return out;
}

/** The All measurements caption; "(from N)" is explained here, over the table that shows it. */
function measurementsCaptionOf(session: Session): string {
  const base = 'Latencies are medians. Total tok/s is output across all simultaneous requests.';
  const few = session.cells.some((c) => hasFigure(c.status) && fewSamples(c, 'ttft'));
  return few ? `${base} ${FEW_SAMPLES_LEGEND}` : base;
}

export function buildReportModel(session: Session, options: ReportOptions = {}): ReportModel {
  const metric = options.metric ?? 'total';
  const ctx = metricContextOf(session, options.gpuPricePerHour ?? null, options.gpuPriceCurrency);
  const targets = options.targets ? { set: options.targets, medians: medianOnly(session) } : null;
  const decode = buildDecodeMatrix(session, { metric, ctx, targets });
  const rows = measurementRows(session);
  const present = new Set(session.cells.map((c) => c.status));
  const source = statusSourceOf(session);
  const legend = legendStatuses(present).map((s) => legendLine(s, source));
  const repeatNote = session.cells.some((c) => (c.repetitions?.length ?? 0) > 1) ? REPEAT_LEGEND : null;
  if (repeatNote) legend.push(repeatNote);
  if (session.cells.some((c) => c.precision)) legend.push(PRECISION_LEGEND);
  const ttftAbove = ttftAbovePrefillNotes(session);
  return {
    kicker: session.load ? LOAD_KICKER : REPORT_KICKER,
    title: reportTitle(session),
    modelName: modelNameOf(session),
    gpuLabel: gpuLabelOf(session),
    simulated: session.simulated,
    origin: originOf(session),
    engineLine: engineLineOf(session),
    matrixLine: session.load ? 'Load: request rates offered, latency and throughput achieved' : matrixLineOf(session),
    glance: atAGlance(session, options.targets),
    missing: session.load ? [] : missingOf(session, decode),
    blocks: [hardwareBlock(session), engineBlock(session), runBlock(session)],
    launch: launchOf(session),
    launchMissing: launchMissingOf(session),
    prefill: prefillTable(session),
    prefillCaption: 'Prompt tok/s by context length',
    prefillNotes: prefillNotesOf(session),
    decode,
    decodeCaption: `${metric === 'total' ? 'Total tok/s' : metricLabel(metric, ctx)} · rows are context length, columns are simultaneous requests`,
    decodeUnavailable: session.cells.length ? metricUnavailable(session, metric, ctx) : null,
    legend,
    repeatNote,
    ttftNote: ttftAbove.length ? `${TTFT_NOTE} ${TTFT_ABOVE_PREFILL_NOTE}` : TTFT_NOTE,
    measurementsCaption: measurementsCaptionOf(session),
    measurements: { header: [...MEASUREMENT_COLUMNS], rows: rows.map((r) => r.text) },
    latency: latencyTable(session),
    latencyCaption: [
      latencyCaption(medianOnly(session)),
      ...(session.cells.some(hasReasoning) ? [REASONING_CAPTION] : []),
    ].join(' '),
    measurementRows: rows,
    energy: energyTable(session),
    telemetry: telemetryTable(session),
    cellNotes: [...cellNotesOf(session), ...ttftAbove],
    checksUnavailable: session.checksUnavailable,
    capacity: options.targets ? buildCapacitySection(session, options.targets) : null,
    load: session.load ? loadSection(session.load) : null,
  };
}

const SIMULATED_SOURCE = "SpeedMatrix's simulated vLLM server, not from real hardware";

/** The banner of a report of a simulated session (Markdown, HTML, PDF, the app's Results view). */
export const SIMULATED_NOTE = `SIMULATED: these figures come from ${SIMULATED_SOURCE}.`;

/** The banner of a report built from several sessions (a comparison, a sweep), or null when none is simulated. */
export function simulatedBanner(simulated: readonly boolean[]): string | null {
  if (!simulated.some(Boolean)) return null;
  if (simulated.length === 1) return SIMULATED_NOTE;
  const which = simulated.every(Boolean) ? 'all of these sessions come' : 'at least one of these sessions comes';
  return `SIMULATED: ${which} from ${SIMULATED_SOURCE}.`;
}
