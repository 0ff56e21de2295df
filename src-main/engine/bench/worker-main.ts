/**
 * The benchmark worker process: the load generator runs here, away from the process that
 * owns the UI or the CLI. It takes one 'start' message, runs the plan and streams events
 * back over the IPC channel (process.send: child_process.fork, or Electron's utilityProcess,
 * whose parentPort is bridged below).
 */
import type { ServerTarget } from '../server/target';
import { utilityParentPort } from '../../platform/runtime/node-spawner';
import { Runner } from './runner';
import { type LoadRunHandle, startLoadRun } from './load-run';
import type { ParentMessage, WorkerMessage } from './worker-protocol';

interface Port {
  send(m: WorkerMessage): void;
  on(listener: (m: ParentMessage) => void): void;
}

/** process.send under child_process; process.parentPort under Electron's utilityProcess. */
function parentPort(): Port | null {
  const pp = utilityParentPort();
  if (pp) return { send: (m) => pp.postMessage(m), on: (l) => pp.on('message', (e) => l(e.data as ParentMessage)) };
  if (process.send) {
    const send = process.send.bind(process);
    return { send: (m) => send(m), on: (l) => process.on('message', (m) => l(m as ParentMessage)) };
  }
  return null;
}

function main(): void {
  const port = parentPort();
  if (!port) {
    process.stderr.write('bench-worker: start me through startRun() (no IPC channel).\n');
    process.exitCode = 1;
    return;
  }
  let runner: Runner | null = null;
  let restartWaiter: ((t: ServerTarget | null) => void) | null = null;
  let stopRequested = false;
  let load: LoadRunHandle | null = null;
  let serverLog: string[] = [];

  port.on((msg) => {
    if (msg.type === 'stop') {
      stopRequested = true;
      runner?.stop();
      load?.stop();
      restartWaiter?.(null);
    } else if (msg.type === 'server-log') {
      serverLog = msg.lines;
    } else if (msg.type === 'load' && !load && !runner) {
      load = startLoadRun({
        ...msg.work,
        onEvent: (event) => port.send({ type: 'load-event', event }),
        serverLogLines: () => serverLog,
      });
      if (stopRequested) load.stop();
      load.done
        .then(({ session, cancelled }) => port.send({ type: 'load-finished', session, cancelled }))
        .catch((e: unknown) => port.send({ type: 'fatal', message: (e as Error).message }))
        .finally(() => setTimeout(() => process.exit(0), 50));
    } else if (msg.type === 'server-restarted') {
      restartWaiter?.(msg.target);
      restartWaiter = null;
    } else if (msg.type === 'start' && !runner && !load) {
      runner = new Runner(msg.target, msg.plan, new Set(msg.doneCells), new Set(msg.donePrefill), {
        emit: (event) => port.send({ type: 'event', event }),
        serverDown: (message) =>
          new Promise((resolve) => {
            if (stopRequested) return resolve(null);
            restartWaiter = resolve;
            port.send({ type: 'server-down', message });
          }),
      });
      if (stopRequested) runner.stop();
      const r = runner;
      r.run()
        .then(async (res) => {
          port.send({
            type: 'finished',
            cancelled: res.cancelled,
            serverLost: res.serverLost,
            checksUnavailable: res.checksUnavailable,
            notes: res.notes,
          });
          await r.close();
        })
        .catch((e: unknown) =>
          port.send({ type: 'fatal', message: `The benchmark worker failed: ${(e as Error).stack ?? String(e)}` }),
        )
        .finally(() => {
          // Let the IPC flush, then leave: a worker never outlives its run.
          setTimeout(() => process.exit(0), 50);
        });
    }
  });
  // The parent went away (crash, kill): stop at once, nothing to report to.
  process.on('disconnect', () => process.exit(0));
  // Ctrl-C in a terminal reaches the whole foreground process group, this worker too: the
  // parent decides what a Ctrl-C means and sends 'stop', so the worker does not die on it.
  process.on('SIGINT', () => undefined);
}

main();
