/**
 * Signalling a child process safely. Node's ChildProcess.kill() on a child whose spawn failed
 * (ENOENT, EACCES, EAGAIN) but whose 'error' event has not been emitted yet sends the signal to
 * pid 0, that is to the caller's own process group: the CLI, the shell pipeline around it, a CI
 * job. A child with no pid was never started, so there is nothing to signal (docs/architecture.md,
 * "Child processes").
 */
import type { ChildProcess } from 'node:child_process';

type Signallable = Pick<ChildProcess, 'pid' | 'exitCode' | 'signalCode' | 'kill'>;

/** Send `signal` to `child` if it started and has not ended; true when the signal was sent. */
export function signalChild(child: Signallable, signal: NodeJS.Signals = 'SIGTERM'): boolean {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return false;
  return child.kill(signal);
}
