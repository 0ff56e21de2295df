/** Files handed to the app from outside: the command line, a second launch, macOS open-file. */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What File > Open accepts: session files, other tools' JSON results and report texts. */
const OPENABLE = /\.(json|txt|md)$/i;

/**
 * The first file argument, resolved against the working folder of the launch that gave it (a
 * second launch's relative path is relative to where that launch ran, not to this process).
 * argv[0] is the executable; Chromium switches start with '-'; the app folder in development
 * ('.') is not a file to open. A desktop entry's %U (GNOME's Files, a double-click) hands over
 * `file:///...` URIs, percent-encoded: those are files too.
 */
export function fileFromArgv(argv: readonly string[], cwd: string): string | null {
  const arg = argv
    .slice(1)
    .filter((a) => !a.startsWith('-'))
    .map(pathOfArg)
    .find((a) => a !== null && OPENABLE.test(a));
  if (!arg) return null;
  return isAbsolute(arg) ? arg : resolve(cwd, arg);
}

/** A path as given, or the path of a local `file:` URI; null for a URI of any other kind or host. */
function pathOfArg(arg: string): string | null {
  if (!/^[a-z][a-z0-9+.-]+:\/\//i.test(arg)) return arg;
  if (!/^file:/i.test(arg)) return null;
  try {
    return fileURLToPath(arg);
  } catch {
    return null;
  }
}
