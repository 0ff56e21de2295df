/**
 * Comparing sessions side by side, as data: overlaid prefill, a B / A ratio matrix of total
 * tok/s (only where both cells are Valid), a table of deltas, and the hardware, engine and
 * launch settings with differences marked. Pure: the Markdown and HTML comparisons
 * (src-main/report/compare.ts) and the app's comparison view are all laid out from it.
 */
import type { Session } from '../session/schema';
import { STATUS_WORDS, hasFigure } from '../session/status-words';
import { NONE, fmtContext, fmtCount, fmtGigabytes, fmtMs, fmtTokPerSec } from './format';
import { flagsOf, parseLaunchLine } from './launch-flags';
import { cellKey } from '../cell-key';
import { buildPrefillSeries, cellIndex, divergingColor, matrixAxes, statusColor } from './matrix-model';
import { type TableModel, gpuLabelOf, reportTitle } from './report-model';
import { differenceOf, fmtCellThroughput, fmtDifference, repetitionTotals } from './confidence';

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
}

interface RatioCell {
  context: number;
  concurrency: number;
  /** B / A of total tok/s, only when both cells are Valid. */
  ratio: number | null;
  /** "1.23×", or why there is no ratio ("A: Looped", "not in B"). */
  text: string;
  fill: string;
  title: string;
}

export interface RatioMatrix {
  /** "B / A". */
  label: string;
  /** Index of the session compared with the first. */
  against: number;
  contexts: number[];
  concurrency: number[];
  rows: RatioCell[][];
}

export interface DeltaRow {
  context: number;
  concurrency: number;
  statuses: string[];
  totals: (number | null)[];
  ttfts: (number | null)[];
  /** Change of each session's total over the first, as a fraction (0.1 = +10 %), Valid pairs only. */
  changes: (number | null)[];
  /**
   * With repetitions on both sides (two or more each), whether the change is more than noise:
   * "B is 3.1% faster, 95% CI 1.2–5.0%" or "no significant difference"; null otherwise.
   */
  significance: (string | null)[];
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
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const labelOf = (i: number): string => LETTERS[i] ?? `#${i + 1}`;

/** "1.23×" */
export const fmtRatio = (r: number | null): string => (r === null ? NONE : `${r.toFixed(2)}×`);
/** "+5.2%", "−3.0%" */
export function fmtChange(c: number | null): string {
  if (c === null) return NONE;
  const pct = Math.abs(c * 100).toFixed(1);
  // A change that rounds to zero is no slowdown: "+0.0%", never "−0.0%".
  return `${c >= 0 || Number(pct) === 0 ? '+' : '−'}${pct}%`;
}

function launchFlags(s: Session): Map<string, string> {
  if (s.server.argv.length) return flagsOf(s.server.argv);
  return s.server.display.trim() ? parseLaunchLine(s.server.display).flags : new Map();
}

function launchEnv(s: Session): Record<string, string> {
  if (s.server.argv.length) return s.server.env;
  return s.server.display.trim() ? parseLaunchLine(s.server.display).env : {};
}

const SECRET_FLAGS = new Set(['--api-key', '--hf-token', '--token', '--password']);

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
  add('Run', 'Benchmark tool', (s) => s.runConfig.benchmarkTool);
  add('Run', 'Time per measurement', (s) => `${s.runConfig.secondsPerMeasurement} s`);
  add('Run', 'Max output', (s) => `${fmtCount(s.runConfig.maxOutputTokens)} tokens`);
  add('Run', 'KV cache', (s) => (s.kvBudget.tokens !== null ? `${fmtCount(s.kvBudget.tokens)} tokens` : null));
  add('Run', 'Simulated', (s) => (s.simulated ? 'yes' : 'no'));
  const flags = sessions.map(launchFlags);
  const envs = sessions.map(launchEnv);
  const flagNames = [...new Set(flags.flatMap((f) => [...f.keys()]))].filter((f) => !SECRET_FLAGS.has(f)).sort();
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
    return {
      context,
      tokensPerSecond: tps,
      ttftSeconds: series.map((m) => m.get(context)?.ttftSeconds ?? null),
      ratios: tps.map((v, i) => (i === 0 || v === null || !tps[0] ? null : v / tps[0])),
    };
  });
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
  const rows = contexts.map((ctx) =>
    concurrency.map((c): RatioCell => {
      const ca = ia.get(cellKey({ context: ctx, concurrency: c }));
      const cb = ib.get(cellKey({ context: ctx, concurrency: c }));
      const where = `${fmtContext(ctx)} context × ${c} at once`;
      if (
        ca?.status === 'valid' &&
        cb?.status === 'valid' &&
        ca.totalTokensPerSecond &&
        cb.totalTokensPerSecond !== null
      ) {
        const ratio = cb.totalTokensPerSecond / ca.totalTokensPerSecond;
        return {
          context: ctx,
          concurrency: c,
          ratio,
          text: fmtRatio(ratio),
          fill: divergingColor(ratio),
          title: `${where}: ${lb} ${fmtTokPerSec(cb.totalTokensPerSecond)} / ${la} ${fmtTokPerSec(ca.totalTokensPerSecond)} tok/s = ${fmtRatio(ratio)}`,
        };
      }
      const why = !ca
        ? `not in ${la}`
        : !cb
          ? `not in ${lb}`
          : ca.status !== 'valid'
            ? `${la}: ${STATUS_WORDS[ca.status]}`
            : `${lb}: ${STATUS_WORDS[cb!.status]}`;
      return {
        context: ctx,
        concurrency: c,
        ratio: null,
        text: why,
        fill: statusColor(null),
        title: `${where}: no ratio (${why})`,
      };
    }),
  );
  return { label: `${lb} / ${la}`, against, contexts, concurrency, rows };
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
      return {
        context,
        concurrency,
        statuses: cells.map((c) => (c ? STATUS_WORDS[c.status] : NONE)),
        totals: cells.map((c) => (c && hasFigure(c.status) ? c.totalTokensPerSecond : null)),
        ttfts: cells.map((c) => (c && hasFigure(c.status) ? (c.ttft?.p50 ?? null) : null)),
        changes: cells.map((c, i) =>
          i > 0 &&
          c?.status === 'valid' &&
          base?.status === 'valid' &&
          base.totalTokensPerSecond &&
          c.totalTokensPerSecond !== null
            ? c.totalTokensPerSecond / base.totalTokensPerSecond - 1
            : null,
        ),
        significance: cells.map((c, i) =>
          i > 0 && c?.status === 'valid' && base?.status === 'valid'
            ? fmtDifference(differenceOf(repetitionTotals(base), repetitionTotals(c)), labels[i])
            : null,
        ),
        totalTexts: cells.map((c) => (c && hasFigure(c.status) ? fmtCellThroughput(c) : NONE)),
      };
    });
}

/**
 * The comparison as data. The first session is the baseline; needs at least two. Sessions are
 * called A, B, C… unless `names` says otherwise (a sweep keeps its variants' letters when one
 * did not run).
 */
export function compareSessions(sessions: readonly Session[], names?: readonly string[]): ComparisonModel {
  if (sessions.length < 2) throw new Error('A comparison needs at least two sessions.');
  const labels = sessions.map((_, i) => names?.[i] ?? labelOf(i));
  const base = sessions.map(
    (s) => `${reportTitle(s)}${s.engine.version ? ` · ${s.engine.name} ${s.engine.version}` : ''}`,
  );
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
      ...r.ratios.slice(1).map(fmtRatio),
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
      ...d.changes.slice(1).map((c, i) => d.significance[i + 1] ?? fmtChange(c)),
      ...d.ttfts.map(fmtMs),
    ]),
  };
}

export const deltasCaption = (m: ComparisonModel): string =>
  `Each measurement side by side; the change is against ${m.labels[0]}, for Valid pairs only. With repeated cells on both sides, ± is the 95% confidence interval and the change is called significant only when its interval excludes zero.`;
export const ratioCaption = (m: ComparisonModel): string =>
  `Total tok/s of each session over ${m.labels[0]}, only where both cells are Valid. Above 1.00× is faster than ${m.labels[0]}, below is slower.`;
export const prefillCaption = (m: ComparisonModel): string =>
  `Prompt tok/s by context length, and each session over ${m.labels[0]}.`;
