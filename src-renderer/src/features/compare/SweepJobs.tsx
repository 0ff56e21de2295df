/**
 * A Slurm sweep's jobs in its comparison: each variant pending, running, done or failed (a
 * failed one with its reason and the last lines of its log), read again every few seconds while
 * a job waits or runs, and Stop, which cancels them after asking. See docs/sweeps.md.
 */
import type { ComparisonView } from '#shared/ipc/contract';
import { useEffect } from 'react';
import { cancelSweepJobs, refreshSweep } from '../../store/actions';

const REFRESH_MS = 5000;

export function SweepJobs({ view }: { view: ComparisonView }) {
  const withJobs = view.entries.filter((e) => e.job);
  const live = withJobs.filter((e) => e.job?.state === 'pending' || e.job?.state === 'running').length;
  const dir = view.dir;
  useEffect(() => {
    if (!dir || live === 0) return;
    const t = setInterval(() => void refreshSweep(dir), REFRESH_MS);
    return () => clearInterval(t);
  }, [dir, live]);
  if (withJobs.length === 0 && !view.jobsProblem) return null;
  return (
    <section data-testid="sweep-jobs">
      <h3>Slurm jobs</h3>
      {view.jobsProblem && (
        <p className="failure" role="alert">
          The jobs&apos; states are not known: {view.jobsProblem}
        </p>
      )}
      {live > 0 && (
        <div className="toolbar">
          <span className="muted">Refreshing while jobs wait or run.</span>
          <button type="button" onClick={() => void cancelSweepJobs(live)} data-testid="cancel-sweep-jobs">
            Stop: cancel {live === 1 ? 'the job' : `${live} jobs`}
          </button>
        </div>
      )}
      <table className="measurements">
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col">Job</th>
            <th scope="col">State</th>
            <th scope="col">Node</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {withJobs.map((e) => (
            <tr
              key={e.label}
              data-testid={`job-${e.label}`}
              data-state={e.job?.state}
              className={e.job?.state === 'failed' ? 'bad-row' : undefined}
            >
              <th scope="row">
                {e.label} · {e.name}
              </th>
              <td>{e.job?.id ?? '—'}</td>
              <td>{e.job?.state}</td>
              <td>{e.job?.node ?? '—'}</td>
              <td>
                {e.job?.reason ?? ''}
                {e.job && e.job.logTail.length > 0 && (
                  <details>
                    <summary>Last lines of its log</summary>
                    <pre data-testid={`job-log-${e.label}`}>{e.job.logTail.join('\n')}</pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
