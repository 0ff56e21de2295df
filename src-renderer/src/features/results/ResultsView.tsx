/** Results, laid out like the reference report: title, blocks, prefill chart, heatmap, table, detail. */
import { cellKey } from '@shared/cell-key';
import { useMemo } from 'react';
import { TTFT_NOTE } from '@shared/report/report-model';
import type { Session } from '@shared/session/schema';
import { Heatmap } from '../../charts/Heatmap';
import { buildHeatmap } from '../../charts/heatmap-model';
import { PrefillChart } from '../../charts/PrefillChart';
import { NONE, fmtContext, fmtContextRange, fmtCount, fmtGigabytes, fmtSeconds } from '../../format';
import { basename } from '../../path';
import { useApp } from '../../store';
import { exportReport, openSession, saveSession } from '../../store/actions';
import { Block, Empty } from '../../components/ui';
import { openFilePicker } from '../../components/FilePicker';
import { CellDetail } from './CellDetail';
import { MeasurementsTable } from './MeasurementsTable';

export function ResultsView() {
  const session = useApp((s) => s.session);
  const meta = useApp((s) => s.sessionMeta);
  const openError = useApp((s) => s.openError);
  const recent = useApp((s) => s.recentFiles);
  const selected = useApp((s) => s.selectedCell);
  const select = useApp((s) => s.selectCell);
  const lastExport = useApp((s) => s.lastExport);

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
        <button type="button" onClick={() => void exportReport('markdown')} disabled={!meta.hasSession} data-testid="export-markdown">
          Export Markdown
        </button>
        <button type="button" onClick={() => void exportReport('pdf')} disabled={!meta.hasSession} data-testid="export-pdf">
          Export PDF
        </button>
        {meta.saveError && <span className="error">{meta.saveError}</span>}
        {lastExport && (
          <span className="muted" data-testid="last-export">
            Exported {basename(lastExport)}
          </span>
        )}
      </div>
      {openError && (
        <div className="failure" role="alert" data-testid="open-error">
          <h2>This file could not be opened</h2>
          <p>{openError.message}</p>
        </div>
      )}
      {!session && (
        <Empty title="No results yet" testId="results-empty">
          <p>Run a matrix from the Run view, or open a session file (Ctrl+O), or drop a .speedmatrix.json file onto this window.</p>
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
      {session && <Report session={session} selected={selected} onSelect={select} />}
      {session && recent.length > 0 && (
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

function Report({ session, selected, onSelect }: { session: Session; selected: string | null; onSelect: (k: string | null) => void }) {
  const rc = session.runConfig;
  const gpu = session.hardware.gpus[0];
  const model = session.server.servedModel ?? session.server.model ?? 'unknown model';
  const heat = useMemo(() => buildHeatmap(rc.contexts.length ? rc.contexts : [...new Set(session.cells.map((c) => c.context))], rc.concurrency.length ? rc.concurrency : [...new Set(session.cells.map((c) => c.concurrency))], session.cells), [session, rc]);
  const selectedCell = selected ? session.cells.find((c) => cellKey(c) === selected) ?? null : null;
  const conc = rc.concurrency;
  const prefillAt = session.prefill.map((p) => fmtContext(p.context)).join(', ');
  return (
    <article className="report" data-testid="report">
      <header className="report-head">
        <p className="kicker">Speed test matrix{session.simulated ? ' · simulated' : ''}</p>
        <h2 className="report-title" data-testid="report-title">
          {model} on {gpu ? gpu.name : 'unknown GPU'}
          {gpu?.vramBytes ? ` ${fmtGigabytes(gpu.vramBytes).replace(' ', '')}` : ''}
        </h2>
        <p className="subtitle">{[session.engine.name, session.engine.version, session.engine.quantization].filter(Boolean).join(' · ')}</p>
        <p className="subtitle">
          {rc.contexts.length} contexts ({fmtContextRange(rc.contexts)}) × {conc.length} concurrency levels ({conc.length ? `${Math.min(...conc)}–${Math.max(...conc)}` : NONE})
          {prefillAt ? ` · prefill at ${prefillAt}` : ''}
        </p>
        {session.simulated && <p className="sim-note">Simulated: these figures come from SpeedMatrix's simulated vLLM, not real hardware.</p>}
      </header>
      <div className="blocks">
        <Block
          title="Hardware"
          rows={[
            ['Type', session.hardware.gpuType ?? NONE],
            ['GPU', gpu ? `${session.hardware.gpus.length > 1 ? `${session.hardware.gpus.length} × ` : ''}${gpu.name}` : NONE],
            ['VRAM', fmtGigabytes(gpu?.vramBytes)],
            ['OS', session.hardware.os?.platform ?? NONE],
          ]}
        />
        <Block
          title="Engine"
          rows={[
            ['Engine', session.engine.name],
            ['Version', session.engine.version ?? NONE],
            ['Quantization', session.engine.quantization ?? NONE],
            ['Backend', session.engine.backend ?? NONE],
            ['Repository', session.engine.repository ?? NONE],
            ['Build', session.engine.build ?? NONE],
            ['Commit', session.engine.commit ?? NONE],
          ]}
        />
        <Block
          title="Run"
          rows={[
            ['Served model', session.server.servedModel ?? NONE],
            ['Revision', session.server.revision ?? NONE],
            ['Benchmark tool', rc.benchmarkTool],
            ['Decode test', rc.decodeTestMode === 'fixed-duration' ? 'Fixed duration' : rc.decodeTestMode],
            ['Prefill mode', rc.prefillMode === 'during-decode-warmup' ? 'Measured during decode warm-up' : rc.prefillMode],
            ['Time per measurement', fmtSeconds(rc.secondsPerMeasurement).replace('.0 s', ' s')],
            ['Max output', `${fmtCount(rc.maxOutputTokens)} tokens`],
            ['KV budget', session.kvBudget.tokens != null ? `${fmtCount(session.kvBudget.tokens)} tokens (${session.kvBudget.source})` : NONE],
          ]}
        />
      </div>
      <section className="block">
        <h3>Launch command</h3>
        <pre className="command" data-testid="launch-command">
          {session.server.display || NONE}
        </pre>
      </section>
      <section>
        <h3>Prefill</h3>
        <p className="muted">prompt tok/s by context length</p>
        <PrefillChart points={session.prefill} />
      </section>
      <section>
        <h3>Sustained decode</h3>
        {session.cells.length === 0 ? (
          <p className="empty">No decode cells in this session yet.</p>
        ) : (
          <Heatmap model={heat} selected={selected} onSelect={(k) => onSelect(k === selected ? null : k)} />
        )}
        <p className="muted">{TTFT_NOTE} Select a cell for its detail.</p>
      </section>
      {selectedCell && <CellDetail session={session} cell={selectedCell} onClose={() => onSelect(null)} />}
      <MeasurementsTable session={session} onSelect={onSelect} />
    </article>
  );
}
