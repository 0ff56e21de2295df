/**
 * The launch command as a Windows person would paste it: PowerShell, with environment
 * variables set as `$env:NAME = 'value';` and every word that PowerShell would read specially
 * in single quotes. Only for showing and copying; processes are always spawned from argv.
 */
import { shellSplit } from '#shared/shell-quote';

/** Words PowerShell passes through untouched: no quotes, `$`, backtick, `@`, `,`, `;`, braces, parentheses, `#`, `<`, `>`, `|`, `&`, spaces. */
const SAFE = /^[A-Za-z0-9_\-+=.:/\\%^]+$/;
const ENV_ASSIGN = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/** One word for PowerShell: `a b` -> `'a b'`, `it's` -> `'it''s'`. */
export function powershellQuote(word: string): string {
  if (word === '') return "''";
  // `--%` is PowerShell's stop-parsing token: as an argument it must be quoted.
  return SAFE.test(word) && word !== '--%' ? word : singleQuoted(word);
}

/** Single quotes; PowerShell also reads the typographic ‘ ’ ‚ ‛ as quotes, so those are doubled too. */
const singleQuoted = (word: string): string => `'${word.replace(/['\u2018\u2019\u201a\u201b]/g, '$&$&')}'`;

/** A whole command: environment first, then the program (through the call operator `&` when it needs quotes). */
export function powershellLine(argv: readonly string[], env: Readonly<Record<string, string>> = {}): string {
  const assigns = Object.entries(env).map(([k, v]) => `$env:${k} = ${singleQuoted(v)};`);
  const [cmd, ...args] = argv;
  const program = cmd === undefined ? [] : [SAFE.test(cmd) ? cmd : `& ${singleQuoted(cmd)}`];
  return [...assigns, ...program, ...args.map(powershellQuote)].join(' ');
}

/** The POSIX one-liner (`NAME=value cmd args`, as launches are displayed) as PowerShell. */
export function displayAsPowerShell(display: string): string {
  const words = shellSplit(display);
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length; i++) {
    const m = ENV_ASSIGN.exec(words[i]);
    if (!m) break;
    env[m[1]] = m[2];
  }
  return powershellLine(words.slice(i), env);
}
