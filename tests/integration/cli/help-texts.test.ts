/**
 * Every command's --help, as a person reads it: it starts with its usage line (no blank line),
 * shows defaults one way, `(default: 1200)` (unquoted, never `(default: [])` for a repeatable
 * option), and every file it cites is shipped in the npm package. The real CLI, each command's
 * help in turn, found by walking the commands the top-level help lists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; license: string };

/** Whether `npm pack` takes the file: it is named in "files", or sits in a folder named there. */
const shipped = (file: string) => pkg.files.some((f) => f === file || (f.endsWith('/') && file.startsWith(f)));

/** The subcommands a help lists under "Commands:", leaving out `help` itself. */
function subcommands(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]).filter((n) => n !== 'help');
}

async function everyHelp(): Promise<Map<string, string>> {
  const helps = new Map<string, string>();
  const queue: string[][] = [[]];
  while (queue.length) {
    const names = queue.shift()!;
    const r = await runCli([...names, '--help']);
    expect(r.code, `${names.join(' ')} --help: ${r.stderr}`).toBe(0);
    helps.set(['speedmatrix', ...names].join(' '), r.stdout);
    for (const sub of subcommands(r.stdout)) queue.push([...names, sub]);
  }
  return helps;
}

describe('every command’s --help', () => {
  it('starts with its usage, shows defaults as (default: X), and cites only files the package ships', async () => {
    const helps = await everyHelp();
    expect([...helps.keys()]).toEqual(
      expect.arrayContaining(['speedmatrix run', 'speedmatrix sim serve', 'speedmatrix site', 'speedmatrix hw']),
    );
    const problems: string[] = [];
    for (const [command, help] of helps) {
      if (!help.startsWith(`Usage: ${command} `))
        problems.push(`${command}: starts with ${JSON.stringify(help.slice(0, 30))}`);
      // Wrapped lines joined again, so a default split over two lines is read whole.
      const text = help.replace(/\s+/g, ' ');
      for (const m of text.matchAll(/\(default [^:]|default: "|default: \[\]|\([-\w]+: default /g))
        problems.push(`${command}: a default written otherwise: "${text.slice(m.index - 20, m.index + 30)}"`);
      for (const m of text.matchAll(/\b(?:docs|src-main|src-shared)\/[\w./-]*\w/g)) {
        if (!existsSync(join(ROOT, m[0]))) problems.push(`${command}: cites ${m[0]}, which does not exist`);
        else if (!shipped(m[0])) problems.push(`${command}: cites ${m[0]}, which the package does not ship`);
      }
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('the licence package.json names is a LICENSE file the package ships', () => {
    expect(pkg.license).toBe('MIT');
    expect(shipped('LICENSE')).toBe(true);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });
});
