/**
 * The blocks a report opens with (docs/method.md, "The Run block"): the hardware, the engine and
 * the run as measured, with the title and the names they use; built from a session for the
 * report model (report-model.ts), so the app, the CLI and every export say the same.
 */
import { lengthText } from './load-model';
import type { Session } from '../session/schema';
import {
  NONE,
  fmtContexts,
  fmtContextRange,
  fmtCount,
  fmtGigabytes,
  fmtSettingSeconds,
  fmtShare,
  fmtWatts,
  plural,
} from './format';
import { matrixAxes } from './matrix-model';
import { commandLineOf, redactCommandLine } from './redact';
import { START_TIME_LABEL, startTimeText } from './start-time';

export interface InfoRow {
  label: string;
  value: string;
}

export interface InfoBlock {
  title: string;
  rows: InfoRow[];
  /** Said when the session recorded nothing for this block. */
  missing: string | null;
}

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

export function engineLineOf(session: Session): string {
  const e = session.engine;
  // "unknown" is what a session says when nothing named the engine: the line leaves it out (the Engine block says so).
  const name = e.name === 'unknown' ? null : e.name;
  return [name, e.version, e.quantization].filter((p): p is string => !!p).join(' · ');
}

export function matrixLineOf(session: Session): string {
  const { contexts, concurrency } = matrixAxes(session);
  const prefill = prefillContextsOf(session);
  const parts = [
    `${plural(contexts.length, 'context', 'contexts')} (${fmtContextRange(contexts)}) × ${plural(concurrency.length, 'concurrency level', 'concurrency levels')} (${concurrencyRange(concurrency)})`,
  ];
  if (prefill.length) parts.push(`prefill at ${fmtContexts(prefill).join(', ')}`);
  return parts.join(' · ');
}

export function originOf(session: Session): string | null {
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

export function hardwareBlock(session: Session): InfoBlock {
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

export function engineBlock(session: Session): InfoBlock {
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

export function runBlock(session: Session): InfoBlock {
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

export function launchOf(session: Session): string | null {
  const s = session.server;
  if (s.display.trim()) return redactCommandLine(s.display.trim());
  if (s.argv.length) return commandLineOf(s.argv, s.env);
  return null;
}

export function launchMissingOf(session: Session): string {
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
