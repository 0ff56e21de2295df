/**
 * The throughput trade-off (trade-off.ts): per-request tok/s against total tok/s, one line per
 * context through its concurrency levels, each point labelled with its requests at once. Both axes
 * start at zero with round ticks (scale.ts), so the slope reads true: a flat stretch is total
 * bought at no cost to one request, a steep one is each request slowing for little more in all.
 */
import { memo, useMemo } from 'react';
import type { Trace } from 'plotly.js-cartesian-dist-min';
import { tradeOffLines } from '#shared/report/trade-off';
import { SERIES_COLORS, fmtTick, zeroScale } from '#shared/report/scale';
import type { DecodeCell } from '#shared/session/schema';
import { STATUS_WORDS } from '#shared/session/status-words';
import { fmtTokPerSec } from '../format';
import { Plot } from './Plot';
import { chartColors, useDarkTheme } from './theme';

const HEIGHT = 320;

const ticks = (max: number) => {
  const s = zeroScale(max);
  return { range: [0, s.max], tickvals: s.ticks, ticktext: s.ticks.map(fmtTick) };
};

export const TradeOffChart = memo(function TradeOffChart({ cells }: { cells: DecodeCell[] }) {
  const dark = useDarkTheme();
  const { lines, data, layout } = useMemo(() => {
    const lines = tradeOffLines(cells);
    const c = chartColors(dark);
    const axis = { color: c.text, gridcolor: c.grid, zerolinecolor: c.grid };
    const all = lines.flatMap((l) => l.points);
    const data: Trace[] = lines.map((l, i) => ({
      type: 'scatter',
      mode: 'lines+markers+text',
      name: `${l.label} context`,
      x: l.points.map((p) => p.total),
      y: l.points.map((p) => p.perRequest),
      // The requests at once beside each point: the order the line runs in.
      customdata: l.points.map((p) => p.concurrency),
      texttemplate: '%{customdata}',
      textposition: 'top right',
      textfont: { color: c.text, size: 11 },
      text: l.points.map(
        (p) =>
          `${l.label} context × ${p.concurrency} at once: ${fmtTokPerSec(p.total)} tok/s total, ${fmtTokPerSec(p.perRequest)} tok/s per request${p.status === 'valid' ? '' : ` (${STATUS_WORDS[p.status]})`}`,
      ),
      hovertemplate: '%{text}<extra></extra>',
      line: { color: SERIES_COLORS[i % SERIES_COLORS.length], width: 2 },
      marker: { size: 8 },
    }));
    return {
      lines,
      data,
      layout: {
        paper_bgcolor: c.paper,
        plot_bgcolor: c.paper,
        font: { color: c.text, size: 13 },
        margin: { l: 70, r: 30, t: 10, b: 50 },
        legend: { orientation: 'h', y: 1.12, x: 0 },
        xaxis: {
          ...axis,
          title: { text: 'Total tok/s (all requests)' },
          ...ticks(Math.max(0, ...all.map((p) => p.total))),
        },
        yaxis: {
          ...axis,
          title: { text: 'Per request tok/s' },
          ...ticks(Math.max(0, ...all.map((p) => p.perRequest))),
        },
        hovermode: 'closest',
      },
    };
  }, [cells, dark]);
  if (lines.length === 0) return <p className="empty">No decode cells with figures yet.</p>;
  return (
    <Plot
      data={data}
      layout={layout}
      height={HEIGHT}
      label={`Trade-off chart: per-request tok/s against total tok/s, ${lines.length} ${lines.length === 1 ? 'context' : 'contexts'}`}
      testId="trade-off-chart"
    />
  );
});
