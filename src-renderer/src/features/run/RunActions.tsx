/** Start, stop and resume a run, and what the plan will do. */
import { useApp } from '../../store';
import { resumeRun, startRun, stopRun } from '../../store/actions';
import { cellsLeft } from '../../store/run-slice';
import { fmtContexts, fmtDuration, plural } from '../../format';

export function RunActions({ running, shownRun }: { running: boolean; shownRun: boolean }) {
  const form = useApp((s) => s.runForm);
  const plan = useApp((s) => s.plan);
  const phase = useApp((s) => s.runPhase);
  const serverState = useApp((s) => s.server.state);
  const meta = useApp((s) => s.sessionMeta);
  const left = useApp((s) => cellsLeft(s.session));
  const hasVariants = useApp((s) => s.sweepAxes.length > 0);
  const runnable = plan ? plan.cells.filter((c) => c.status === 'run').length : 0;
  const canStart = !running && serverState === 'ready' && runnable > 0;
  // A stopped run with cells left is resumed, not started over: Resume leads then.
  const canResume = !running && serverState === 'ready' && meta.hasSession && left > 0;
  const resumeLeads = canResume && (phase === 'cancelled' || phase === 'failed' || phase === 'idle');
  return (
    <div className="actions">
      <button
        type="button"
        className={resumeLeads || hasVariants ? undefined : 'primary'}
        onClick={() => void startRun()}
        disabled={!canStart}
        data-testid="start-run"
      >
        {shownRun ? 'Start a new run' : 'Start run'}
      </button>
      <button type="button" onClick={() => void stopRun()} disabled={!running} data-testid="stop-run">
        Stop
      </button>
      <button
        type="button"
        className={resumeLeads ? 'primary' : undefined}
        onClick={() => void resumeRun()}
        disabled={!canResume}
        data-testid="resume-run"
      >
        {left > 0 && meta.hasSession && !running ? `Resume (${left} cell${left === 1 ? '' : 's'} left)` : 'Resume'}
      </button>
      {plan && !running && (
        <span className="muted" data-testid="plan-summary">
          {shownRun ? 'A new run: ' : ''}
          {runnable} of {plural(plan.cells.length, 'cell')} to run
          {form.repeat > 1 ? `, ${form.repeat} times each` : ''} · prefill at{' '}
          {plan.prefillContexts.length ? fmtContexts(plan.prefillContexts).join(', ') : 'no context'} · about{' '}
          {fmtDuration(plan.etaSeconds)} in total
        </span>
      )}
    </div>
  );
}
