/** One decode cell: TTFT and time-between-tokens distributions, telemetry, energy, reason, evidence. */
import { cellKey } from '#shared/cell-key';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DecodeCell, LatencyStats, Session } from '#shared/session/schema';
import type { CellSamples } from '#shared/ipc/contract';
import { fmtTick } from '#shared/report/scale';
import { histogramAxis } from '../../charts/histogram-axis';
import { Plot } from '../../charts/Plot';
import { Timeline } from '../../charts/Timeline';
import { type RequestRecord, requestsView } from '#shared/report/requests';
import { cellTimeline } from '#shared/report/timeline';
import { chartColors, useDarkTheme } from '../../charts/theme';
import {
  NONE,
  cellName,
  fmtCount,
  fmtGigabytes,
  fmtJoulesPerToken,
  fmtMegahertz,
  fmtMs,
  fmtMsPrecise,
  fmtPercent,
  fmtQueueEvidence,
  fmtSeconds,
  fmtTemperature,
  fmtWatts,
  statusWord,
  toneClass,
  tokPerSec,
  withFailed,
} from '../../format';
import { useApp } from '../../store';
import { fetchCellRequests } from '../../store/actions';
import { Block } from '../../components/ui';
import { ModelTable } from '../../components/ModelTable';
import { fmtCellThroughput, repetitionSummary } from '#shared/report/confidence';

/** Per-request TTFT and mean time between tokens, in milliseconds, from the cell's own samples. */
function requestDistributions(records: RequestRecord[]): { ttftMs: number[]; tbtMs: number[] } {
  const ttftMs: number[] = [];
  const tbtMs: number[] = [];
  for (const q of records) {
    if (q.ttft !== null) ttftMs.push(q.ttft * 1000);
    if (q.tokensPerSecond !== null) tbtMs.push(1000 / q.tokensPerSecond);
  }
  return { ttftMs, tbtMs };
}

export function CellDetail({ session, cell, onClose }: { session: Session; cell: DecodeCell; onClose: () => void }) {
  const dark = useDarkTheme();
  const samples = useCellRequests(cell);
  // The cell as the session file holds it, with its samples back: one model for the app and the report.
  const view = useMemo(() => requestsView({ ...cell, ...samples.data }), [cell, samples.data]);
  const dist = useMemo(() => requestDistributions(view.pooled), [view]);
  const timelines = useMemo(
    () =>
      view.sets.flatMap((set) => {
        const model = cellTimeline(set.requests, set.windowSeconds, cell.timeBetweenTokens?.p50 ?? null);
        return model ? [{ set, model }] : [];
      }),
    [view, cell.timeBetweenTokens],
  );
  const hist = useMemo(() => {
    const c = chartColors(dark);
    return {
      ttft: histogramPlot(dist.ttftMs, c.line1, 'TTFT (ms)', c),
      tbt: histogramPlot(dist.tbtMs, c.line2, 'Time between tokens, per request mean (ms)', c),
    };
  }, [dist, dark]);
  // Opened from the table, the detail may be below the fold: bring it into view and take focus, so
  // a keyboard or screen-reader user lands on what Enter opened. From the heatmap the grid keeps
  // the focus and its place, so the arrow keys go on to the next cell (Escape returns there too).
  const heading = useRef<HTMLHeadingElement>(null);
  const key = cellKey(cell);
  useEffect(() => {
    if (document.activeElement?.closest('.heatmap')) return;
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, [key]);
  return (
    <section className="cell-detail" aria-label={`Detail of ${cellName(cell)}`} data-testid="cell-detail">
      <div className="view-head">
        <h3 ref={heading} tabIndex={-1} data-testid="cell-detail-title">
          {cellName(cell)}: <span className={`legend-word ${toneClass(cell.status)}`}>{statusWord(cell.status)}</span>
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {cell.reason && (
        <p className="reason" data-testid="cell-reason">
          {cell.reason}
        </p>
      )}
      <CellFigureBlocks cell={cell} session={session} />
      <RepetitionsOf cell={cell} />
      {samples.loading ? (
        <p className="muted">Loading the per-request timings…</p>
      ) : samples.error ? (
        <p className="error">Could not load the per-request timings: {samples.error}</p>
      ) : dist.ttftMs.length > 0 ? (
        <>
          {view.label && (
            <p className="muted" data-testid="requests-source">
              {view.label}
            </p>
          )}
          <div className="two-col">
            <Plot
              data={hist.ttft.data}
              layout={hist.ttft.layout}
              height={220}
              label={`TTFT distribution over ${dist.ttftMs.length} requests`}
              testId="ttft-hist"
            />
            <Plot
              data={hist.tbt.data}
              layout={hist.tbt.layout}
              height={220}
              label={`Time between tokens over ${dist.tbtMs.length} requests`}
              testId="tbt-hist"
            />
          </div>
        </>
      ) : (
        <p className="muted">
          No per-request timings in this cell{cell.status === 'valid' ? '' : ': it was not measured'}.
        </p>
      )}
      {timelines.length > 0 && (
        <section>
          <h4>Timeline of the window&apos;s requests</h4>
          {timelines.length === 1 && view.label && <p className="muted">{view.label}</p>}
          {timelines.map(({ set, model }) => (
            <div key={set.repetition ?? 0} data-testid="timeline-repetition">
              {set.label && <p className="muted">{set.label}</p>}
              <Timeline
                model={model}
                label={`Timeline of the ${model.bars.length} requests of ${cellName(cell)}${set.repetition === null ? '' : `, repetition ${set.repetition}`}`}
              />
            </div>
          ))}
        </section>
      )}
      <CellEvidence cell={cell} />
    </section>
  );
}

/**
 * A latency histogram from zero to a round top with round ticks, so 7.870 and 7.878 ms fall in one
 * bar on a 0-8 ms axis instead of filling an axis that runs from 7.87 to 7.878 ms.
 */
function histogramPlot(values: number[], color: string, title: string, c: ReturnType<typeof chartColors>) {
  const axis = { color: c.text, gridcolor: c.grid };
  const s = histogramAxis(values);
  return {
    data: [
      {
        type: 'histogram' as const,
        x: values,
        xbins: { start: 0, end: s.top, size: s.binSize },
        marker: { color },
        hovertemplate: '%{x} ms: %{y} requests<extra></extra>',
      },
    ],
    layout: {
      paper_bgcolor: c.paper,
      plot_bgcolor: c.paper,
      font: { color: c.text, size: 12 },
      margin: { l: 50, r: 10, t: 10, b: 45 },
      xaxis: {
        ...axis,
        title: { text: title },
        range: [0, s.top],
        tickvals: s.ticks,
        ticktext: s.ticks.map(fmtTick),
      },
      yaxis: { ...axis, title: { text: 'Requests' } },
      bargap: 0.05,
    },
  };
}

/** A cell's figures and the GPU's telemetry during it. */
function CellFigureBlocks({ session, cell }: { session: Session; cell: DecodeCell }) {
  const t = cell.telemetry;
  const stats = (s: LatencyStats | null, fmt: (v: number) => string): string =>
    s ? `p50 ${fmt(s.p50)} · p90 ${fmt(s.p90)} · p99 ${fmt(s.p99)} · mean ${fmt(s.mean)}` : NONE;
  const sessionSamples = useTelemetryDuring(session, cell);
  return (
    <div className="blocks">
      <Block
        title="Figures"
        rows={[
          ['Total', withFailed(`${fmtCellThroughput(cell)} tok/s`, cell.failedRequests)],
          ['Per request', tokPerSec(cell.perRequestTokensPerSecond)],
          ['Fair share (total / requests)', tokPerSec(cell.fairShareTokensPerSecond)],
          [
            'Failed requests',
            cell.failedRequests != null ? `${fmtCount(cell.failedRequests)} of ${fmtCount(cell.windowRequests)}` : NONE,
          ],
          ['Queue (once a second)', fmtQueueEvidence(cell.queueEvidence)],
          [
            'Longest stall',
            cell.stall
              ? `${fmtSeconds(cell.stall.gapSeconds)} (over ${fmtSeconds(cell.stall.thresholdSeconds)})`
              : NONE,
          ],
          ['TTFT', stats(cell.ttft, fmtMs)],
          ['Time between tokens', stats(cell.timeBetweenTokens, fmtMsPrecise)],
          ['Completed requests', fmtCount(cell.completedRequests)],
          ['Output tokens', cell.outputTokens != null ? `${fmtCount(cell.outputTokens)} tokens` : NONE],
          ['Measured for', fmtSeconds(cell.windowSeconds)],
          ['Prompt', cell.promptTokens != null ? `${fmtCount(cell.promptTokens)} tokens` : NONE],
        ]}
      />
      <Block
        title="Telemetry during the cell"
        rows={[
          ['Energy per token', fmtJoulesPerToken(t?.energyPerTokenJoules)],
          ['GPU utilization', fmtPercent(t?.avgGpuUtilization)],
          ['Power', fmtWatts(t?.avgPowerWatts)],
          ['SM clock', fmtMegahertz(t?.avgSmClockHz)],
          ['Memory used', fmtGigabytes(t?.avgMemoryUsedBytes)],
          ['Temperature', fmtTemperature(t?.avgTemperatureC)],
          ['Throttle reasons', t?.throttleReasons.length ? t.throttleReasons.join(', ') : NONE],
          ['Samples', sessionSamples > 0 ? `${sessionSamples} samples` : 'no GPU telemetry recorded'],
        ]}
      />
    </div>
  );
}

/** What a cell that looped or failed left as evidence: the repeating passage and the server's log around it. */
function CellEvidence({ cell }: { cell: DecodeCell }) {
  return (
    <>
      {cell.evidence?.loopExcerpt && (
        <section>
          <h4>Loop evidence</h4>
          <p className="muted">
            Repeating passage
            {cell.evidence.loopPeriodChars ? ` (period ${fmtCount(cell.evidence.loopPeriodChars)} characters)` : ''}
            {cell.evidence.loopStream ? ` in the ${cell.evidence.loopStream} stream` : ''}:
          </p>
          <pre className="evidence" data-testid="loop-evidence">
            {cell.evidence.loopExcerpt}
          </pre>
        </section>
      )}
      {cell.evidence && cell.evidence.logLines.length > 0 && (
        <section>
          <h4>Server log around it</h4>
          <pre className="log-excerpt">{cell.evidence.logLines.join('\n')}</pre>
        </section>
      )}
    </>
  );
}

/** A repeated cell's count, 95% interval and each repetition's figures; nothing for a cell measured once. */
function RepetitionsOf({ cell }: { cell: DecodeCell }) {
  const summary = repetitionSummary(cell);
  if (!summary) return null;
  return (
    <section data-testid="cell-repetitions">
      <h4>Repetitions ({summary.count})</h4>
      <p className="muted">{summary.interval}</p>
      <ModelTable table={summary} testId="repetitions-table" />
    </section>
  );
}

/**
 * The cell's per-request samples, asked of the core when the detail opens: the session the page
 * holds has none (they are most of a large session's size). Asked again only when this cell is
 * measured again or the session is replaced, not for every other cell that finishes.
 */
function useCellRequests(cell: DecodeCell): { data: CellSamples | null; loading: boolean; error: string | null } {
  const replaced = useApp((s) => s.sessionMeta.replaced);
  const has = useApp((s) => (s.requestCounts[cellKey(cell)] ?? 0) > 0);
  const [state, setState] = useState<{ key: string; data: CellSamples | null; error: string | null } | null>(null);
  const key = `${cellKey(cell)}@${replaced}@${cell.finishedAt ?? ''}`;
  useEffect(() => {
    if (!has) return;
    let live = true;
    void fetchCellRequests(cell).then((r) => {
      if (live) setState({ key, data: r.ok ? r.data : null, error: r.ok ? null : r.error });
    });
    return () => {
      live = false;
    };
    // The cell is named by key: its object changes on every session refetch.
  }, [key, has]);
  if (!has) return { data: null, loading: false, error: null };
  if (state?.key === key) return { data: state.data, loading: false, error: state.error };
  // The same cell measured again: keep showing the samples we have until the new ones arrive.
  const sameCell = state?.key.split('@')[0] === key.split('@')[0];
  return sameCell && state
    ? { data: state.data, loading: false, error: null }
    : { data: null, loading: true, error: null };
}

/** How many session telemetry samples fall inside the cell's time span. */
function useTelemetryDuring(session: Session, cell: DecodeCell): number {
  return useMemo(() => {
    const tel = session.telemetry;
    if (!tel || !cell.startedAt || !cell.finishedAt) return 0;
    const t0 = Date.parse(session.createdAt);
    const a = (Date.parse(cell.startedAt) - t0) / 1000;
    const b = (Date.parse(cell.finishedAt) - t0) / 1000;
    return tel.t.filter((t) => t >= a && t <= b).length;
  }, [session, cell]);
}
