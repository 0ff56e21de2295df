/**
 * A comparison in one line, and one line per context: "B is 3.30× faster at 16 requests
 * (A: Requests queued), the same at 1 and 2." Read from the ratio matrix, so the verdict,
 * "Cells won" and the heatmap all follow the one rule of cell-difference.ts.
 */
import type { Verdict } from './cell-difference';
import { fmtContext, plural } from './format';

/** One cell of a comparison's ratio matrix (compare-model.ts): B against A. */
export interface RatioCell {
  context: number;
  concurrency: number;
  /** B / A of total tok/s, whenever both cells have a figure. */
  ratio: number | null;
  /** Faster, slower or the same by the one rule (cell-difference.ts); null without a ratio. */
  verdict: Verdict | null;
  /** True when both cells are Valid: the headline ratios. */
  headline: boolean;
  /** The status of a side that is not Valid ("A: Requests queued"), or why there is no ratio ("not in B"). */
  note: string | null;
  /** "1.23×", "1.01× same", or the note alone without a ratio. */
  figure: string;
  /** The figure and the note: "3.30× · A: Requests queued". */
  text: string;
  fill: string;
  title: string;
}

/** "1", "1 and 2", "1, 2 and 4". */
export function fmtList(items: readonly (string | number)[]): string {
  const words = items.map(String);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

const times = (r: number): string => `${r.toFixed(2)}×`;
const percent = (r: number): string => `${Math.round((1 - r) * 100)}%`;

/** "3.30×" or "1.80–3.30×" faster; "20%" or "10–20%" slower. */
function spread(ratios: readonly number[], fmt: (r: number) => string, faster: boolean): string {
  const lo = Math.min(...ratios);
  const hi = Math.max(...ratios);
  const [from, to] = faster ? [lo, hi] : [hi, lo];
  return fmt(from) === fmt(to) ? fmt(from) : `${fmt(from).replace(/[×%]$/, '')}–${fmt(to)}`;
}

const requests = (cells: readonly RatioCell[]): string =>
  `${fmtList(cells.map((c) => c.concurrency))} request${cells.length === 1 && cells[0].concurrency === 1 ? '' : 's'}`;

/** The statuses of the sides that were not Valid, with where: "(A: Requests queued at 16)". */
function notes(cells: readonly RatioCell[]): string {
  const marked = cells.filter((c) => c.note);
  if (!marked.length) return '';
  const one = marked.length === 1 && cells.length === 1;
  return ` (${marked.map((c) => (one ? c.note : `${c.note} at ${c.concurrency}`)).join('; ')})`;
}

/** "B is 3.30× faster at 16 requests (A: Requests queued), the same at 1 and 2"; null when nothing compares. */
function cellsVerdict(cells: readonly RatioCell[], lb: string): string | null {
  const faster = cells.filter((c) => c.verdict === 'faster');
  const slower = cells.filter((c) => c.verdict === 'slower');
  const same = cells.filter((c) => c.verdict === 'same');
  const parts: string[] = [];
  const ratios = (cs: readonly RatioCell[]) => cs.map((c) => c.ratio as number);
  if (faster.length) parts.push(`${spread(ratios(faster), times, true)} faster at ${requests(faster)}${notes(faster)}`);
  if (slower.length)
    parts.push(`${spread(ratios(slower), percent, false)} slower at ${requests(slower)}${notes(slower)}`);
  if (same.length) parts.push(`the same at ${requests(same)}${notes(same)}`);
  return parts.length ? `${lb} is ${parts.join(', ')}` : null;
}

/** One line per context of a ratio matrix: "At 8K context, B is …". */
export function contextVerdicts(rows: readonly RatioCell[][], contexts: readonly number[], lb: string): string[] {
  return rows.flatMap((row, i) => {
    const v = cellsVerdict(row, lb);
    return v ? [`At ${fmtContext(contexts[i])} context, ${v}.`] : [];
  });
}

/** The whole comparison in one line: "B is faster than A in 2 cells (up to 3.30×), the same in 4." */
export function overallVerdict(rows: readonly RatioCell[][], la: string, lb: string): string {
  const cells = rows.flat();
  const compared = cells.filter((c) => c.verdict !== null);
  const faster = compared.filter((c) => c.verdict === 'faster');
  const slower = compared.filter((c) => c.verdict === 'slower');
  const none = cells.length - compared.length;
  const unmeasured = none ? `; ${plural(none, 'cell')} without a figure on both sides` : '';
  if (!compared.length) return `${lb} and ${la} have no cell with a figure on both sides to compare.`;
  if (!faster.length && !slower.length)
    return `${lb} and ${la}: no difference beyond the noise in any of the ${compared.length} cells both measured${unmeasured}.`;
  const parts: string[] = [];
  const ratios = (cs: readonly RatioCell[]) => cs.map((c) => c.ratio as number);
  if (faster.length)
    parts.push(`faster in ${plural(faster.length, 'cell')} (up to ${times(Math.max(...ratios(faster)))})`);
  if (slower.length)
    parts.push(`slower in ${plural(slower.length, 'cell')} (by up to ${percent(Math.min(...ratios(slower)))})`);
  const same = compared.length - faster.length - slower.length;
  if (same) parts.push(`the same in ${plural(same, 'cell')}`);
  return `${lb} against ${la}: ${parts.join(', ')}${unmeasured}.`;
}

export interface Regression {
  /** "B / A". */
  label: string;
  context: number;
  concurrency: number;
  ratio: number;
  /** The status of a side that is not Valid, as in the ratio matrix. */
  note: string | null;
}

/**
 * The regression gate (`speedmatrix compare --max-regression`): every cell of a later session
 * slower than the first by more than `limit` (a fraction) and outside the noise, by the one rule.
 */
export function regressions(decode: readonly { label: string; rows: RatioCell[][] }[], limit: number): Regression[] {
  return decode.flatMap((r) =>
    r.rows
      .flat()
      .filter((c) => c.verdict === 'slower' && c.ratio !== null && c.ratio < 1 - limit)
      .map((c) => ({
        label: r.label,
        context: c.context,
        concurrency: c.concurrency,
        ratio: c.ratio as number,
        note: c.note,
      })),
  );
}

/** "B / A at 8K context × 16: 0.31× (69% slower; B: Requests queued)". */
export function fmtRegression(g: Regression): string {
  const note = g.note ? `; ${g.note}` : '';
  return `${g.label} at ${fmtContext(g.context)} context × ${g.concurrency}: ${times(g.ratio)} (${percent(g.ratio)} slower${note})`;
}
