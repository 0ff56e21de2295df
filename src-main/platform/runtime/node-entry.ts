/**
 * How to start one of SpeedMatrix's own Node programs (the simulated vLLM server, the
 * benchmark worker) as a separate process. From source (CLI, tests) they run through tsx;
 * built, they are bundled files beside the main bundle. In the app, Electron's binary is not a
 * Node (its RunAsNode fuse is off): the app starts them through a NodeSpawner on utilityProcess
 * (node-spawner.ts) from `programFile()`, never as the command below.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

export type NodeProgram = 'sim' | 'bench-worker';
/** Programs that run as a worker thread of a program above, not as a process. */
export type ThreadProgram = 'stream-shard';

/**
 * The Node programs' sources, relative to the project root: the one list the builds read
 * (electron.vite.config.ts for the app, cli.vite.config.ts for the installable CLI package),
 * each program compiled to `<name>.js`.
 */
export const PROGRAM_SOURCES: Record<NodeProgram | ThreadProgram | 'cli', string> = {
  cli: 'src-main/hosts/cli/main.ts',
  sim: 'src-main/engine/sim/main.ts',
  'bench-worker': 'src-main/engine/bench/worker-main.ts',
  'stream-shard': 'src-main/engine/bench/stream-shard-main.ts',
};

interface NodeCommand {
  command: string;
  args: string[];
}

/** The project root: the nearest folder upward that holds package.json. */
export function projectRoot(from: string = __dirname): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${from}`);
    dir = up;
  }
}

const runningFromSource = __filename.endsWith('.ts');

/** The argv (command + args) that starts `program` under Node; append the program's own arguments. */
export function nodeProgram(program: NodeProgram): NodeCommand {
  if (runningFromSource) {
    const root = projectRoot();
    const tsx = createRequire(join(root, 'package.json')).resolve('tsx');
    return {
      command: process.execPath,
      args: ['--import', pathToFileURL(tsx).href, join(root, PROGRAM_SOURCES[program])],
    };
  }
  return { command: process.execPath, args: [programFile(program)] };
}

/**
 * The built program's file, out/main/<program>.js (or out/cli/): this module may be bundled into
 * out/main/chunks/, so look beside it and one folder up.
 */
export function programFile(program: NodeProgram | ThreadProgram): string {
  const candidates = [join(__dirname, `${program}.js`), join(__dirname, '..', `${program}.js`)];
  return candidates.find((c) => existsSync(c)) ?? candidates[0];
}

/**
 * Starts `program` as a worker thread of this process. From source, the thread registers tsx first
 * (a worker does not take the parent's `--import` hooks); built, it is the bundled file.
 */
export function startThread(program: ThreadProgram, workerData: unknown): Worker {
  if (!runningFromSource) return new Worker(programFile(program), { workerData });
  const root = projectRoot();
  const tsxApi = createRequire(join(root, 'package.json')).resolve('tsx/cjs/api');
  const boot = `require(${JSON.stringify(tsxApi)}).register(); require(${JSON.stringify(join(root, PROGRAM_SOURCES[program]))});`;
  return new Worker(boot, { eval: true, workerData });
}
