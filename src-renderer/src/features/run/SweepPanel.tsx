/**
 * A sweep of the Server view's launch variants: the folder it goes to, its plan (server starts,
 * cells, measuring time, as the CLI prints it), then where each variant stands and the time
 * left. The current variant's matrix fills in below, as a run's does. Stop saves; Resume
 * finishes what is missing, as `speedmatrix sweep --resume` does.
 */
import type { SweepVariantView, SweepView } from '#shared/ipc/contract';
import { timeLeft } from '../../format';
import { useApp } from '../../store';
import { chooseSweepDir, openSweep, resumeSweep, startSweep, stopSweep } from '../../store/actions';
import { isRunning } from '../../store/run-slice';
import { sweepBusy } from '../../store/sweep-slice';
import { Field } from '../../components/ui';
import { plural } from '#shared/report/format';
import { sweepPlanWords } from '#shared/sweep/plan-words';

function stateWords(v: SweepVariantView): string {
  const cells = v.cells ? `${v.cells.done} of ${plural(v.cells.total, 'cell')}` : null;
  switch (v.state) {
    case 'waiting':
      return 'Waiting';
    case 'starting':
      return 'Starting the server';
    case 'running':
      return `Running: ${cells ?? 'planning'}`;
    case 'done':
      return `Done${cells ? `: ${cells}` : ''}`;
    case 'failed':
      return `Failed: ${v.failure ?? 'the server did not start'}`;
    case 'cancelled':
      return `Stopped${cells ? ` after ${cells}` : ''}: resume the sweep to finish it`;
  }
}

/** Why Run sweep waits, or null when it can start. */
function whyNot(s: {
  runRunning: boolean;
  problems: number;
  blocked: string | null;
  variants: number;
  dir: string;
  checked: boolean;
}): string | null {
  if (s.runRunning) return 'A run is going: stop it before starting a sweep.';
  if (s.problems) return 'Fix the launch variants in the Server view first.';
  if (s.blocked) return s.blocked;
  if (!s.checked) return 'Checking the variants…';
  if (s.variants === 0) return 'Add a flag with its values under Launch variants in the Server view.';
  if (!s.dir.trim()) return 'Choose the folder the sweep goes to.';
  return null;
}

export function SweepPanel() {
  const axes = useApp((s) => s.sweepAxes);
  const plan = useApp((s) => s.sweepPlan);
  const sweep = useApp((s) => s.sweep);
  const dir = useApp((s) => s.sweepDir);
  const setDir = useApp((s) => s.setSweepDir);
  const error = useApp((s) => s.sweepError);
  const runRunning = useApp((s) => isRunning(s.runPhase));
  const electron = useApp((s) => s.appInfo?.host === 'electron');
  const setView = useApp((s) => s.setView);
  // With no varied settings, only a sweep that runs or can be resumed is shown: a finished one is in Results.
  if (axes.length === 0 && (sweep.phase === 'idle' || sweep.phase === 'done')) return null;
  const busy = sweepBusy(sweep);
  const why = busy
    ? null
    : whyNot({
        runRunning,
        problems: plan?.problems.length ?? 0,
        blocked: plan?.blocked ?? null,
        variants: plan?.variants.length ?? 0,
        dir,
        // Nothing to check without varied settings: the hint says to add one.
        checked: plan !== null || axes.length === 0,
      });
  const ended = sweep.phase === 'done' || sweep.phase === 'cancelled' || sweep.phase === 'failed';
  const canResume = !busy && !runRunning && dir.trim() !== '' && sweep.phase !== 'done';
  const shownPlan = busy || ended ? sweep.plan : plan?.plan;

  return (
    <section className="sweep" aria-labelledby="sweep-title" data-testid="sweep-panel">
      <h2 id="sweep-title">
        Sweep of {plural(busy || ended ? sweep.variants.length : (plan?.variants.length ?? 0), 'launch variant')}
      </h2>
      <div className="sweep-dir">
        <Field
          id="sweep-dir"
          label="Sweep folder"
          help="An empty folder, or one to make the sweep's folder in: it gets one session file per variant, sweep.json, sweep.md and sweep.html. To resume a stopped sweep, its folder."
        >
          <input
            id="sweep-dir"
            value={dir}
            readOnly={electron}
            disabled={busy}
            placeholder={electron ? 'Choose a folder' : '/path/to/sweep'}
            spellCheck={false}
            onChange={(e) => setDir(e.currentTarget.value)}
          />
        </Field>
        <button type="button" onClick={() => void chooseSweepDir()} disabled={busy} data-testid="choose-sweep-dir">
          Choose folder…
        </button>
      </div>
      {shownPlan && (
        <p className="muted" data-testid="sweep-plan">
          {sweepPlanWords(shownPlan)}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          className={ended ? undefined : 'primary'}
          onClick={() => void startSweep()}
          disabled={busy || why !== null}
          data-testid="start-sweep"
        >
          Run sweep
        </button>
        <button
          type="button"
          onClick={() => void stopSweep()}
          disabled={sweep.phase !== 'running'}
          data-testid="stop-sweep"
        >
          Stop sweep
        </button>
        <button
          type="button"
          className={canResume && sweep.phase === 'cancelled' ? 'primary' : undefined}
          onClick={() => void resumeSweep()}
          disabled={!canResume}
          data-testid="resume-sweep"
        >
          Resume sweep
        </button>
        {ended && sweep.dir && (
          <button
            type="button"
            className={sweep.phase === 'done' ? 'primary' : undefined}
            onClick={() => void openSweep(sweep.dir as string)}
            data-testid="open-comparison"
          >
            Open comparison
          </button>
        )}
        {why && (
          <span className="muted" data-testid="sweep-waits">
            {why}{' '}
            {why.includes('Server view') && (
              <button type="button" className="link" onClick={() => setView('server')}>
                Go to Server
              </button>
            )}
          </span>
        )}
      </div>
      {error && (
        <p className="error" role="alert" data-testid="sweep-error">
          {error}
        </p>
      )}
      {sweep.phase !== 'idle' && <SweepProgress sweep={sweep} />}
    </section>
  );
}

function SweepProgress({ sweep }: { sweep: SweepView }) {
  const finished = sweep.variants.filter((v) => v.state === 'done' || v.state === 'failed').length;
  const n = sweep.variants.length;
  return (
    <>
      <div className="progress" data-testid="sweep-progress">
        <progress max={n} value={finished} aria-label="Sweep progress" />
        <span>
          {finished} of {plural(n, 'variant')} finished
          {sweep.eta && sweepBusy(sweep)
            ? ` · ${timeLeft(sweep.eta.seconds)}${sweep.eta.withServerStarts ? '' : ' plus the server starts'}`
            : ''}
        </span>
      </div>
      {sweep.message && (
        <p className="muted" data-testid="sweep-message">
          {sweep.message}
        </p>
      )}
      <ol className="sweep-variants" data-testid="sweep-variants">
        {sweep.variants.map((v, i) => (
          <li
            key={v.letter}
            data-state={v.state}
            data-variant={v.letter}
            aria-current={i === sweep.current || undefined}
          >
            <span className="variant-letter">{v.letter}</span>
            <code>{v.label}</code>
            <span className={`variant-state st-variant-${v.state}`}>{stateWords(v)}</span>
          </li>
        ))}
      </ol>
    </>
  );
}
