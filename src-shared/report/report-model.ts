/**
 * Everything a report shows, as display-ready strings, built once from a session. The
 * Markdown and HTML renderers and the app's Results view only lay this out, so all of them say
 * the same thing in the same order as the reference report (docs/architecture.md). Pure: no
 * Node imports.
 */
import { type LoadSection, lengthText, loadSection } from './load-model';
import type { CellStatus, DecodeCell, Session } from '../session/schema';
import { STATUSES, STATUS_WORDS, hasFigure, legendLine, legendStatuses, statusSourceOf } from '../session/status-words';
import {
  NONE,
  fmtContext,
  fmtContexts,
  fmtContextRange,
  fmtCount,
  fmtGigabytes,
  fmtJoulesPerToken,
  fmtMegahertz,
  fmtMs,
  fmtMsPrecise,
  fmtOneDecimal,
  fmtPercent,
  fmtSeconds,
  fmtSettingSeconds,
  fmtShare,
  fmtTemperature,
  fmtTokPerSec,
  fmtWatts,
  withFailed,
  plural,
} from './format';
import { type DecodeMatrixModel, buildDecodeMatrix, matrixAxes, sortedPrefill } from './matrix-model';
import { cellIndex } from '../cell-key';
import { cellKey } from '../cell-key';
import { fmtCellThroughput, fmtPrefillThroughput, PRECISION_LEGEND, REPEAT_LEGEND } from './confidence';
import { commandLineOf, redactCommandLine } from './redact';
import { START_TIME_LABEL, startTimeText } from './start-time';
import { type CapacitySection, buildCapacitySection } from './capacity-section';
import { type CellMetric, metricContextOf, metricLabel, metricUnavailable } from './cell-metrics';
import { type TargetSet, medianOnly } from './slo';
import {
  FEW_SAMPLES_LEGEND,
  LATENCY_COLUMNS,
  fewSamples,
  fmtLatency,
  latencyCaption,
  latencyRowCells,
} from './latency';

interface InfoRow {
  label: string;
  value: string;
}

export interface InfoBlock {
  title: string;
  rows: InfoRow[];
  /** Said when the session recorded nothing for this block. */
  missing: string | null;
}

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

const orNone = (v: string | null | undefined): string => (v === null || v === undefined || v === '' ? NONE : v);

/**
 * "Fara1.5-4B" from "microsoft/Fara1.5-4B" or "/models/Fara1.5-4B"; the served name when no
 * model is known. Something that is not a repository id or path (spaces, quotes, markup) is
 * shown whole rather than cut at a slash.
 */
export function modelNameOf(session: Session): string {
  // A simulator launched without a model records model "": the served name is the one to show.
  const path = session.server.model?.trim() || session.server.servedModel?.trim();
  if (!path) return 'Unknown model';
  if (!/^[^\s<>"']+$/.test(path)) return path;
  const parts = path.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** "RTX PRO 6000 Blackwell Server Edition 96GB", "2 × H200 141GB", "unknown GPU". */
export function gpuLabelOf(session: Session): string {
  const gpus = session.hardware.gpus;
  if (gpus.length === 0) return 'unknown GPU';
  const first = gpus[0];
  const vram = first.vramBytes ? ` ${fmtGigabytes(first.vramBytes).replace(' ', '')}` : '';
  const same = gpus.every((g) => g.name === first.name);
  if (!same) return gpus.map((g) => g.name).join(' + ');
  return `${gpus.length > 1 ? `${gpus.length} × ` : ''}${first.name}${vram}`;
}

/**
 * "Fara1.5-4B on 2 × H200 141GB". A server on another machine whose hardware nobody gave has no
 * GPU to name: the title says so instead of calling it an unknown GPU.
 */
export function reportTitle(session: Session): string {
  const hw = session.hardware;
  const notRecorded = hw.gpus.length === 0 && !hw.cpu && !hw.os;
  return notRecorded
    ? `${modelNameOf(session)} (hardware not recorded)`
    : `${modelNameOf(session)} on ${gpuLabelOf(session)}`;
}

function concurrencyRange(levels: readonly number[]): string {
  if (levels.length === 0) return NONE;
  const lo = Math.min(...levels);
  const hi = Math.max(...levels);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

function prefillContextsOf(session: Session): number[] {
  return [...new Set([...session.runConfig.prefillContexts, ...session.prefill.map((p) => p.context)])].sort(
    (a, b) => a - b,
  );
}

function engineLineOf(session: Session): string {
  const e = session.engine;
  // "unknown" is what a session says when nothing named the engine: the line leaves it out (the Engine block says so).
  const name = e.name === 'unknown' ? null : e.name;
  return [name, e.version, e.quantization].filter((p): p is string => !!p).join(' · ');
}

function matrixLineOf(session: Session): string {
  const { contexts, concurrency } = matrixAxes(session);
  const prefill = prefillContextsOf(session);
  const parts = [
    `${plural(contexts.length, 'context', 'contexts')} (${fmtContextRange(contexts)}) × ${plural(concurrency.length, 'concurrency level', 'concurrency levels')} (${concurrencyRange(concurrency)})`,
  ];
  if (prefill.length) parts.push(`prefill at ${fmtContexts(prefill).join(', ')}`);
  return parts.join(' · ');
}

function originOf(session: Session): string | null {
  const file = session.origin.file ? ` (${session.origin.file})` : '';
  switch (session.origin.kind) {
    case 'imported-seed-json':
      return `Imported from llm-inference-bench results${file}.`;
    case 'imported-report-text':
      return `Imported from a speed test matrix report${file}.`;
    case 'imported-vllm-bench':
      return `Imported from vLLM bench serve results${file}.`;
    case 'imported-aiperf':
      return `Imported from an AIPerf profile export${file}.`;
    case 'imported-guidellm':
      return `Imported from a GuideLLM benchmark report${file}.`;
    default:
      return null;
  }
}

function osText(os: Session['hardware']['os']): string {
  if (!os) return NONE;
  const details = [
    [os.distro, os.release].filter(Boolean).join(' '),
    os.kernel ? `kernel ${os.kernel}` : '',
    os.arch ?? '',
  ].filter(Boolean);
  return details.length ? `${os.platform} (${details.join(', ')})` : os.platform;
}

function hardwareBlock(session: Session): InfoBlock {
  const hw = session.hardware;
  const gpus = hw.gpus;
  const first = gpus[0];
  const sameName = gpus.every((g) => g.name === first?.name);
  const gpuName = !first
    ? NONE
    : sameName
      ? `${gpus.length > 1 ? `${gpus.length} × ` : ''}${first.name}`
      : gpus.map((g) => g.name).join(', ');
  const vram = !first?.vramBytes ? NONE : `${fmtGigabytes(first.vramBytes)}${gpus.length > 1 ? ' each' : ''}`;
  const os = osText(hw.os);
  const rows: InfoRow[] = [
    { label: 'Type', value: orNone(hw.gpuType) },
    { label: 'GPU', value: gpuName },
    { label: 'VRAM', value: vram },
    { label: 'OS', value: os },
  ];
  // Beyond the reference: shown only when the session has them.
  if (first?.driver) rows.push({ label: 'Driver', value: first.driver });
  if (first?.cuda) rows.push({ label: 'CUDA', value: first.cuda });
  if (first?.powerLimitWatts) rows.push({ label: 'Power limit', value: fmtWatts(first.powerLimitWatts) });
  if (hw.cpu) {
    const threads = hw.cpu.cores
      ? ` (${hw.cpu.cores} cores${hw.cpu.threads ? `, ${hw.cpu.threads} threads` : ''})`
      : '';
    rows.push({ label: 'CPU', value: `${hw.cpu.model}${threads}` });
  }
  if (hw.ramBytes) rows.push({ label: 'RAM', value: fmtGigabytes(hw.ramBytes) });
  for (const note of hw.notes) rows.push({ label: 'Note', value: note });
  const empty = gpus.length === 0 && !hw.cpu && !hw.os && !hw.gpuType;
  return { title: 'Hardware', rows, missing: empty ? 'This session does not record the hardware it ran on.' : null };
}

function engineBlock(session: Session): InfoBlock {
  const e = session.engine;
  const rows: InfoRow[] = [
    { label: 'Engine', value: orNone(e.name) },
    { label: 'Version', value: orNone(e.version) },
    { label: 'Quantization', value: orNone(e.quantization) },
    { label: 'Backend', value: orNone(e.backend) },
    { label: 'Repository', value: orNone(e.repository) },
    { label: 'Build', value: orNone(e.build) },
    { label: 'Commit', value: orNone(e.commit) },
  ];
  const empty = (e.name === 'unknown' || !e.name) && !e.version;
  return {
    title: 'Engine',
    rows,
    missing: empty ? 'This session does not record which inference engine served the model.' : null,
  };
}

const DECODE_MODE_WORDS: Record<Session['runConfig']['decodeTestMode'], string> = {
  'fixed-duration': 'Fixed duration',
};
const PREFILL_MODE_WORDS: Record<Session['runConfig']['prefillMode'], string> = {
  'during-decode-warmup': 'Measured during decode warm-up',
};

/** Where a KV budget came from, in words (the app's Server view and the reports' Run block). */
export const KV_SOURCE_WORDS: Record<Session['kvBudget']['source'], string> = {
  'metrics-cache-config': 'from the server metrics',
  'startup-log': 'from the server log',
  'engine-info': 'stated by the engine',
  user: 'given by the user',
  imported: 'from the imported file',
  unknown: 'source unknown',
};

/**
 * Where a KV budget came from, for one line of text: the probe's own detail, which names its
 * source ('startup log "# GPU blocks: …"'), else the source in words. Over capacity reasons and
 * the CLI's server lines say it this way, never the raw source id.
 */
export function kvBudgetOrigin(kv: Pick<Session['kvBudget'], 'source' | 'detail'>): string {
  return kv.detail ?? KV_SOURCE_WORDS[kv.source];
}

/** A matrix's prompt shapes (docs/method.md, "Prompt shapes"): what every run states, set or not. */
function promptShapeRows(rc: Session['runConfig']): InfoRow[] {
  return [
    {
      label: 'Output length',
      value: rc.outputLength
        ? `${lengthText(rc.outputLength)} tokens, drawn for each request`
        : `${fmtCount(rc.maxOutputTokens)} tokens at most, every request`,
    },
    {
      label: 'Shared prefix',
      value: rc.sharedPrefixTokens ? `${fmtCount(rc.sharedPrefixTokens)} tokens first in every prompt` : 'none',
    },
  ];
}

/** The note a run leaves when the server had no /tokenize and prompts fell back to estimates (bench/runner.ts). */
const NO_TOKENIZE = 'No /tokenize';

/** How prompt sizes were reached (docs/method.md, "Prompt sizes"): the run's setting, as it ran. */
function targetingText(session: Session): string {
  const estimated =
    session.runConfig.tokenTargeting === 'estimate' || session.checksUnavailable.some((c) => c.startsWith(NO_TOKENIZE));
  return estimated
    ? 'estimated from characters per token (actual counts recorded from usage)'
    : "exact, counted by the server's /tokenize";
}

/**
 * How each decode cell was measured (docs/adaptive-precision.md): a fixed window, or one that
 * closed at a precision between a shortest and a longest length. The reference's rows first.
 */
function windowRows(rc: Session['runConfig']): InfoRow[] {
  if (!rc.precision)
    return [
      { label: 'Decode test', value: DECODE_MODE_WORDS[rc.decodeTestMode] },
      { label: 'Prefill mode', value: PREFILL_MODE_WORDS[rc.prefillMode] },
      { label: 'Time per measurement', value: fmtSettingSeconds(rc.secondsPerMeasurement) },
    ];
  return [
    { label: 'Decode test', value: 'Adaptive window' },
    { label: 'Prefill mode', value: PREFILL_MODE_WORDS[rc.prefillMode] },
    { label: 'Precision', value: `±${fmtShare(rc.precision)}: the 95% interval of each cell's total tok/s` },
    { label: 'Shortest window', value: fmtSettingSeconds(rc.minSecondsPerMeasurement ?? 0) },
    { label: 'Longest window', value: fmtSettingSeconds(rc.secondsPerMeasurement) },
  ];
}

/** How many times each cell was measured (docs/repeats-and-targets.md). */
const repeatsText = (rc: Session['runConfig']): string =>
  rc.repeat > 1 ? `${rc.repeat} per cell, in interleaved passes` : '1 (each cell measured once)';

/**
 * Repeats, prompt shapes and prompt sizes: what SpeedMatrix knows of a run it measured. An
 * imported file states none of them, so its block claims none (its defaults would read as facts).
 */
function methodRows(session: Session): InfoRow[] {
  if (session.origin.kind !== 'measured') return [];
  const rc = session.runConfig;
  return [
    { label: 'Repeats', value: repeatsText(rc) },
    ...promptShapeRows(rc),
    { label: 'Prompt sizes', value: targetingText(session) },
  ];
}

function runBlock(session: Session): InfoBlock {
  const rc = session.runConfig;
  const s = session.server;
  const rows: InfoRow[] = [
    { label: 'Served model', value: orNone(s.servedModel ?? s.model) },
    { label: 'Revision', value: orNone(s.revision) },
    { label: 'Benchmark tool', value: orNone(rc.benchmarkTool) },
    // A load session's workload is its load section's; the matrix's settings would only mislead there.
    ...(session.load
      ? []
      : [
          ...windowRows(rc),
          { label: 'Max output', value: `${fmtCount(rc.maxOutputTokens)} tokens` },
          ...methodRows(session),
        ]),
  ];
  if (s.maxModelLen) rows.push({ label: 'Max model length', value: `${fmtCount(s.maxModelLen)} tokens` });
  const kv = session.kvBudget;
  if (kv.tokens !== null)
    rows.push({ label: 'KV cache', value: `${fmtCount(kv.tokens)} tokens (${KV_SOURCE_WORDS[kv.source]})` });
  const start = startTimeText(s.startPhases);
  if (start) rows.push({ label: START_TIME_LABEL, value: start });
  return { title: 'Run', rows, missing: null };
}

function launchOf(session: Session): string | null {
  const s = session.server;
  if (s.display.trim()) return redactCommandLine(s.display.trim());
  if (s.argv.length) return commandLineOf(s.argv, s.env);
  return null;
}

function launchMissingOf(session: Session): string {
  switch (session.server.kind) {
    case 'attach':
      return `Not recorded: SpeedMatrix attached to a server that was already running${session.server.url ? ` at ${session.server.url}` : ''}.`;
    case 'imported':
      return 'Not recorded in the imported file.';
    default:
      return 'Not recorded in this session.';
  }
}

/** Every context a session shows (prefill and decode): the labels beside each other, kept apart. */
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
  return {
    header: [...LATENCY_COLUMNS],
    rows: cells.map((c) => [fmtContext(c.context, contexts), String(c.concurrency), ...latencyRowCells(c, medians)]),
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
    latencyCaption: latencyCaption(medianOnly(session)),
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
