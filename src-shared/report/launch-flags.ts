/**
 * Reading a launch command line back into words and flags, for imports (which only have the
 * printed line) and for comparing launches. Pure, no Node imports.
 */

/** Split a POSIX shell line into words: quotes and backslashes as a shell reads them, no expansion. */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      const stop = end < 0 ? line.length : end;
      cur += line.slice(i + 1, stop);
      i = stop;
      inWord = true;
    } else if (ch === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) i++;
        cur += line[i++];
      }
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

interface ParsedLaunch {
  /** Leading `env A=B` / `A=B` assignments. */
  env: Record<string, string>;
  /** The command itself, from the program on. */
  argv: string[];
  /** The model argument of `vllm serve MODEL` (or --model). */
  model: string | null;
  flags: Map<string, string>;
}

/** Flags of an argv: `--x v`, `--x=v`, and bare `--x` (value "true"). */
export function flagsOf(argv: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) flags.set(a.slice(0, eq), a.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags.set(a, argv[++i]);
    else flags.set(a, 'true');
  }
  return flags;
}

export function parseLaunchLine(line: string): ParsedLaunch {
  const words = splitShellWords(line.trim());
  const env: Record<string, string> = {};
  let i = 0;
  if (words[0] === 'env') i = 1;
  for (; i < words.length; i++) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(words[i]);
    if (!m) break;
    env[m[1]] = m[2];
  }
  const argv = words.slice(i);
  const flags = flagsOf(argv);
  const serve = argv.findIndex((w) => w === 'serve');
  const positional = serve >= 0 && argv[serve + 1] && !argv[serve + 1].startsWith('--') ? argv[serve + 1] : null;
  return { env, argv, model: positional ?? flags.get('--model') ?? null, flags };
}
