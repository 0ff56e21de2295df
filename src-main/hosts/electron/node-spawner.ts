/**
 * The app's NodeSpawner (platform/runtime/node-spawner.ts): SpeedMatrix's own Node programs run
 * as Electron utility processes, never as Electron's binary with ELECTRON_RUN_AS_NODE (the
 * packaged app's RunAsNode fuse is off, and on macOS each such process put up a Dock icon). A
 * simulated server asks here for its engine core (ENGINE_CORE_REQUEST), which then runs as a
 * utility process beside it.
 */
import { EventEmitter } from 'node:events';
import { type UtilityProcess, utilityProcess } from 'electron';
import { type NodeProgram, programFile } from '../../platform/runtime/node-entry';
import {
  ENGINE_CORE_REQUEST,
  ENGINE_CORE_STARTED,
  type EngineCoreStarted,
  type NodeChild,
  type NodeSpawner,
  type NodeSpawnOptions,
} from '../../platform/runtime/node-spawner';

class UtilityChild extends EventEmitter implements NodeChild {
  /** Kept after the exit, where Electron's own goes back to undefined. */
  pid: number | undefined;
  readonly stdout;
  readonly stderr;
  readonly kill: () => void;

  constructor(readonly utility: UtilityProcess) {
    super();
    this.stdout = utility.stdout;
    this.stderr = utility.stderr;
    this.kill = () => void utility.kill();
    utility.once('spawn', () => (this.pid = utility.pid));
    // Electron gives the code only (a signal's end comes as a code too).
    utility.once('exit', (code) => this.emit('exit', code, null));
  }
}

export const utilityNodeSpawner: NodeSpawner = (program, args, options) => {
  const child = fork(program, args, options);
  if (program === 'sim') child.utility.on('message', (m: unknown) => onSimMessage(child, m, options));
  return child;
};

function fork(program: NodeProgram, args: string[], o: NodeSpawnOptions): UtilityChild {
  const env = Object.fromEntries(Object.entries(o.env).filter((e): e is [string, string] => e[1] !== undefined));
  return new UtilityChild(
    utilityProcess.fork(programFile(program), args, { env, stdio: o.stdio, serviceName: o.serviceName }),
  );
}

/** A simulated server's one request: its engine core, started here beside it, watching its pid. */
function onSimMessage(server: UtilityChild, message: unknown, options: NodeSpawnOptions): void {
  if ((message as { type?: unknown } | null)?.type !== ENGINE_CORE_REQUEST) return;
  const answer = (m: EngineCoreStarted) => server.utility.postMessage(m);
  if (!server.pid) return answer({ type: ENGINE_CORE_STARTED, error: 'the server has no pid yet' });
  const core = fork('sim', ['engine-core', '--parent-pid', String(server.pid)], {
    env: options.env,
    stdio: 'ignore',
    serviceName: 'VLLM::EngineCore (simulated)',
  });
  let started = false;
  core.utility.once('spawn', () => {
    started = true;
    answer({ type: ENGINE_CORE_STARTED, pid: core.utility.pid! });
  });
  core.utility.once('exit', (code) => {
    if (!started) answer({ type: ENGINE_CORE_STARTED, error: `the engine core could not start (exit ${code})` });
  });
}
