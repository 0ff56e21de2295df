/**
 * How to start one of SpeedMatrix's own Node programs (the simulated vLLM server, the
 * benchmark worker) as a separate process. From source (CLI, tests) they run through tsx;
 * from the built app they are bundled files beside the main bundle, run by Electron's
 * binary in Node mode.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type NodeProgram = 'sim' | 'bench-worker';

/**
 * The Node programs' sources, relative to the project root: the one list the builds read
 * (electron.vite.config.ts for the app, cli.vite.config.ts for the installable CLI package),
 * each program compiled to `<name>.js`.
 */
export const PROGRAM_SOURCES: Record<NodeProgram | 'cli', string> = {
  cli: 'src-main/hosts/cli/main.ts',
  sim: 'src-main/engine/sim/main.ts',
  'bench-worker': 'src-main/engine/bench/worker-main.ts',
};

interface NodeCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
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

/** The argv (command + args) that starts `program`; append the program's own arguments. */
export function nodeProgram(program: NodeProgram): NodeCommand {
  if (runningFromSource) {
    const root = projectRoot();
    const tsx = createRequire(join(root, 'package.json')).resolve('tsx');
    return {
      command: process.execPath,
      args: ['--import', pathToFileURL(tsx).href, join(root, PROGRAM_SOURCES[program])],
      env: {},
    };
  }
  // Built: out/main/<program>.js. This module may be bundled into out/main/chunks/, so look
  // beside it and one folder up. Under Electron, run the binary as Node.
  const isElectron = Boolean(process.versions.electron);
  const candidates = [join(__dirname, `${program}.js`), join(__dirname, '..', `${program}.js`)];
  return {
    command: process.execPath,
    args: [candidates.find((c) => existsSync(c)) ?? candidates[0]],
    env: isElectron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
  };
}
