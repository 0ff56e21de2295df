/**
 * Which file a command name starts. On Windows a bare name such as `npx` or `vllm` is found
 * through PATH and PATHEXT (Node itself only tries `.com` and `.exe`), and a batch file
 * (`.cmd`/`.bat`) is said to be one: since Node's 2024 security fix, spawning one without a
 * shell fails with EINVAL, and SpeedMatrix never starts a server through a shell.
 */
import { statSync } from 'node:fs';
import { posix, win32 } from 'node:path';
import type { Platform } from './process-control';

export interface LookupDeps {
  platform?: Platform;
  env?: NodeJS.ProcessEnv;
  /** True when `path` is a file (default: the real file system). */
  isFile?: (path: string) => boolean;
}

interface ResolvedCommand {
  /** The file that would be started, or null when none was found (then spawn gets the name as given). */
  path: string | null;
  /** The file is a Windows batch file, which cannot be started without a shell. */
  batch: boolean;
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';
const BATCH = /\.(cmd|bat)$/i;

/** An environment variable by name, ignoring case as Windows does (PATH is often spelt "Path"). */
function envValue(env: NodeJS.ProcessEnv, name: string, ignoreCase: boolean): string | undefined {
  if (!ignoreCase) return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

const realIsFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** Resolve `command` the way the platform's own shell would find it. */
export function resolveCommand(command: string, deps: LookupDeps = {}): ResolvedCommand {
  const platform = deps.platform ?? process.platform;
  const env = deps.env ?? process.env;
  const isFile = deps.isFile ?? realIsFile;
  const windows = platform === 'win32';
  const path = windows ? win32 : posix;
  const exts = windows ? (envValue(env, 'PATHEXT', true) || DEFAULT_PATHEXT).split(';').filter(Boolean) : [''];
  const hasExt = windows && exts.some((e) => command.toLowerCase().endsWith(e.toLowerCase()));
  const candidates = (base: string): string[] =>
    !windows ? [base] : hasExt ? [base] : exts.map((e) => base + e.toLowerCase());
  const hasDir = windows ? /[\\/]/.test(command) : command.includes('/');
  const dirs = hasDir ? [''] : (envValue(env, 'PATH', windows) ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    for (const c of candidates(dir ? path.join(dir, command) : command)) {
      if (isFile(c)) return { path: c, batch: windows && BATCH.test(c) };
    }
  }
  return { path: null, batch: windows && BATCH.test(command) };
}

/** Why a batch file cannot be the server command, and what to run instead. */
export function batchFileMessage(command: string, file: string): { message: string; advice: string } {
  return {
    message: `"${command}" is the batch file ${file}. Windows starts batch files only through cmd.exe, and SpeedMatrix never starts a server through a shell (Node refuses it with EINVAL since its 2024 security fix).`,
    advice:
      'Give the program the batch file runs instead: for vLLM the vllm.exe in your Python environment\'s Scripts folder (e.g. C:\\path\\to\\venv\\Scripts\\vllm.exe); for npx, "node" with the script path (e.g. node C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npx-cli.js ...).',
  };
}
