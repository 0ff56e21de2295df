/**
 * The sessions compared on one chart (overlay.ts): total tok/s against requests at once, one line
 * per session per context, as measured or per GPU, per watt or per GPU price per hour, with the
 * sessions ranked by their best figure; and their trade-off lines (per request against total tok/s)
 * overlaid. A session's colour is the same in both charts; a context is a dash style.
 */
import { memo, useMemo, useState } from 'react';
import type { Trace } from 'plotly.js-cartesian-dist-min';
import type { ComparisonModel } from '#shared/report/compare-model';
import {
  NORMALISATIONS,
  NORMALISATION_LABELS,
  type Normalisation,
  type OverlaySession,
  defaultOverlayContext,
  normalisationUnavailable,
  normalisedUnit,
  overlayContexts,
  overlayRanking,
  overlaySeries,
  overlaySessionName,
} from '#shared/report/overlay';
import { GPU_PRICE_HINT } from '#shared/report/price';
import { SERIES_COLORS, fmtTick, zeroScale } from '#shared/report/scale';
import { Plot } from '../../charts/Plot';
import { chartColors, useDarkTheme } from '../../charts/theme';
import { Field, invalidProps } from '../../components/ui';
import { fmtContext, fmtTokPerSec } from '../../format';
import { useApp } from '../../store';
import { parsePrice } from '../../store/report-view-slice';

const DASHES = ['solid', 'dash', 'dot', 'dashdot', 'longdash', 'longdashdot'];
const ALL = 'all';

const colorOf = (sessionIndex: number): string => SERIES_COLORS[sessionIndex % SERIES_COLORS.length];

function axisTicks(max: number) {
  const s = zeroScale(max);
  return { range: [0, s.max], tickvals: s.ticks, ticktext: s.ticks.map(fmtTick) };
}

function useChartBase() {
  const dark = useDarkTheme();
  return useMemo(() => {
    const c = chartColors(dark);
    return {
      axis: { color: c.text, gridcolor: c.grid, zerolinecolor: c.grid, automargin: true },
      layout: {
        paper_bgcolor: c.paper,
        plot_bgcolor: c.paper,
        font: { color: c.text, size: 13 },
        margin: { l: 70, r: 20, t: 10, b: 50 },
        // Shown for one line too: the legend is where a line says whose it is.
        showlegend: true,
        legend: { orientation: 'h', y: -0.25, x: 0, yanchor: 'top' },
        hovermode: 'closest',
      },
    };
  }, [dark]);
}

const NormalisedChart = memo(function NormalisedChart(props: {
  sessions: OverlaySession[];
  mode: Normalisation;
  price: ReturnType<typeof parsePrice>;
  context: number | null;
}) {
  const base = useChartBase();
  const { sessions, mode, price, context } = props;
  const { series, data, layout } = useMemo(() => {
    const contexts = overlayContexts(sessions);
    const series = overlaySeries(sessions, mode, price, context);
    const data: Trace[] = series.map((l) => ({
      type: 'scatter',
      mode: 'lines+markers',
      name: l.name,
      x: l.x,
      y: l.y,
      text: l.text,
      hovertemplate: '%{text}<extra></extra>',
      line: { color: colorOf(l.sessionIndex), width: 2, dash: DASHES[contexts.indexOf(l.context) % DASHES.length] },
      marker: { size: 7 },
    }));
    const xs = [...new Set(series.flatMap((l) => l.x))].sort((a, b) => a - b);
    const layout = {
      ...base.layout,
      xaxis: { ...base.axis, type: 'log', title: { text: 'Requests at once (log scale)' }, tickvals: xs, ticktext: xs },
      yaxis: {
        ...base.axis,
        title: { text: `Total ${normalisedUnit(mode, price)}` },
        ...axisTicks(Math.max(0, ...series.flatMap((l) => l.y))),
      },
    };
    return { series, data, layout };
  }, [sessions, mode, price, context, base]);
  if (series.length === 0) return <p className="empty">No session has a figure to draw here.</p>;
  return (
    <Plot
      data={data}
      layout={layout}
      height={360}
      label={`Total ${normalisedUnit(mode, price)} against requests at once: ${series.length} lines`}
      testId="overlay-chart"
    />
  );
});

const TradeOffOverlay = memo(function TradeOffOverlay(props: { sessions: OverlaySession[]; context: number | null }) {
  const base = useChartBase();
  const { sessions, context } = props;
  const { count, data, layout } = useMemo(() => {
    const contexts = overlayContexts(sessions);
    const lines = sessions.flatMap((s, i) =>
      s.lines.filter((l) => context === null || l.context === context).map((l) => ({ s, i, l })),
    );
    const data: Trace[] = lines.map(({ s, i, l }) => ({
      type: 'scatter',
      mode: 'lines+markers',
      name: `${overlaySessionName(s)} · ${l.contextLabel}`,
      x: l.points.map((p) => p.total),
      y: l.points.map((p) => p.perRequest),
      text: l.points.map(
        (p) =>
          `${s.label} at ${fmtContext(l.context)} × ${p.concurrency}: ${fmtTokPerSec(p.total)} tok/s total, ${fmtTokPerSec(p.perRequest)} tok/s per request`,
      ),
      hovertemplate: '%{text}<extra></extra>',
      line: { color: colorOf(i), width: 2, dash: DASHES[contexts.indexOf(l.context) % DASHES.length] },
      marker: { size: 7 },
    }));
    const points = lines.flatMap(({ l }) => l.points);
    const layout = {
      ...base.layout,
      xaxis: {
        ...base.axis,
        title: { text: 'Total tok/s (all requests)' },
        ...axisTicks(Math.max(0, ...points.map((p) => p.total))),
      },
      yaxis: {
        ...base.axis,
        title: { text: 'Per request tok/s' },
        ...axisTicks(Math.max(0, ...points.map((p) => p.perRequest))),
      },
    };
    return { count: lines.length, data, layout };
  }, [sessions, context, base]);
  if (count === 0) return <p className="empty">No decode cells with figures here.</p>;
  return (
    <Plot
      data={data}
      layout={layout}
      height={360}
      label={`Trade-off of ${sessions.map((s) => s.label).join(', ')}: per-request tok/s against total tok/s, ${count} lines`}
      testId="overlay-trade-off-chart"
    />
  );
});

/** The normalisation switch, the context picker and the price field (the Results view's, remembered). */
function OverlayControls(props: {
  mode: Normalisation;
  onMode: (m: Normalisation) => void;
  contexts: number[];
  context: number | null;
  onContext: (c: number | null) => void;
}) {
  const priceText = useApp((s) => s.gpuPriceText);
  const setPriceText = useApp((s) => s.setGpuPriceText);
  const priceError = priceText.trim() !== '' && parsePrice(priceText) === null ? `Give ${GPU_PRICE_HINT}.` : null;
  return (
    <div className="heatmap-controls" data-testid="overlay-controls">
      <Field id="overlay-normalisation" label="Normalise" help="Per GPU ranks runs on different GPU counts fairly.">
        <select
          id="overlay-normalisation"
          value={props.mode}
          onChange={(e) => props.onMode(e.target.value as Normalisation)}
          aria-describedby="overlay-normalisation-help"
        >
          {NORMALISATIONS.map((n) => (
            <option key={n} value={n}>
              {NORMALISATION_LABELS[n]}
            </option>
          ))}
        </select>
      </Field>
      <Field id="overlay-context" label="Context" help="One context at a time, or every one (a dash style each).">
        <select
          id="overlay-context"
          value={props.context ?? ALL}
          onChange={(e) => props.onContext(e.target.value === ALL ? null : Number(e.target.value))}
          aria-describedby="overlay-context-help"
        >
          {props.contexts.map((c) => (
            <option key={c} value={c}>
              {fmtContext(c, props.contexts)}
            </option>
          ))}
          <option value={ALL}>Every context</option>
        </select>
      </Field>
      {props.mode === 'per-price' && (
        <Field
          id="overlay-gpu-price"
          label="GPU price per hour"
          help="For one GPU, in US dollars unless you name the currency; a server's price counts every GPU it used."
          error={priceError}
        >
          <input
            id="overlay-gpu-price"
            placeholder="2.50"
            value={priceText}
            onChange={(e) => setPriceText(e.target.value)}
            {...invalidProps('overlay-gpu-price', priceError)}
          />
        </Field>
      )}
    </div>
  );
}

export function OverlayCompare({ m }: { m: ComparisonModel }) {
  const sessions = m.overlay;
  const contexts = useMemo(() => overlayContexts(sessions), [sessions]);
  const [mode, setMode] = useState<Normalisation>('measured');
  const [picked, setPicked] = useState<number | null | undefined>(undefined);
  const context = picked === undefined ? defaultOverlayContext(sessions) : picked;
  const priceText = useApp((s) => s.gpuPriceText);
  const price = useMemo(() => parsePrice(priceText), [priceText]);
  const missing = sessions.flatMap((s) => normalisationUnavailable(s, mode, price) ?? []);
  const ranking = useMemo(() => overlayRanking(sessions, mode, price, context), [sessions, mode, price, context]);
  if (contexts.length === 0) return null;
  return (
    <section data-testid="overlay">
      <h3>Sessions overlaid</h3>
      <p className="muted">
        Total tok/s against requests at once, a line per session and context, each named by its hardware (GPU × the GPUs
        its server used) and the tool that measured. Per GPU divides by those GPUs, per watt by the server&apos;s mean
        power draw, per price per hour by the GPU price × those GPUs.
      </p>
      <OverlayControls mode={mode} onMode={setMode} contexts={contexts} context={context} onContext={setPicked} />
      <NormalisedChart sessions={sessions} mode={mode} price={price} context={context} />
      {missing.length > 0 && (
        <ul className="muted" data-testid="overlay-missing">
          {missing.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      <h4>Best of each session ({NORMALISATION_LABELS[mode].toLowerCase()})</h4>
      <ul className="overlay-ranking" data-testid="overlay-ranking">
        {ranking.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
      <h4>Trade-off overlaid</h4>
      <p className="muted">
        What one request gets against what the server delivers in all, as measured, as requests at once grow.
      </p>
      <TradeOffOverlay sessions={sessions} context={context} />
    </section>
  );
}
