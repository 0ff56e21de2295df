/**
 * A load run (docs/load.md) in the benchmark worker process, as a matrix runs there: the load
 * client's requests and timers never share a process with the window or the CLI's output. The
 * app starts the worker through its launcher (utilityProcess); plain Node forks it.
 */
import type { Session } from '#shared/session/schema';
import type { LoadRunHandle, LoadRunOptions } from './load-run';
import { forkLauncher, type WorkerLauncher } from './worker-transport';

export interface LoadInWorkerOptions extends LoadRunOptions {
  launcher?: WorkerLauncher;
}

/** Starts `o`'s load run in a worker; its events and its session come back as startLoadRun's do. */
export function startLoadInWorker(o: LoadInWorkerOptions): LoadRunHandle {
  const { launcher = forkLauncher, onEvent, serverLogLines, ...work } = o;
  const ch = launcher.launch();
  let stderr = '';
  const sendLog = () => ch.send({ type: 'server-log', lines: serverLogLines?.() ?? [] });
  const done = new Promise<{ session: Session; cancelled: boolean }>((resolve, reject) => {
    let fatal: string | null = null;
    ch.onStderr?.((t) => (stderr = (stderr + t).slice(-2000)));
    ch.onMessage((m) => {
      if (m.type === 'load-event') {
        // The session keeps the server's log as it stood at each pass (the worker saves after each).
        if (m.event.type === 'pass-start' || m.event.type === 'pass-done') sendLog();
        onEvent(m.event);
      } else if (m.type === 'load-finished') resolve({ session: m.session, cancelled: m.cancelled });
      else if (m.type === 'fatal') fatal = m.message;
    });
    ch.onExit((code, signal) =>
      reject(
        new Error(
          fatal ??
            `The load worker ended before its run did (${signal ? `signal ${signal}` : `exit code ${code}`}).${stderr.trim() ? ` ${stderr.trim().split('\n').slice(-3).join(' / ')}` : ''}`,
        ),
      ),
    );
  });
  sendLog();
  ch.send({ type: 'load', work });
  return { stop: () => ch.send({ type: 'stop' }), done };
}
