/**
 * Comparing sessions side by side, as data: one-line verdicts, overlaid prefill, a B / A ratio
 * matrix of total tok/s (every pair of cells that both have a figure; Valid pairs are the
 * headline, the others carry their status), a table of deltas, and the hardware, engine, run
 * and launch settings with differences marked. Whether two cells differ is decided by one rule
 * (cell-difference.ts). Pure: the Markdown and HTML comparisons (src-main/workflows/report/compare.ts)
 * and the app's comparison view are all laid out from it.
 */
import type { DecodeCell, Session } from '../session/schema';
import { STATUS_WORDS, hasFigure } from '../session/status-words';
import { NONE, fmtContext, fmtCount, fmtGigabytes, fmtMs, fmtShare, fmtTokPerSec } from './format';
import { flagsOf, parseLaunchLine } from './launch-flags';
import { cellKey } from '../cell-key';
import { buildPrefillSeries, divergingColor, matrixAxes, statusColor } from './matrix-model';
import { cellIndex } from '../cell-key';
import { type TableModel } from './report-model';
import { gpuLabelOf, reportTitle } from './report-blocks';
import { fmtCellThroughput } from './confidence';
import {
  type CellDifference,
  type Verdict,
  cellDifference,
  fmtCellDifference,
  prefillDifference,
} from './cell-difference';

import { type RatioCell, contextVerdicts, overallVerdict } from './compare-verdict';

export type { RatioCell } from './compare-verdict';
import { type LoadComparison, loadComparison } from './load-compare';
import { type OverlaySession, overlaySessions } from './overlay';

export { fmtChange } from './cell-difference';

interface DifferenceRow {
  section: 'Hardware' | 'Engine' | 'Run' | 'Launch';
  field: string;
  /** One per session, "—" when not recorded. */
  values: string[];
  differs: boolean;
}

interface PrefillComparisonRow {
  context: number;
  tokensPerSecond: (number | null)[];
  ttftSeconds: (number | null)[];
  /** Each session's tok/s over the first session's; null for the first and where either is missing. */
  ratios: (number | null)[];
  /** Each session's prefill against the first's by the prefill's tie band (cell-difference.ts); null where there is no ratio. */
  verdicts: (Verdict | null)[];
}

export interface RatioMatrix {
  /** "B / A". */
  label: string;
  /** Index of the session compared with the first. */
  against: number;
  contexts: number[];
  concurrency: number[];
  rows: RatioCell[][];
  /** The comparison in one line: "B against A: faster in 2 cells (up to 3.30×), the same in 4." */
  verdict: string;
  /** One line per context: "At 8K context, B is 3.30× faster at 16 requests (A: Requests queued), the same at 1 and 2." */
  contextVerdicts: string[];
}

export interface DeltaRow {
  context: number;
  concurrency: number;
  statuses: string[];
  totals: (number | null)[];
  ttfts: (number | null)[];
  /** Change of each session's total over the first, as a fraction (0.1 = +10 %), wherever both have a figure. */
  changes: (number | null)[];
  /** Each session against the first by the one rule; null for the first and where either has no figure. */
  differences: (CellDifference | null)[];
  /**
   * Each session against the first in words, by the one rule: "B is 3.1% faster, 95% CI 1.2–5.0%"
   * or "no significant difference" (repeats on both sides), "+230.1%" or "+1.2%, the same within
   * ±5.0%" (one window); "" for the first, "—" where either has no figure.
   */
  changeTexts: string[];
  /** Each session's total as shown: "4,786.2 ± 21.3" with repetitions. */
  totalTexts: string[];
}

export interface ComparisonModel {
  labels: string[];
  titles: string[];
  simulated: boolean[];
  differences: DifferenceRow[];
  prefill: PrefillComparisonRow[];
  decode: RatioMatrix[];
  deltas: DeltaRow[];
  /** Load sessions' own comparison (load-compare.ts), in place of prefill, decode and deltas; null for matrices. */
  load: LoadComparison | null;
  /** Each session's lines for the overlaid, normalised charts (overlay.ts). */
  overlay: OverlaySession[];
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const labelOf = (i: number): string => LETTERS[i] ?? `#${i + 1}`;

/** "1.23×" */
export const fmtRatio = (r: number | null): string => (r === null ? NONE : `${r.toFixed(2)}×`);
// The launch as the person gave it: the display line first, since an older session's argv is
// the process's own (for the simulator: Node, its loader flags and this machine's paths).
function launchFlags(s: Session): Map<string, string> {
  if (s.server.display.trim()) return parseLaunchLine(s.server.display).flags;
  return flagsOf(s.server.argv);
}

function launchEnv(s: Session): Record<string, string> {
  if (s.server.display.trim()) return parseLaunchLine(s.server.display).env;
  return s.server.env;
}

const SECRET_FLAGS = new Set(['--api-key', '--hf-token', '--token', '--password']);
/** Flags that change no figure: where the server listened (the demo and a resume pick a free port each time). */
const NOT_SETTINGS = new Set(['--port']);

function differences(sessions: readonly Session[]): DifferenceRow[] {
  const rows: DifferenceRow[] = [];
  const add = (section: DifferenceRow['section'], field: string, get: (s: Session) => string | null | undefined) => {
    const values = sessions.map((s) => {
      const v = get(s);
      return v === null || v === undefined || v === '' ? NONE : v;
    });
    // A setting no session records says nothing; leave it out.
    if (values.some((v) => v !== NONE)) rows.push({ section, field, values, differs: new Set(values).size > 1 });
  };
  add('Hardware', 'GPU', (s) => (s.hardware.gpus.length ? gpuLabelOf(s) : null));
  add('Hardware', 'GPU type', (s) => s.hardware.gpuType);
  add('Hardware', 'Driver', (s) => s.hardware.gpus[0]?.driver);
  add('Hardware', 'CUDA', (s) => s.hardware.gpus[0]?.cuda);
  add('Hardware', 'Power limit', (s) =>
    s.hardware.gpus[0]?.powerLimitWatts ? `${fmtCount(s.hardware.gpus[0].powerLimitWatts)} W` : null,
  );
  add('Hardware', 'CPU', (s) => s.hardware.cpu?.model);
  add('Hardware', 'RAM', (s) => (s.hardware.ramBytes ? fmtGigabytes(s.hardware.ramBytes) : null));
  add('Hardware', 'OS', (s) => s.hardware.os?.platform);
  add('Engine', 'Engine', (s) => s.engine.name);
  add('Engine', 'Version', (s) => s.engine.version);
  add('Engine', 'Quantization', (s) => s.engine.quantization);
  add('Engine', 'Backend', (s) => s.engine.backend);
  add('Engine', 'Build', (s) => s.engine.build);
  add('Engine', 'Commit', (s) => s.engine.commit);
  add('Run', 'Model', (s) => s.server.model);
  add('Run', 'Served model', (s) => s.server.servedModel);
  // Every run setting that can change a figure (docs/sweeps.md).
  add('Run', 'Benchmark tool', (s) => s.runConfig.benchmarkTool);
  add('Run', 'Written by', (s) => `SpeedMatrix ${s.appVersion}`);
  // A load session's workload is its load section's (load-compare.ts): the matrix's settings would only mislead.
  const matrix = (read: (s: Session) => string | null) => (s: Session) => (s.load ? null : read(s));
  add(
    'Run',
    'Repeat each cell',
    matrix((s) => `${s.runConfig.repeat}×`),
  );
  add(
    'Run',
    'Time per measurement',
    matrix((s) => `${s.runConfig.secondsPerMeasurement} s`),
  );
  add(
    'Run',
    'Precision',
    matrix((s) => (s.runConfig.precision ? `±${fmtShare(s.runConfig.precision)}` : null)),
  );
  add(
    'Run',
    'Shortest window',
    matrix((s) => (s.runConfig.precision ? `${s.runConfig.minSecondsPerMeasurement ?? 0} s` : null)),
  );
  add(
    'Run',
    'Max output',
    matrix((s) => `${fmtCount(s.runConfig.maxOutputTokens)} tokens`),
  );
  // Another load tool's file states no targeting: the session's default would read as a fact.
  add('Run', 'Token targeting', (s) => (s.load && s.origin.kind !== 'measured' ? null : s.runConfig.tokenTargeting));
  add('Run', 'KV cache', (s) => (s.kvBudget.tokens !== null ? `${fmtCount(s.kvBudget.tokens)} tokens` : null));
  add('Run', 'Simulated', (s) => (s.simulated ? 'yes' : 'no'));
  const flags = sessions.map(launchFlags);
  const envs = sessions.map(launchEnv);
  const flagNames = [...new Set(flags.flatMap((f) => [...f.keys()]))]
    .filter((f) => !SECRET_FLAGS.has(f) && !NOT_SETTINGS.has(f))
    .sort();
  for (const f of flagNames) add('Launch', f, (s) => flags[sessions.indexOf(s)].get(f));
  const envNames = [...new Set(envs.flatMap((e) => Object.keys(e)))].sort();
  for (const name of envNames) add('Launch', `env ${name}`, (s) => envs[sessions.indexOf(s)][name]);
  return rows;
}

function prefillRows(sessions: readonly Session[]): PrefillComparisonRow[] {
  const series = sessions.map((s) => new Map(buildPrefillSeries(s.prefill).map((p) => [p.context, p])));
  const contexts = [...new Set(series.flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  return contexts.map((context) => {
    const tps = series.map((m) => m.get(context)?.tokensPerSecond ?? null);
    // The results themselves, with their intervals and client delays, for the tie band.
    const results = sessions.map((s, i) =>
      series[i].has(context) ? s.prefill.find((p) => p.context === context && p.tokensPerSecond !== null) : undefined,
    );
    const differences = results.map((r, i) => (i > 0 && r && results[0] ? prefillDifference(results[0], r) : null));
    return {
      context,
      tokensPerSecond: tps,
      ttftSeconds: series.map((m) => m.get(context)?.ttftSeconds ?? null),
      ratios: differences.map((d) => d?.ratio ?? null),
      verdicts: differences.map((d) => d?.verdict ?? null),
    };
  });
}

/** Why a pair of cells has no ratio, or which side is not Valid; null for a Valid pair. */
function pairNote(ca: DecodeCell | undefined, cb: DecodeCell | undefined, la: string, lb: string): string | null {
  if (!ca) return `not in ${la}`;
  if (!cb) return `not in ${lb}`;
  if (ca.status === 'valid' && cb.status === 'valid') return null;
  if (ca.status === cb.status) return `${la} and ${lb}: ${STATUS_WORDS[ca.status]}`;
  const sides = [ca.status !== 'valid' ? `${la}: ${STATUS_WORDS[ca.status]}` : null];
  sides.push(cb.status !== 'valid' ? `${lb}: ${STATUS_WORDS[cb.status]}` : null);
  return sides.filter(Boolean).join(', ');
}

/** Both cells' figures compared by the one rule, when both have one. */
function pairDifference(ca: DecodeCell | undefined, cb: DecodeCell | undefined): CellDifference | null {
  if (!ca || !cb || !hasFigure(ca.status) || !hasFigure(cb.status)) return null;
  return cellDifference(ca, cb);
}

function ratioCell(
  ca: DecodeCell | undefined,
  cb: DecodeCell | undefined,
  where: Pick<RatioCell, 'context' | 'concurrency'>,
  la: string,
  lb: string,
): RatioCell {
  const note = pairNote(ca, cb, la, lb);
  const d = pairDifference(ca, cb);
  const at = `${fmtContext(where.context)} context × ${where.concurrency} at once`;
  if (!d) {
    const why = note ?? 'no figure';
    return {
      ...where,
      ratio: null,
      verdict: null,
      headline: false,
      note: why,
      figure: why,
      text: why,
      fill: statusColor(null),
      title: `${at}: no ratio (${why})`,
    };
  }
  const ratio = fmtRatio(d.ratio);
  const figure = d.verdict === 'same' ? `${ratio} same` : ratio;
  const text = note ? `${figure} · ${note}` : figure;
  // A tie is drawn as "the same", whatever the noise made the ratio.
  const fill = divergingColor(d.verdict === 'same' ? 1 : d.ratio);
  const figures = `${lb} ${fmtTokPerSec(cb!.totalTokensPerSecond)} / ${la} ${fmtTokPerSec(ca!.totalTokensPerSecond)} tok/s = ${ratio}`;
  const verdict = d.verdict === 'same' ? 'the same within the noise' : d.verdict;
  return {
    ...where,
    ratio: d.ratio,
    verdict: d.verdict,
    headline: note === null,
    note,
    figure,
    text,
    fill,
    title: `${at}: ${figures}, ${verdict}${note ? ` (${note})` : ''}`,
  };
}

function ratioMatrix(a: Session, b: Session, against: number, labels: readonly string[]): RatioMatrix {
  const axA = matrixAxes(a);
  const axB = matrixAxes(b);
  const contexts = [...new Set([...axA.contexts, ...axB.contexts])].sort((x, y) => x - y);
  const concurrency = [...new Set([...axA.concurrency, ...axB.concurrency])].sort((x, y) => x - y);
  const ia = cellIndex(a.cells);
  const ib = cellIndex(b.cells);
  const la = labels[0];
  const lb = labels[against];
  const rows = contexts.map((context) =>
    concurrency.map((c) => {
      const key = cellKey({ context, concurrency: c });
      return ratioCell(ia.get(key), ib.get(key), { context, concurrency: c }, la, lb);
    }),
  );
  return {
    label: `${lb} / ${la}`,
    against,
    contexts,
    concurrency,
    rows,
    verdict: overallVerdict(rows, la, lb),
    contextVerdicts: contextVerdicts(rows, contexts, lb),
  };
}

function deltaRows(sessions: readonly Session[], labels: readonly string[]): DeltaRow[] {
  const indexes = sessions.map((s) => cellIndex(s.cells));
  const keys = new Map<string, [number, number]>();
  for (const s of sessions) for (const c of s.cells) keys.set(cellKey(c), [c.context, c.concurrency]);
  return [...keys.values()]
    .sort((x, y) => x[0] - y[0] || x[1] - y[1])
    .map(([context, concurrency]) => {
      const cells = indexes.map((ix) => ix.get(cellKey({ context, concurrency })));
      const base = cells[0];
      const differences = cells.map((c, i) => (i === 0 ? null : pairDifference(base, c)));
      return {
        context,
        concurrency,
        statuses: cells.map((c) => (c ? STATUS_WORDS[c.status] : NONE)),
        totals: cells.map((c) => (c && hasFigure(c.status) ? c.totalTokensPerSecond : null)),
        ttfts: cells.map((c) => (c && hasFigure(c.status) ? (c.ttft?.p50 ?? null) : null)),
        changes: differences.map((d) => (d ? d.change : null)),
        differences,
        changeTexts: differences.map((d, i) => (i === 0 ? '' : d ? fmtCellDifference(d, labels[i]) : NONE)),
        totalTexts: cells.map((c) => (c && hasFigure(c.status) ? fmtCellThroughput(c) : NONE)),
      };
    });
}

/** What ran, in one line: "Fara1.5-4B on RTX PRO 6000 … · vllm 0.30.1". */
export const sessionTitle = (s: Session): string =>
  `${reportTitle(s)}${s.engine.version ? ` · ${s.engine.name} ${s.engine.version}` : ''}`;

/** A comparison's kicker, by what its sessions measured (a load session is no speed test matrix). */
export const comparisonKicker = (m: Pick<ComparisonModel, 'load'>): string =>
  m.load ? 'Load test comparison' : 'Speed test matrix comparison';

/**
 * The comparison as data. The first session is the baseline; needs at least two. Sessions are
 * called A, B, C… unless `names` says otherwise (a sweep keeps its variants' letters when one
 * did not run).
 */
export function compareSessions(sessions: readonly Session[], names?: readonly string[]): ComparisonModel {
  if (sessions.length < 2) throw new Error('A comparison needs at least two sessions.');
  const labels = sessions.map((_, i) => names?.[i] ?? labelOf(i));
  const base = sessions.map(sessionTitle);
  // Same titles would read as the same run: tell them apart by file or date.
  const titles = base.map((t, i) =>
    base.filter((x) => x === t).length > 1 ? `${t} (${sessions[i].origin.file ?? sessions[i].createdAt})` : t,
  );
  return {
    labels,
    titles,
    simulated: sessions.map((s) => s.simulated),
    differences: differences(sessions),
    prefill: prefillRows(sessions),
    decode: sessions.slice(1).map((s, i) => ratioMatrix(sessions[0], s, i + 1, labels)),
    deltas: deltaRows(sessions, labels),
    load: loadComparison(sessions, labels),
    overlay: overlaySessions(sessions, labels),
  };
}

// ---- Tables shared by the reports and the app ---------------------------------------------

export function differencesTable(m: ComparisonModel): TableModel {
  return {
    header: ['Section', 'Setting', ...m.labels, 'Differs'],
    rows: m.differences.map((d) => [d.section, d.field, ...d.values, d.differs ? '≠' : '']),
  };
}

export function prefillTable(m: ComparisonModel): TableModel {
  const others = m.labels.slice(1);
  return {
    header: [
      'Context',
      ...m.labels.map((l) => `${l} prompt tok/s`),
      ...others.map((l) => `${l} / ${m.labels[0]}`),
      ...m.labels.map((l) => `${l} TTFT`),
    ],
    rows: m.prefill.map((r) => [
      fmtContext(r.context),
      ...r.tokensPerSecond.map(fmtTokPerSec),
      ...r.ratios.slice(1).map((ratio, i) => `${fmtRatio(ratio)}${r.verdicts[i + 1] === 'same' ? ' same' : ''}`),
      ...r.ttftSeconds.map(fmtMs),
    ]),
  };
}

export function ratioTable(r: RatioMatrix): TableModel {
  return {
    header: ['Context', ...r.concurrency.map(String)],
    rows: r.rows.map((row, i) => [fmtContext(r.contexts[i], r.contexts), ...row.map((c) => c.text)]),
  };
}

export function deltasTable(m: ComparisonModel): TableModel {
  const others = m.labels.slice(1);
  return {
    header: [
      'Context',
      'Requests at once',
      ...m.labels.map((l) => `${l} status`),
      ...m.labels.map((l) => `${l} total tok/s`),
      ...others.map((l) => `${l} vs ${m.labels[0]}`),
      ...m.labels.map((l) => `${l} TTFT`),
    ],
    rows: m.deltas.map((d) => [
      fmtContext(d.context),
      String(d.concurrency),
      ...d.statuses,
      ...d.totalTexts,
      ...d.changeTexts.slice(1),
      ...d.ttfts.map(fmtMs),
    ]),
  };
}

export const deltasCaption = (m: ComparisonModel): string =>
  `Each measurement side by side; the change is against ${m.labels[0]}, wherever both have a figure (the statuses beside it). With repeated cells on both sides, ± is the 95% confidence interval and the change is called significant only when its interval excludes zero; with one measurement, a change within the band of the two windows' own noise is the same.`;
export const ratioCaption = (m: ComparisonModel): string =>
  `Total tok/s of each session over ${m.labels[0]}, wherever both cells have a figure; a side that is not Valid is named beside the ratio, and Valid pairs are the headline. Above 1.00× is faster than ${m.labels[0]}, below is slower; "same" is within the noise.`;
export const VERDICT_CAPTION =
  'Total tok/s of every cell both sessions measured. "The same" is a difference within the noise: with repeated cells, Welch’s test at 95%; with one measurement, the 95% band of the two windows’ own variation, at least ±5%.';

/** A prefill series' name in the overlaid chart: the letter, which the title list at the top explains. */
export const prefillSeriesName = (label: string): string => `${label} prompt tok/s`;

export const prefillCaption = (m: ComparisonModel): string =>
  `Prompt tok/s by context length, and each session over ${m.labels[0]} ("same": within the prefills' own noise, at least ±5%; docs/repeats-and-targets.md).`;
