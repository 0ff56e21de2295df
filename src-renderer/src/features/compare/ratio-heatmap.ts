/**
 * A comparison's ratio matrix (src-shared/report/compare-model.ts) as the app's heatmap model,
 * so it is drawn by the same Heatmap component as a session's matrix, in the report's colours
 * (divergingColor: red slower, grey the same, green faster).
 */
import { cellKey } from '#shared/cell-key';
import type { DeltaRow, RatioMatrix } from '#shared/report/compare-model';
import { textColorOn } from '#shared/report/matrix-model';
import type { HeatCell, HeatmapModel } from '../../charts/heatmap-model';

/**
 * Each ratio with, under it, the side that is not Valid ("A: Requests queued") or, with repeated
 * cells, whether the difference is more than noise ("B is 3.1% faster, 95% CI …").
 */
export function ratioHeatmap(r: RatioMatrix, deltas: readonly DeltaRow[]): HeatmapModel {
  const welch = new Map(
    deltas.map((d) => [cellKey(d), d.differences[r.against]?.method === 'welch' ? d.changeTexts[r.against] : '']),
  );
  const ratios = r.rows.flat().flatMap((c) => (c.ratio === null ? [] : [c.ratio]));
  const rows = r.rows.map((row) =>
    row.map((c): HeatCell => {
      const base = {
        key: cellKey(c),
        context: c.context,
        concurrency: c.concurrency,
        status: null,
        line2: c.ratio !== null && c.note ? c.note : (welch.get(cellKey(c)) ?? ''),
        flag: null,
        cell: null,
        reason: c.title,
        missesTargets: false,
      };
      // A cell without a ratio says why ("not in B", "A: Looped") on the theme's status colour.
      if (c.ratio === null)
        return { ...base, kind: 'status', line1: c.text, line2: '', background: null, foreground: null };
      return { ...base, kind: 'value', line1: c.figure, background: c.fill, foreground: textColorOn(c.fill) };
    }),
  );
  return {
    contexts: r.contexts,
    concurrency: r.concurrency,
    rows,
    max: ratios.length ? Math.max(...ratios) : null,
    metric: 'total',
    statusesShown: [],
  };
}
