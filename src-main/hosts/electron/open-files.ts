/** Files handed to the app from outside: the command line, a second launch, macOS open-file. */
import { isAbsolute, resolve } from 'node:path';

/** What File > Open accepts: session files, other tools' JSON results and report texts. */
const OPENABLE = /\.(json|txt|md)$/i;

/**
 * The first file argument, resolved against the working folder of the launch that gave it (a
 * second launch's relative path is relative to where that launch ran, not to this process).
 * argv[0] is the executable; Chromium switches start with '-'; the app folder in development
 * ('.') is not a file to open.
 */
export function fileFromArgv(argv: readonly string[], cwd: string): string | null {
  const arg = argv.slice(1).find((a) => !a.startsWith('-') && OPENABLE.test(a));
  if (!arg) return null;
  return isAbsolute(arg) ? arg : resolve(cwd, arg);
}
