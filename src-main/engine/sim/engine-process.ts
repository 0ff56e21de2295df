/**
 * The simulated server's engine core (engine-child.ts), started as vLLM's API server starts its
 * EngineCore. Under plain Node the server spawns it as its child. In the app the server is an
 * Electron utility process, which cannot start a Node program (Electron's binary is no Node once
 * its RunAsNode fuse is off): it asks the app through `process.parentPort`, and the engine core
 * runs as a utility process beside it that watches this server's pid (hosts/electron/node-spawner.ts).
 */
import { spawn } from 'node:child_process';
import { nodeProgram } from '../../platform/runtime/node-entry';
import {
  ENGINE_CORE_REQUEST,
  ENGINE_CORE_STARTED,
  type EngineCoreStarted,
  type ParentPort,
  utilityParentPort,
} from '../../platform/runtime/node-spawner';
import { signalChild } from '../../platform/processes/signal-child';

export interface EngineProcess {
  /** 0 when it could not be started (the log still names an engine, as vLLM's does). */
  readonly pid: number;
  signal(signal: NodeJS.Signals): void;
  /** Resolves true once it has ended, false when `ms` passed first. */
  ended(ms: number): Promise<boolean>;
}

/** How long the app may take to start the engine core before the server goes on without it. */
const START_TIMEOUT_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Start the engine core: as a child here, or through the app when this is a utility process. */
export function startEngineProcess(): Promise<EngineProcess> {
  const port = utilityParentPort();
  return port ? Promise.resolve(askParent(port)).then(byPid) : Promise.resolve(spawnChild());
}

function spawnChild(): EngineProcess {
  // The simulator's own program (sim.js when built), also when this server runs inside
  // `speedmatrix sim serve`, whose argv[1] is the CLI and knows no `engine-core`.
  const cmd = nodeProgram('sim');
  const child = spawn(cmd.command, [...cmd.args, 'engine-core', '--parent-pid', String(process.pid)], {
    stdio: 'ignore',
    windowsHide: true,
  });
  child.on('error', () => undefined);
  const running = () => child.exitCode === null && child.signalCode === null;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    pid: child.pid ?? 0,
    signal: (sig) => void signalChild(child, sig),
    ended: (ms) =>
      running() ? Promise.race([gone.then(() => true), sleep(ms).then(() => false)]) : Promise.resolve(true),
  };
}

function askParent(port: ParentPort): Promise<number> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(0), START_TIMEOUT_MS);
    port.on('message', ({ data }) => {
      const m = data as EngineCoreStarted | null;
      if (m?.type !== ENGINE_CORE_STARTED) return;
      clearTimeout(timer);
      resolve('pid' in m ? m.pid : 0);
    });
    port.postMessage({ type: ENGINE_CORE_REQUEST });
  });
}

/** An engine core that is not this process's child: signalled and watched by its pid. */
function byPid(pid: number): EngineProcess {
  const alive = () => {
    try {
      return pid > 0 && (process.kill(pid, 0), true);
    } catch {
      return false;
    }
  };
  return {
    pid,
    signal: (sig) => void (alive() && process.kill(pid, sig)),
    ended: async (ms) => {
      const deadline = Date.now() + ms;
      while (alive()) {
        if (Date.now() >= deadline) return false;
        await sleep(50);
      }
      return true;
    },
  };
}
