/**
 * A comparison's ratio matrix (src-shared/report/compare-model.ts) as the app's heatmap model,
 * so it is drawn by the same Heatmap component as a session's matrix, in the report's colours
 * (divergingColor: red slower, grey the same, green faster).
 */
import { cellKey } from '@shared/cell-key';
import type { DeltaRow, RatioMatrix } from '@shared/report/compare-model';
import { textColorOn } from '@shared/report/matrix-model';
import type { HeatCell, HeatmapModel } from '../../charts/heatmap-model';

/** With repeated cells, whether each ratio is more than noise ("B is 3.1% faster, 95% CI …") goes under it. */
export function ratioHeatmap(r: RatioMatrix, deltas: readonly DeltaRow[]): HeatmapModel {
  const significance = new Map(deltas.map((d) => [cellKey(d), d.significance[r.against] ?? '']));
  const ratios = r.rows.flat().flatMap((c) => (c.ratio === null ? [] : [c.ratio]));
  const rows = r.rows.map((row) =>
    row.map((c): HeatCell => {
      const base = {
        key: cellKey(c),
        context: c.context,
        concurrency: c.concurrency,
        status: null,
        line2: significance.get(cellKey(c)) ?? '',
        flag: null,
        cell: null,
        reason: c.title,
        missesTargets: false,
      };
      // A cell without a ratio says why ("A: Requests queued") on the theme's status colour.
      if (c.ratio === null) return { ...base, kind: 'status', line1: c.text, background: null, foreground: null };
      return { ...base, kind: 'value', line1: c.text, background: c.fill, foreground: textColorOn(c.fill) };
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
