/** Results, laid out like the reference report: title, blocks, prefill chart, heatmap, table, detail. */
import { LoadResults } from './LoadResults';
import { cellKey } from '#shared/cell-key';
import { useMemo } from 'react';
import { metricContextOf, metricLabel, metricUnavailable } from '#shared/report/cell-metrics';
import { medianOnly } from '#shared/report/slo';
import { SIMULATED_NOTE, buildReportModel } from '#shared/report/report-model';
import type { Session } from '#shared/session/schema';
import { statusSourceOf } from '#shared/session/status-words';
import { Heatmap } from '../../charts/Heatmap';
import { buildHeatmap } from '../../charts/heatmap-model';
import { PrefillChart } from '../../charts/PrefillChart';
import { TradeOffChart } from '../../charts/TradeOffChart';
import { basename } from '../../path';
import { useApp } from '../../store';
import { compareSessions, openSession, openSweep, publishSite, saveSession } from '../../store/actions';
import { Block, Empty } from '../../components/ui';
import { openFilePicker } from '../../components/FilePicker';
import { CapacityTable } from './CapacityTable';
import { ExportMenu } from './ExportMenu';
import { Glance } from './Glance';
import { CellDetail } from './CellDetail';
import { HeatmapControls, useGpuPrice, useTargets } from './HeatmapControls';
import { MeasurementsTable } from './MeasurementsTable';
import { ModelTable } from '../../components/ModelTable';
import { ComparisonView } from '../compare/ComparisonView';

export function ResultsView() {
  const session = useApp((s) => s.session);
  const meta = useApp((s) => s.sessionMeta);
  const openError = useApp((s) => s.openError);
  const recent = useApp((s) => s.recentFiles);
  const selected = useApp((s) => s.selectedCell);
  const select = useApp((s) => s.selectCell);
  const lastExport = useApp((s) => s.lastExport);
  const showComparison = useApp((s) => s.showComparison);
  // The way back only from a session the comparison holds (or from none), not from an unrelated one.
  const hasComparison = useApp(
    (s) => s.comparison !== null && (!s.session || s.comparison.entries.some((e) => e.file === s.sessionMeta.file)),
  );
  const setOpenError = useApp((s) => s.setOpenError);
  const setShowComparison = useApp((s) => s.setShowComparison);
  // Export writes what is in front: with the comparison shown, its own buttons export it.
  const canExport = meta.hasSession && !showComparison;
  const isLoad = Boolean(session?.load);

  return (
    <section aria-labelledby="results-title" data-testid="view-results">
      <div className="view-head toolbar">
        <h1 id="results-title" className="sr-only">
          Results
        </h1>
        <button type="button" onClick={openFilePicker} data-testid="open-file">
          Open…
        </button>
        <button type="button" onClick={() => void saveSession(false)} disabled={!meta.hasSession} data-testid="save">
          Save
        </button>
        <button type="button" onClick={() => void saveSession(true)} disabled={!meta.hasSession} data-testid="save-as">
          Save as…
        </button>
        <ExportMenu canExport={canExport} isLoad={isLoad} />
        <button type="button" onClick={() => void openSweep()} data-testid="open-sweep">
          Open sweep…
        </button>
        <button type="button" onClick={() => void compareSessions()} data-testid="compare-sessions">
          Compare sessions…
        </button>
        <button
          type="button"
          onClick={() => void publishSite()}
          data-testid="publish-site"
          title="Build a static results site from a folder of runs (the same as File > Publish Site…)"
        >
          Publish site…
        </button>
        {hasComparison && !showComparison && (
          <button type="button" onClick={() => setShowComparison(true)} data-testid="show-comparison">
            Back to the comparison
          </button>
        )}
        {meta.saveError && <span className="error">{meta.saveError}</span>}
        {lastExport && (
          <span className="muted" data-testid="last-export">
            Exported {basename(lastExport)}
          </span>
        )}
      </div>
      {showComparison && <ComparisonView />}
      {!showComparison && openError && (
        <div className="failure" role="alert" data-testid="open-error">
          <h2>This file could not be opened</h2>
          <p>{openError.message}</p>
          <button type="button" onClick={() => setOpenError(null)} data-testid="dismiss-open-error">
            Dismiss
          </button>
        </div>
      )}
      {!showComparison && !session && (
        <Empty title="No results yet" testId="results-empty">
          <p>
            Run a matrix from the Run view, or open a file (Ctrl+O) or drop one onto this window: a .speedmatrix.json
            session, a speed test matrix report saved as text, or llm-inference-bench&apos;s results JSON. To compare
            runs, open a sweep folder (Open sweep…) or choose two or more sessions (Compare sessions…).
          </p>
          {recent.length > 0 && (
            <>
              <h3>Recent files</h3>
              <ul className="recent">
                {recent.map((f) => (
                  <li key={f}>
                    <button type="button" className="link" onClick={() => void openSession(f)} title={f}>
                      {basename(f)}
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </Empty>
      )}
      {!showComparison && session && <Report session={session} selected={selected} onSelect={select} />}
      {!showComparison && session && recent.length > 0 && (
        <details className="reach">
          <summary>Open recent</summary>
          <ul className="recent" data-testid="recent-files">
            {recent.map((f) => (
              <li key={f}>
                <button type="button" className="link" onClick={() => void openSession(f)} title={f}>
                  {basename(f)}
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/** The report model (the same one as the Markdown, HTML and PDF exports), laid out for the screen. */
function Report({
  session,
  selected,
  onSelect,
}: {
  session: Session;
  selected: string | null;
  onSelect: (k: string | null) => void;
}) {
  const metric = useApp((s) => s.heatmapMetric);
  const price = useGpuPrice();
  const targets = useTargets();
  const report = useMemo(
    () => buildReportModel(session, { targets: targets.set ?? undefined }),
    [session, targets.set],
  );
  const ctx = useMemo(
    () => metricContextOf(session, price.price, price.currency),
    [session, price.price, price.currency],
  );
  const heat = useMemo(
    () =>
      buildHeatmap(report.decode.contexts, report.decode.concurrency, session.cells, [], {
        metric,
        ctx,
        targets: targets.set ? { set: targets.set, medians: medianOnly(session) } : null,
      }),
    [report, session, metric, ctx, targets.set],
  );
  const unavailable = metricUnavailable(session, metric, ctx);
  return (
    <article className="report" data-testid="report">
      <header className="report-head">
        <p className="kicker">
          {report.kicker}
          {report.simulated ? ' · simulated' : ''}
        </p>
        <h2 className="report-title" data-testid="report-title">
          {report.title}
        </h2>
        <p className="subtitle">{report.engineLine}</p>
        <p className="subtitle">{report.matrixLine}</p>
        {report.simulated && <p className="sim-note">{SIMULATED_NOTE}</p>}
        {report.origin && <p className="muted">{report.origin}</p>}
      </header>
      <Glance items={report.glance} />
      <div className="blocks">
        {report.blocks.map((b) => (
          <Block
            key={b.title}
            title={b.title}
            rows={b.rows.map((r): [string, string] => [r.label, r.value])}
            testId={`block-${b.title.toLowerCase()}`}
          />
        ))}
      </div>
      <section className="block">
        <h3>Launch command</h3>
        <pre className="command" data-testid="launch-command">
          {report.launch ?? report.launchMissing}
        </pre>
      </section>
      {report.load ? (
        <LoadResults section={report.load} results={session.load?.results ?? []} />
      ) : (
        <MatrixResults
          session={session}
          report={report}
          heat={heat}
          unavailable={unavailable}
          ctx={ctx}
          controls={{ price, targets }}
          selected={selected}
          onSelect={onSelect}
        />
      )}
    </article>
  );
}

/** The matrix's sections: prefill, the decode heatmap, targets, the selected cell and all measurements. */
function MatrixResults({
  session,
  report,
  heat,
  unavailable,
  ctx,
  controls,
  selected,
  onSelect,
}: {
  session: Session;
  report: ReturnType<typeof buildReportModel>;
  heat: ReturnType<typeof buildHeatmap>;
  unavailable: string | null;
  /** What the metrics are computed with (the price per GPU-hour), for saying which of them this session lacks. */
  ctx: ReturnType<typeof metricContextOf>;
  /** The report's own price and targets state, shared with the heatmap's controls. */
  controls: { price: ReturnType<typeof useGpuPrice>; targets: ReturnType<typeof useTargets> };
  selected: string | null;
  onSelect: (k: string | null) => void;
}) {
  const metric = useApp((s) => s.heatmapMetric);
  const setMetric = useApp((s) => s.setHeatmapMetric);
  const { price, targets } = controls;
  const selectedCell = selected ? (session.cells.find((c) => cellKey(c) === selected) ?? null) : null;
  return (
    <>
      <section>
        <h3>Prefill</h3>
        <p className="muted">{report.prefillCaption}</p>
        <PrefillChart points={session.prefill} />
        {report.prefillNotes.length > 0 && (
          <ul className="muted" data-testid="prefill-notes">
            {report.prefillNotes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
      </section>
      <section>
        <h3>Sustained decode</h3>
        <HeatmapControls
          metric={metric}
          onMetric={setMetric}
          price={price}
          targets={targets}
          unavailable={(m) => metricUnavailable(session, m, ctx)}
        />
        {session.cells.length === 0 ? (
          <p className="empty">No decode cells in this session yet.</p>
        ) : unavailable ? (
          <p className="empty" data-testid="metric-unavailable">
            {unavailable}
          </p>
        ) : (
          <Heatmap
            model={heat}
            selected={selected}
            onSelect={(k) => onSelect(k === selected ? null : k)}
            statusSource={statusSourceOf(session)}
            caption={metric === 'total' ? undefined : metricLabel(metric, ctx)}
          />
        )}
        {report.repeatNote && (
          <p className="muted" data-testid="repeat-note">
            {report.repeatNote}
          </p>
        )}
        <p className="muted">{report.ttftNote} Select a cell for its detail.</p>
      </section>
      {session.cells.length > 0 && (
        <section data-testid="trade-off">
          <h3>Throughput trade-off</h3>
          <p className="muted">
            Per request tok/s against total tok/s, one line per context; each point is labelled with its requests at
            once. Where a line falls steeply, more requests at once buy little more in all and slow each one.
          </p>
          <TradeOffChart cells={session.cells} />
        </section>
      )}
      {report.capacity && <CapacityTable section={report.capacity} />}
      {selectedCell && <CellDetail session={session} cell={selectedCell} onClose={() => onSelect(null)} />}
      <MeasurementsTable rows={report.measurementRows} caption={report.measurementsCaption} onSelect={onSelect} />
      {report.latency && (
        <section data-testid="latency-section">
          <h3>Latency percentiles</h3>
          <p className="muted">{report.latencyCaption}</p>
          <ModelTable table={report.latency} testId="latency-table" />
        </section>
      )}
    </>
  );
}
