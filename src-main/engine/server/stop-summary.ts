/** How a stop went and what it left, in words for people (the supervisor's StopReport.summary, the CLI, the app). */
import type { LeftoverProcess } from './orphans';
import type { StopReport } from './supervisor-types';

/** Describe leftovers for people: "pid 123 (VLLM::EngineCore, 70.1 GiB GPU memory)". */
export function describeProcesses(ps: readonly LeftoverProcess[]): string {
  return ps
    .map(
      (p) =>
        `pid ${p.pid} (${p.command.slice(0, 80)}${p.gpuMemoryBytes !== null ? `, ${(p.gpuMemoryBytes / 1024 ** 3).toFixed(1)} GiB GPU memory` : ''})`,
    )
    .join(', ');
}

/** "Stopped cleanly in 2.1 s; nothing was left behind." and its less happy variants. */
export function stopSummary(r: StopReport, before: 'none' | 'exited' | 'running', askedWith = 'SIGTERM'): string {
  if (before === 'none') return 'Nothing was running.';
  const how =
    before === 'exited'
      ? 'The server had already exited'
      : r.graceful
        ? `Stopped${r.unchecked ? '' : ' cleanly'} in ${(r.durationMs / 1000).toFixed(1)} s`
        : `Did not stop on ${askedWith}; killed after ${(r.durationMs / 1000).toFixed(1)} s`;
  const orphans =
    r.orphansKilled.length > 0
      ? `; killed ${r.orphansKilled.length} leftover process(es): ${describeProcesses(r.orphansKilled)}`
      : '';
  const left =
    r.leftBehind.length > 0
      ? `; STILL RUNNING, end them by hand: ${describeProcesses(r.leftBehind)}`
      : r.unchecked
        ? `; could not check for leftover processes (${r.unchecked}): look for them by hand (Task Manager, ps, nvidia-smi)`
        : '; nothing was left behind';
  return `${how}${orphans}${left}.`;
}
