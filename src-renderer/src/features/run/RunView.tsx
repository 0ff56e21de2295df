/** Run: edit the matrix, preview the plan, start/stop/resume, and watch it fill in. */
import { cellKey } from '#shared/cell-key';
import { useEffect, useMemo } from 'react';
import { Heatmap } from '../../charts/Heatmap';
import { buildHeatmap } from '../../charts/heatmap-model';
import { PrefillChart } from '../../charts/PrefillChart';
import type { PlanView } from '#shared/ipc/contract';
import type { RunPhase } from '#shared/run-progress';
import {
  fmtContext,
  fmtDuration,
  fmtPercent,
  fmtSeconds,
  statusWord,
  tokPerSec,
  cellName,
  plural,
  LIVE_STAGE_WORDS,
  activeRequests,
  timeLeft,
} from '../../format';
import { useApp } from '../../store';
import { reattachRun, refreshPlan, refreshSweepPlan } from '../../store/actions';
import { sweepBusy } from '../../store/sweep-slice';
import { SweepPanel } from './SweepPanel';
import { isRunning, runSession } from '../../store/run-slice';
import { ServerLog } from '../../components/ServerLog';
import { StatusBadge } from '../../components/StatusBadge';
import { MatrixForm } from './MatrixForm';
import { RunActions } from './RunActions';
import { LoadPanel, LoadPhaseBadge } from './LoadPanel';
import { loadBusy } from '../../store/load-slice';

const RUN_MODES = [
  { id: 'matrix', label: 'Matrix', help: 'Contexts × requests at once, each held busy: sustained decode and prefill.' },
  {
    id: 'load',
    label: 'Load',
    help: 'Requests arriving at set rates (or a sweep of them): what the server achieves and at what latency.',
  },
] as const;

const RUN_PHASE_WORDS: Record<RunPhase, string> = {
  idle: 'No run',
  starting: 'Run: starting',
  prefill: 'Run: measuring prefill',
  decode: 'Run: measuring decode',
  done: 'Run: done',
  cancelled: 'Run: stopped',
  failed: 'Run: failed',
};

export function RunView() {
  const form = useApp((s) => s.runForm);
  const plan = useApp((s) => s.plan);
  const planError = useApp((s) => s.planError);
  const phase = useApp((s) => s.runPhase);
  const hasCells = useApp((s) => (runSession(s)?.cells.length ?? 0) > 0);
  const runError = useApp((s) => s.runError);
  const runMessage = useApp((s) => s.runMessage);
  const serverState = useApp((s) => s.server.state);
  const setView = useApp((s) => s.setView);
  const sweeping = useApp((s) => sweepBusy(s.sweep));
  const hasVariants = useApp((s) => s.sweepAxes.length > 0);
  const running = isRunning(phase) || sweeping;
  const mode = useApp((s) => s.runMode);
  const setMode = useApp((s) => s.setRunMode);
  const loading = useApp((s) => loadBusy(s.load));

  // The plan depends on the form and on the server (its KV budget and max length).
  useEffect(() => {
    if (running) return;
    const t = setTimeout(() => void refreshPlan(form), 250);
    return () => clearTimeout(t);
  }, [form, serverState, running]);
  // The sweep's plan counts the same matrix.
  useEffect(() => {
    if (!hasVariants || sweeping) return;
    const t = setTimeout(() => void refreshSweepPlan(), 250);
    return () => clearTimeout(t);
  }, [form, hasVariants, sweeping]);

  const shownRun = !running && hasCells && phase !== 'idle';

  return (
    <section aria-labelledby="run-title" data-testid="view-run">
      <div className="view-head">
        <h1 id="run-title">Run</h1>
        <StatusBadge subject="Server" />
        {mode === 'load' ? (
          <LoadPhaseBadge />
        ) : (
          <span className="badge" data-testid="run-phase" data-phase={phase}>
            {RUN_PHASE_WORDS[phase]}
          </span>
        )}
      </div>
      <div className="kinds" role="radiogroup" aria-label="What to measure" data-testid="run-mode">
        {RUN_MODES.map((m) => (
          <label key={m.id} className={`kind${mode === m.id ? ' on' : ''}`} title={m.help}>
            <input
              type="radio"
              name="run-mode"
              value={m.id}
              checked={mode === m.id}
              disabled={running || loading}
              onChange={() => setMode(m.id)}
            />
            <span>{m.label}</span>
          </label>
        ))}
      </div>
      {serverState !== 'ready' && !running && !hasVariants && (
        <p className="hint">
          Start a server first: the plan needs its KV budget and maximum length.{' '}
          <button type="button" onClick={() => setView('server')}>
            Go to Server
          </button>
        </p>
      )}
      {mode === 'load' ? (
        <LoadPanel otherRunGoing={running} />
      ) : (
        <>
          <MatrixForm running={running} />

          <SweepPanel />
          <RunActions running={running} shownRun={shownRun} />
          {planError && !running && <p className="error">{planError}</p>}
          {plan && !running && !shownRun && <NotRunList plan={plan} />}
          {plan?.notes.map((n) => (
            <p key={n} className="muted">
              {n}
            </p>
          ))}
          {runError && (
            <p className="error" role="alert" data-testid="run-error">
              {runError}
            </p>
          )}
          {runMessage && !runError && <p className="muted">{runMessage}</p>}
          <RemoteLink />

          <RunProgressBar />
          <LiveLine />

          {/* The heatmap takes the width it needs; the prefill chart sits beside it only when there is room. */}
          <div className="run-charts">
            <section className="run-heatmap" data-testid="run-heatmap">
              <h2>
                {running || hasCells ? 'Sustained decode' : 'Plan'}
                <SweepVariantTitle />
              </h2>
              <LiveHeatmap contexts={form.contexts} concurrency={form.concurrency} />
            </section>
            <section className="run-prefill">
              <h2>Prefill</h2>
              <LivePrefill />
            </section>
          </div>
        </>
      )}
      <details className="reach">
        <summary>Server log</summary>
        <ServerLog compact />
      </details>
      <details className="reach">
        <summary>GPU telemetry</summary>
        <p className="muted">
          Live charts are on the Hardware view.{' '}
          <button type="button" onClick={() => setView('hardware')}>
            Open Hardware
          </button>
        </p>
      </details>
    </section>
  );
}

/** Which variant the matrix below belongs to while a sweep runs. */
function SweepVariantTitle() {
  const variant = useApp((s) => (s.sweep.current !== null ? s.sweep.variants[s.sweep.current] : null));
  return variant ? (
    <span className="muted">
      {' '}
      · variant {variant.letter}: {variant.label}
    </span>
  ) : null;
}

// The live parts below each select only what they show, so a live update (several a second)
// re-renders the progress bar, the live line and the heatmap, not the whole form.

function RunProgressBar() {
  const progress = useApp((s) => s.progress);
  const phase = useApp((s) => s.runPhase);
  const running = isRunning(phase);
  if (!progress || !(running || phase === 'done' || phase === 'cancelled')) return null;
  return (
    <div className="progress" data-testid="run-progress">
      <progress max={progress.total} value={progress.done} aria-label="Run progress" />
      <span>
        {progress.done} of {plural(progress.total, progress.unit)} (
        {fmtPercent(progress.total ? progress.done / progress.total : 0)})
        {progress.startedAtMs != null && running
          ? ` · ${fmtDuration((Date.now() - progress.startedAtMs) / 1000)} elapsed`
          : ''}
        {progress.etaSeconds != null && running ? ` · ${timeLeft(progress.etaSeconds)}` : ''}
      </span>
    </div>
  );
}

function LiveLine() {
  const live = useApp((s) => s.live);
  const running = useApp((s) => isRunning(s.runPhase));
  if (!live || !running) return null;
  return (
    <p className="live" data-testid="live-cell">
      Now: {cellName(live)} · {LIVE_STAGE_WORDS[live.stage]} · {tokPerSec(live.tokensPerSecond)}
      {live.activeRequests != null ? ` · ${activeRequests(live.activeRequests)}` : ''}
      {live.elapsedSeconds != null ? ` · ${fmtSeconds(live.elapsedSeconds)}` : ''}
    </p>
  );
}

/** One empty list, so a live sample does not redraw the charts. */
const NONE: never[] = [];

function LiveHeatmap({ contexts, concurrency }: { contexts: number[]; concurrency: number[] }) {
  const plan = useApp((s) => s.plan);
  const cells = useApp((s) => runSession(s)?.cells ?? NONE);
  const running = useApp((s) => isRunning(s.runPhase));
  const live = useApp((s) => (running ? s.live : null));
  const model = useMemo(
    () => buildHeatmap(plan?.contexts ?? contexts, plan?.concurrency ?? concurrency, cells, plan?.cells ?? []),
    [plan, contexts, concurrency, cells],
  );
  return <Heatmap model={model} live={live} />;
}

function LivePrefill() {
  const prefill = useApp((s) => runSession(s)?.prefill ?? NONE);
  return <PrefillChart points={prefill} height={260} />;
}

/** The cells the plan will not run, each with its reason in words (the grid greys them). */
function NotRunList({ plan }: { plan: PlanView }) {
  const out = plan.cells.flatMap((c) => (c.status === 'run' ? [] : [{ ...c, status: c.status }]));
  if (out.length === 0) return null;
  const shown = out.slice(0, 6);
  return (
    <ul className="not-run" data-testid="plan-reasons">
      {shown.map((c) => (
        <li key={cellKey(c)}>
          <strong>
            {fmtContext(c.context)} × {c.concurrency}: {statusWord(c.status)}
          </strong>
          {c.reason ? ` — ${c.reason}` : ''}
        </li>
      ))}
      {out.length > shown.length && <li>and {out.length - shown.length} more cells not run for the same reasons.</li>}
    </ul>
  );
}

/** A run on a remote host: where it runs, and when its link is lost, that it goes on there and how to follow it again. */
function RemoteLink() {
  const remote = useApp((s) => s.runRemote);
  const running = useApp((s) => isRunning(s.runPhase));
  if (!remote || (!remote.lostLink && !running)) return null;
  if (!remote.lostLink)
    return (
      <p className="muted" data-testid="run-remote">
        Running on {remote.host}, next to its server; it goes on there if this connection drops.
      </p>
    );
  return (
    <section className="failure" role="alert" data-testid="run-link-lost">
      <h2>Connection to {remote.host} lost</h2>
      <p>{remote.lostLink}</p>
      <p className="advice">
        The run carries on there and keeps what it measures. Reattach when the host is reachable again: it continues
        from where this view stopped, nothing measured twice.
      </p>
      <button type="button" className="primary" onClick={() => void reattachRun()} data-testid="reattach-run">
        Reattach
      </button>
    </section>
  );
}
