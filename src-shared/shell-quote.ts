/**
 * POSIX shell quoting for the one-line `display` form of a launch: what a person would paste
 * into bash. Only for showing; processes are always spawned from argv arrays.
 */
const SAFE = /^[A-Za-z0-9_\-+=.,/:@%^]+$/;

/** One word, quoted only when it needs to be: `a b` -> `'a b'`, `it's` -> `'it'\''s'`. */
export function shellQuote(word: string): string {
  if (word === '') return "''";
  if (SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A whole command line, with `NAME=value` environment assignments in front. */
export function shellLine(argv: readonly string[], env: Readonly<Record<string, string>> = {}): string {
  const assigns = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...assigns, ...argv.map(shellQuote)].join(' ');
}

/** Split a command line the way a POSIX shell would (quotes and backslashes; no expansion). */
export function shellSplit(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated single quote');
      cur += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) i++;
        cur += line[i++];
      }
      if (i >= line.length) throw new Error('unterminated double quote');
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}
