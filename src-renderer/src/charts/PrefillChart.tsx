/**
 * Prefill: prompt tok/s and TTFT against context, context axis log-scaled, values on hover.
 * Both value axes start at zero and end at a round number with round ticks (scale.ts), as the
 * reports' charts do.
 */
import { memo, useMemo } from 'react';
import { buildPrefillSeries } from '#shared/report/matrix-model';
import { fmtTick, zeroScale } from '#shared/report/scale';
import type { PrefillResult } from '#shared/session/schema';
import { fmtContext, fmtMs, fmtTokPerSec } from '../format';
import { Plot } from './Plot';
import { chartColors, useDarkTheme } from './theme';

export const PrefillChart = memo(function PrefillChart({
  points,
  height = 300,
}: {
  points: PrefillResult[];
  height?: number;
}) {
  const dark = useDarkTheme();
  // Memoized: a new array each render would make Plotly redraw on every render of the parent.
  const valid = useMemo(() => buildPrefillSeries(points), [points]);
  const { data, layout } = useMemo(() => {
    const c = chartColors(dark);
    const x = valid.map((p) => p.promptTokens ?? p.context);
    const labels = valid.map((p) => fmtContext(p.context));
    // Ticks closer than ~10% on the log axis (251K next to 256K) would print over each other.
    const tickText = labels.map((l, i) => (i > 0 && Math.log10(x[i] / x[i - 1]) < 0.04 ? '' : l));
    // automargin: a wide tick label ("1500K") widens the margin rather than pushing the axis title out of the chart.
    const axis = { color: c.text, gridcolor: c.grid, zerolinecolor: c.grid, automargin: true };
    const ttftMs = valid.map((p) => (p.ttftSeconds ?? 0) * 1000);
    const ticks = (max: number) => {
      const s = zeroScale(max);
      return { range: [0, s.max], tickvals: s.ticks, ticktext: s.ticks.map(fmtTick) };
    };
    return {
      data: [
        {
          type: 'scatter' as const,
          mode: 'lines+markers',
          name: 'Prompt tok/s',
          x,
          y: valid.map((p) => p.tokensPerSecond),
          text: valid.map((p, i) => `${labels[i]} context: ${fmtTokPerSec(p.tokensPerSecond)} tok/s`),
          hovertemplate: '%{text}<extra></extra>',
          line: { color: c.line1, width: 3 },
          marker: { size: 9 },
        },
        {
          type: 'scatter' as const,
          mode: 'lines+markers',
          name: 'TTFT (ms)',
          x,
          y: ttftMs,
          yaxis: 'y2',
          text: valid.map((p, i) => `${labels[i]} context: ${fmtMs(p.ttftSeconds)} TTFT`),
          hovertemplate: '%{text}<extra></extra>',
          line: { color: c.line2, width: 2, dash: 'dot' },
          marker: { size: 7, symbol: 'diamond' },
        },
      ],
      layout: {
        paper_bgcolor: c.paper,
        plot_bgcolor: c.paper,
        font: { color: c.text, size: 13 },
        margin: { l: 70, r: 70, t: 10, b: 50 },
        legend: { orientation: 'h', y: 1.12, x: 0 },
        xaxis: {
          ...axis,
          type: 'log',
          title: { text: 'Context (tokens, log scale)' },
          tickvals: x,
          ticktext: tickText,
        },
        yaxis: {
          ...axis,
          title: { text: 'Prompt tok/s' },
          ...ticks(Math.max(0, ...valid.map((p) => p.tokensPerSecond))),
        },
        yaxis2: {
          ...axis,
          title: { text: 'TTFT (ms)' },
          overlaying: 'y',
          side: 'right',
          showgrid: false,
          ...ticks(Math.max(0, ...ttftMs)),
        },
        hovermode: 'closest',
      },
    };
  }, [valid, dark]);
  if (valid.length === 0)
    return <p className="empty">No prefill points yet: they appear as the run measures each context.</p>;
  return (
    <Plot
      data={data}
      layout={layout}
      height={height}
      label={`Prefill chart: ${valid.length} contexts`}
      testId="prefill-chart"
    />
  );
});
