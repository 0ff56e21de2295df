/** The benchmark worker in the app: Electron's utilityProcess behind the engine's WorkerLauncher. */
import { utilityProcess } from 'electron';
import { programFile } from '../../platform/runtime/node-entry';
import type { WorkerLauncher } from '../../engine/bench';
import type { WorkerMessage } from '../../engine/bench';

export const utilityLauncher: WorkerLauncher = {
  launch() {
    const child = utilityProcess.fork(programFile('bench-worker'), [], {
      serviceName: 'SpeedMatrix benchmark worker',
      stdio: 'pipe',
    });
    let alive = true;
    child.once('exit', () => (alive = false));
    return {
      send: (m) => {
        if (alive) child.postMessage(m);
      },
      onMessage: (l) => child.on('message', (m: unknown) => l(m as WorkerMessage)),
      onExit: (l) => child.once('exit', (code) => l(code, null)),
      onStderr: (l) => child.stderr?.on('data', (d: Buffer) => l(d.toString('utf8'))),
      kill: () => {
        if (alive) child.kill();
      },
    };
  },
};
