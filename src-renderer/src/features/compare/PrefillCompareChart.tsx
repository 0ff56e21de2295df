/**
 * Prefill of the sessions compared, overlaid: prompt tok/s against context (log axis), one line
 * per session in the reports' series colours, the value axis from zero on round ticks (scale.ts).
 */
import { memo, useMemo } from 'react';
import { type ComparisonModel, prefillSeriesName } from '#shared/report/compare-model';
import { SERIES_COLORS, fmtTick, zeroScale } from '#shared/report/scale';
import { Plot } from '../../charts/Plot';
import { chartColors, useDarkTheme } from '../../charts/theme';
import { fmtContext, fmtTokPerSec } from '../../format';

export const PrefillCompareChart = memo(function PrefillCompareChart({ m }: { m: ComparisonModel }) {
  const dark = useDarkTheme();
  const { data, layout } = useMemo(() => {
    const c = chartColors(dark);
    // automargin: a wide tick label ("1500K") widens the margin rather than pushing the axis title out of the chart.
    const axis = { color: c.text, gridcolor: c.grid, zerolinecolor: c.grid, automargin: true };
    const data = m.labels.map((label, i) => {
      const rows = m.prefill.filter((r) => r.tokensPerSecond[i] !== null);
      return {
        type: 'scatter' as const,
        mode: 'lines+markers',
        name: prefillSeriesName(label),
        x: rows.map((r) => r.context),
        y: rows.map((r) => r.tokensPerSecond[i] as number),
        text: rows.map((r) => `${label} at ${fmtContext(r.context)}: ${fmtTokPerSec(r.tokensPerSecond[i])} tok/s`),
        hovertemplate: '%{text}<extra></extra>',
        line: { color: SERIES_COLORS[i % SERIES_COLORS.length], width: 3 },
        marker: { size: 8 },
      };
    });
    const max = Math.max(0, ...m.prefill.flatMap((r) => r.tokensPerSecond.map((v) => v ?? 0)));
    const s = zeroScale(max);
    return {
      data,
      layout: {
        paper_bgcolor: c.paper,
        plot_bgcolor: c.paper,
        font: { color: c.text, size: 13 },
        margin: { l: 70, r: 20, t: 10, b: 50 },
        legend: { orientation: 'h', y: 1.12, x: 0 },
        xaxis: {
          ...axis,
          type: 'log',
          title: { text: 'Context (tokens, log scale)' },
          tickvals: m.prefill.map((r) => r.context),
          ticktext: m.prefill.map((r) => fmtContext(r.context)),
        },
        yaxis: {
          ...axis,
          title: { text: 'Prompt tok/s' },
          range: [0, s.max],
          tickvals: s.ticks,
          ticktext: s.ticks.map(fmtTick),
        },
        hovermode: 'closest',
      },
    };
  }, [m, dark]);
  return (
    <Plot
      data={data}
      layout={layout}
      height={280}
      label={`Prefill of ${m.labels.join(', ')}: prompt tok/s at ${m.prefill.length} contexts`}
      testId="comparison-prefill-chart"
    />
  );
});
