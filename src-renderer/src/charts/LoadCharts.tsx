/**
 * A load run's two charts (docs/load.md), filling in pass by pass: throughput against the
 * offered rate (achieved req/s, output tok/s on the right) and latency against it (TTFT p50 and
 * p99, time between tokens p50). Every axis starts at zero with round ticks (scale.ts).
 */
import { memo, useMemo } from 'react';
import type { Layout, Trace } from 'plotly.js-cartesian-dist-min';
import { type LoadChartPoint, loadChartPoints } from '#shared/report/load-model';
import { fmtTick, zeroScale } from '#shared/report/scale';
import type { LoadRateResult } from '#shared/session/schema-load';
import { fmtMs, fmtMsPrecise, fmtRate, fmtTokPerSec } from '../format';
import { Plot } from './Plot';
import { chartColors, useDarkTheme } from './theme';

const HEIGHT = 280;

const ticks = (max: number) => {
  const s = zeroScale(max);
  return { range: [0, s.max], tickvals: s.ticks, ticktext: s.ticks.map(fmtTick) };
};

const most = (values: (number | null)[]): number => Math.max(0, ...values.map((v) => v ?? 0));

function layoutOf(dark: boolean, points: LoadChartPoint[], y: string, y2: string, max1: number, max2: number): Layout {
  const c = chartColors(dark);
  const axis = { color: c.text, gridcolor: c.grid, zerolinecolor: c.grid };
  return {
    paper_bgcolor: c.paper,
    plot_bgcolor: c.paper,
    font: { color: c.text, size: 13 },
    margin: { l: 70, r: 70, t: 10, b: 50 },
    legend: { orientation: 'h', y: 1.14, x: 0 },
    xaxis: { ...axis, title: { text: 'Offered rate (req/s)' }, ...ticks(most(points.map((p) => p.offeredRate))) },
    yaxis: { ...axis, title: { text: y }, ...ticks(max1) },
    yaxis2: { ...axis, title: { text: y2 }, overlaying: 'y', side: 'right', showgrid: false, ...ticks(max2) },
    hovermode: 'closest',
  };
}

function line(
  name: string,
  points: LoadChartPoint[],
  y: (number | null)[],
  text: (p: LoadChartPoint, i: number) => string,
  style: { color: string; dash?: string; axis2?: boolean },
): Trace {
  return {
    type: 'scatter',
    mode: 'lines+markers',
    name,
    x: points.map((p) => p.offeredRate),
    y,
    text: points.map(text),
    hovertemplate: '%{text}<extra></extra>',
    line: { color: style.color, width: 2, dash: style.dash ?? 'solid' },
    marker: { size: 8 },
    ...(style.axis2 ? { yaxis: 'y2' } : {}),
  };
}

export const LoadThroughputChart = memo(function LoadThroughputChart({ results }: { results: LoadRateResult[] }) {
  const dark = useDarkTheme();
  const { data, layout, points } = useMemo(() => {
    const points = loadChartPoints(results);
    const c = chartColors(dark);
    const achieved = points.map((p) => p.achievedRate);
    const tok = points.map((p) => p.outputTokensPerSecond);
    return {
      points,
      data: [
        line('Achieved req/s', points, achieved, (p) => `${p.label}: ${fmtRate(p.achievedRate)} req/s achieved`, {
          color: c.line1,
        }),
        line('Output tok/s', points, tok, (p) => `${p.label}: ${fmtTokPerSec(p.outputTokensPerSecond)} output tok/s`, {
          color: c.line2,
          dash: 'dot',
          axis2: true,
        }),
      ],
      layout: layoutOf(dark, points, 'Achieved req/s', 'Output tok/s', most(achieved), most(tok)),
    };
  }, [results, dark]);
  if (points.length === 0) return <p className="empty">No passes yet: each rate appears here as it ends.</p>;
  return (
    <Plot
      data={data}
      layout={layout}
      height={HEIGHT}
      label={`Throughput against offered rate: ${points.length} passes`}
      testId="load-throughput-chart"
    />
  );
});

export const LoadLatencyChart = memo(function LoadLatencyChart({ results }: { results: LoadRateResult[] }) {
  const dark = useDarkTheme();
  const { data, layout, points } = useMemo(() => {
    const points = loadChartPoints(results);
    const c = chartColors(dark);
    const ms = (v: number | null) => (v === null ? null : v * 1000);
    const p50 = points.map((p) => ms(p.ttftP50));
    const p99 = points.map((p) => ms(p.ttftP99));
    const tbt = points.map((p) => ms(p.tbtP50));
    return {
      points,
      data: [
        line('TTFT p50 (ms)', points, p50, (p) => `${p.label}: TTFT p50 ${fmtMs(p.ttftP50)}`, { color: c.line1 }),
        line('TTFT p99 (ms)', points, p99, (p) => `${p.label}: TTFT p99 ${fmtMs(p.ttftP99)}`, {
          color: c.line1,
          dash: 'dash',
        }),
        line('TBT p50 (ms)', points, tbt, (p) => `${p.label}: time between tokens p50 ${fmtMsPrecise(p.tbtP50)}`, {
          color: c.line2,
          dash: 'dot',
          axis2: true,
        }),
      ],
      layout: layoutOf(dark, points, 'TTFT (ms)', 'Time between tokens (ms)', most([...p50, ...p99]), most(tbt)),
    };
  }, [results, dark]);
  if (points.length === 0) return <p className="empty">No passes yet: latency at each rate appears here as it ends.</p>;
  return (
    <Plot
      data={data}
      layout={layout}
      height={HEIGHT}
      label={`Latency against offered rate: ${points.length} passes`}
      testId="load-latency-chart"
    />
  );
});
