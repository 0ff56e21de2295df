/**
 * After a crash left processes running (an engine core still holding GPU memory): say which,
 * and ask whether to end them. Process names are shown as text only.
 */
import { useApp } from '../../store';
import { endOrphans, leaveOrphans } from '../../store/actions';
import { fmtGigabytes } from '../../format';

export function OrphanPanel() {
  const orphans = useApp((s) => s.orphans);
  const outcome = useApp((s) => s.orphanOutcome);
  const busy = useApp((s) => s.orphansBusy);
  if (orphans.length === 0) {
    return outcome ? (
      <p className={outcome.ok ? 'muted' : 'error'} role="status" data-testid="orphan-outcome">
        {outcome.message}
      </p>
    ) : null;
  }
  const known = orphans.filter((o) => o.gpuMemoryBytes !== null);
  const gpuBytes = known.reduce((sum, o) => sum + (o.gpuMemoryBytes ?? 0), 0);
  const holding = known.length
    ? `, holding ${fmtGigabytes(gpuBytes)} of GPU memory`
    : ' (GPU memory held: unknown, nvidia-smi did not list them)';
  return (
    <section className="failure" role="alert" aria-labelledby="orphans-title" data-testid="orphan-panel">
      <h2 id="orphans-title">Processes left running</h2>
      <p>
        {orphans.some((o) => o.origin === 'crash')
          ? `The server stopped unexpectedly and left ${orphans.length} process(es) running${holding}:`
          : `An earlier SpeedMatrix was killed before it could stop ${orphans.length === 1 ? 'the server it had launched' : `the ${orphans.length} servers it had launched`}; still running${holding}:`}
      </p>
      <ul data-testid="orphan-list">
        {orphans.map((o) => (
          <li key={o.pid}>
            <code>pid {o.pid}</code> {o.command}
            {o.gpuMemoryBytes !== null ? ` · ${fmtGigabytes(o.gpuMemoryBytes)} GPU memory` : ''}
          </li>
        ))}
      </ul>
      {outcome && !outcome.ok && <p className="error">{outcome.message}</p>}
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() => void endOrphans()}
          disabled={busy}
          data-testid="end-orphans"
        >
          {busy ? 'Ending…' : 'End them'}
        </button>
        <button type="button" onClick={leaveOrphans} disabled={busy} data-testid="leave-orphans">
          Leave them
        </button>
      </div>
    </section>
  );
}
