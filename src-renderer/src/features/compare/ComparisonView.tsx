/**
 * A sweep folder or sessions compared, from the same models as the CLI's sweep.md and compare
 * reports: the variants side by side, the best variant for every cell, the ratio heatmaps
 * against the first, prefill, and every measurement side by side. A variant opens in Results
 * as an ordinary session; the comparison exports as Markdown or HTML.
 */
import { cellKey } from '#shared/cell-key';
import type { ComparisonEntryView, ComparisonView as Comparison } from '#shared/ipc/contract';
import type { ComparisonFormat } from '#shared/ipc/forms';
import {
  type ComparisonModel,
  comparisonKicker,
  deltasCaption,
  deltasTable,
  differencesTable,
  prefillCaption,
  prefillTable,
  ratioCaption,
  VERDICT_CAPTION,
} from '#shared/report/compare-model';
import { LOAD_COMPARE_CAPTION, type LoadComparison } from '#shared/report/load-compare';
import { divergingColor } from '#shared/report/matrix-model';
import { simulatedBanner } from '#shared/report/report-model';
import { BEST_CAPTION, START_CAPTION, type SweepModel, TOO_FEW_RAN, bestLabel } from '#shared/report/sweep-model';
import { START_TIME_LABEL } from '#shared/report/start-time';
import { useMemo } from 'react';
import { Heatmap } from '../../charts/Heatmap';
import { fmtContext, tokPerSec } from '../../format';
import { useApp } from '../../store';
import { exportComparison, openSession } from '../../store/actions';
import { ModelTable } from '../../components/ModelTable';
import { OverlayCompare } from './OverlayCompare';
import { PrefillCompareChart } from './PrefillCompareChart';
import { ratioHeatmap } from './ratio-heatmap';
import { SweepJobs } from './SweepJobs';

const EXPORTS: [ComparisonFormat, string][] = [
  ['markdown', 'Markdown'],
  ['html', 'HTML'],
  ['pdf', 'PDF'],
];

export function ComparisonView() {
  const comparison = useApp((s) => s.comparison);
  const error = useApp((s) => s.comparisonError);
  const loading = useApp((s) => s.comparisonLoading);
  const hasSession = useApp((s) => s.sessionMeta.hasSession);
  const setShow = useApp((s) => s.setShowComparison);
  return (
    <article className="report comparison" data-testid="comparison" aria-busy={loading}>
      <div className="toolbar view-head">
        {EXPORTS.map(([format, label]) => (
          <button
            key={format}
            type="button"
            onClick={() => void exportComparison(format)}
            disabled={!comparison}
            data-testid={`export-comparison-${format}`}
          >
            Export comparison {label}
          </button>
        ))}
        {hasSession && (
          <button type="button" onClick={() => setShow(false)} data-testid="back-to-session">
            Back to the open session
          </button>
        )}
        {loading && <span className="muted">Reading the sessions…</span>}
      </div>
      {error && (
        <div className="failure" role="alert" data-testid="comparison-error">
          <h2>This comparison could not be opened</h2>
          <p>{error}</p>
        </div>
      )}
      {comparison && <ComparisonBody view={comparison} />}
    </article>
  );
}

function ComparisonBody({ view }: { view: Comparison }) {
  const m = view.comparison;
  const banner = m && simulatedBanner(m.simulated);
  return (
    <>
      <header className="report-head">
        <p className="kicker">
          {view.source === 'sweep' ? 'Speed test matrix sweep' : comparisonKicker({ load: m?.load ?? null })}
        </p>
        <h2 className="report-title" data-testid="comparison-title">
          {view.title}
        </h2>
        {view.dir && (
          <p className="subtitle" data-testid="comparison-dir">
            {view.dir}
          </p>
        )}
        {banner && <p className="sim-note">{banner}</p>}
      </header>
      <SweepJobs view={view} />
      {m && <Verdicts m={m} />}
      <section>
        <h3>{view.source === 'sweep' ? 'Variants' : 'Sessions'}</h3>
        <ModelTable
          table={view.sweep.variants}
          testId="comparison-variants"
          rowClass={(i) => (view.entries[i].problem ? 'bad-row' : undefined)}
          actions={{ header: 'Open', cell: (i) => <OpenEntry entry={view.entries[i]} /> }}
        />
      </section>
      {view.sweep.starts && (
        <section>
          <h3>{START_TIME_LABEL}</h3>
          <p className="hint">{START_CAPTION}</p>
          <ModelTable table={view.sweep.starts} testId="comparison-starts" />
        </section>
      )}
      <BestPerCell sweep={view.sweep} entries={view.entries} />
      {m ? <Compared m={m} /> : <p className="empty">{TOO_FEW_RAN}</p>}
    </>
  );
}

/** One line per comparison and per context, as at the top of every export. */
function Verdicts({ m }: { m: ComparisonModel }) {
  if (m.load)
    return (
      <section data-testid="comparison-verdict">
        <h3>Verdict</h3>
        <ul className="verdict">
          {m.load.verdicts.map((v) => (
            <li key={v}>
              <strong>{v}</strong>
            </li>
          ))}
        </ul>
      </section>
    );
  return (
    <section data-testid="comparison-verdict">
      <h3>Verdict</h3>
      <p className="muted">{VERDICT_CAPTION}</p>
      <ul className="verdict">
        {m.decode.map((r) => (
          <li key={r.label} data-label={r.label}>
            <strong>{r.verdict}</strong>
            {r.contextVerdicts.length > 0 && (
              <ul>
                {r.contextVerdicts.map((v) => (
                  <li key={v}>{v}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function OpenEntry({ entry }: { entry: ComparisonEntryView }) {
  if (!entry.file) return <span className="muted">—</span>;
  return (
    <button
      type="button"
      className="link"
      onClick={() => void openSession(entry.file as string)}
      title={entry.file}
      data-testid={`open-entry-${entry.label}`}
    >
      Open {entry.label} in Results
    </button>
  );
}

/** For each cell, the variant with the highest total tok/s among Valid cells (the sweep model's choice). */
function BestPerCell({ sweep, entries }: { sweep: SweepModel; entries: ComparisonEntryView[] }) {
  if (sweep.best.contexts.length === 0) return null;
  return (
    <section>
      <h3>Best variant per cell</h3>
      <p className="muted">{BEST_CAPTION}</p>
      <div className="heatmap-wrap">
        <table className="heatmap" data-testid="best-per-cell">
          <caption>
            best variant and its total tok/s · rows are context length, columns are simultaneous requests
          </caption>
          <thead>
            <tr>
              <th scope="col">Context</th>
              {sweep.best.concurrency.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sweep.best.rows.map((row, i) => (
              <tr key={sweep.best.contexts[i]}>
                <th scope="row">{fmtContext(sweep.best.contexts[i], sweep.best.contexts)}</th>
                {row.map((b) => {
                  const e = b.entry === null ? null : entries[b.entry];
                  const who = bestLabel(sweep, b);
                  const tied = b.tied.length > 0;
                  return (
                    <td
                      key={cellKey(b)}
                      className={`hm-cell ${e ? 'best-cell' : 'hm-status'}`}
                      data-cell={cellKey(b)}
                      data-best={e ? who : ''}
                    >
                      <div
                        className="hm-btn"
                        title={
                          !e
                            ? 'No variant has a Valid cell here'
                            : tied
                              ? `${who}: the same within the noise`
                              : `${e.label}: ${e.name}`
                        }
                      >
                        <span className="l1">
                          {e ? (tied ? `${who} (the same)` : `${e.label} · ${e.name}`) : 'no Valid cell'}
                        </span>
                        {e && <span className="l2">{tokPerSec(b.totalTokensPerSecond)}</span>}
                      </div>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted" data-testid="wins">
        Cells won (beyond the noise): {entries.map((e, i) => `${e.label} ${sweep.wins[i]}`).join(' · ')}
      </p>
    </section>
  );
}

const RATIO_KEY = (
  <>
    <span
      className="ramp"
      style={{
        background: `linear-gradient(90deg, ${divergingColor(0.5)}, ${divergingColor(1)}, ${divergingColor(2)})`,
      }}
    />
    <span>0.50× (half as fast) · 1.00× (the same) · 2.00× (twice as fast) and beyond</span>
  </>
);

function Compared({ m }: { m: ComparisonModel }) {
  const differing = useMemo(() => differencesTable(m), [m]);
  const marked = useMemo(() => new Set(m.differences.flatMap((d, i) => (d.differs ? [i] : []))), [m]);
  const onlyDiffering = useMemo(
    () => ({ header: differing.header, rows: differing.rows.filter((_, i) => marked.has(i)) }),
    [differing, marked],
  );
  return (
    <>
      <section>
        <h3>Settings that differ</h3>
        {onlyDiffering.rows.length ? (
          <ModelTable table={onlyDiffering} testId="comparison-differences" />
        ) : (
          <p className="muted">The sessions record the same settings.</p>
        )}
        <details className="reach">
          <summary>Every setting</summary>
          <ModelTable table={differing} testId="comparison-settings" marked={marked} />
        </details>
      </section>
      {m.load ? <LoadCompared load={m.load} /> : <MatrixCompared m={m} />}
    </>
  );
}

/** Load sessions side by side: each workload and answer, then the passes matched by what was offered. */
function LoadCompared({ load }: { load: LoadComparison }) {
  return (
    <section data-testid="comparison-load">
      <h3>Load</h3>
      <ModelTable table={load.workloads} testId="comparison-load-workloads" />
      <p className="muted">{LOAD_COMPARE_CAPTION}</p>
      <ModelTable table={load.passes} testId="comparison-load-passes" />
    </section>
  );
}

function MatrixCompared({ m }: { m: ComparisonModel }) {
  return (
    <>
      {m.decode.map((r) => (
        <section key={r.label} data-testid="ratio-map" data-label={r.label}>
          <h3>Sustained decode: {r.label}</h3>
          <p className="muted">{ratioCaption(m)}</p>
          <Heatmap model={ratioHeatmap(r, m.deltas)} caption={`${r.label} total tok/s`} scaleKey={RATIO_KEY} />
        </section>
      ))}
      <OverlayCompare m={m} />
      <section>
        <h3>Prefill</h3>
        <p className="muted">{prefillCaption(m)}</p>
        {m.prefill.length ? (
          <>
            <PrefillCompareChart m={m} />
            <ModelTable table={prefillTable(m)} testId="comparison-prefill" />
          </>
        ) : (
          <p className="muted">No prefill measurements in these sessions.</p>
        )}
      </section>
      <section>
        <h3>Every measurement side by side</h3>
        <p className="muted">{deltasCaption(m)}</p>
        {m.deltas.length ? (
          <ModelTable table={deltasTable(m)} testId="comparison-deltas" />
        ) : (
          <p className="muted">No decode measurements in these sessions.</p>
        )}
      </section>
    </>
  );
}
