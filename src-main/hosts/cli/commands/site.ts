import type { Command } from 'commander';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from './exit';
import { Refusal, checkFolderToMake } from './out-folder';

/** The folders given that are not there or cannot be read, each in one line. */
async function unreadableDirs(dirs: readonly string[]): Promise<string[]> {
  const { unreadableRoot } = await import('../../../workflows/site/build');
  const problems: string[] = [];
  for (const dir of dirs) {
    try {
      accessSync(dir, constants.R_OK);
    } catch (e) {
      problems.push(unreadableRoot(dir, e));
    }
  }
  return problems;
}

/** Every input checked before anything is written or removed: a refusal's lines, or none. */
async function refusals(dirs: readonly string[], out: string): Promise<string[]> {
  const problems = await unreadableDirs(dirs);
  try {
    checkFolderToMake('--out', out);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    problems.push(e.message);
  }
  return problems;
}

export function registerSite(program: Command): void {
  program
    .command('site')
    .description(
      "Build a static results site: an index of every session, sweep variant and importable result under the folders, each run's report, and comparisons in the browser. Works from file:// and any static web server; running it again on the same folder updates it.",
    )
    .argument('<dirs...>', "folders (or files) holding sessions, sweep folders and other tools' results")
    .requiredOption('-o, --out <dir>', 'the site folder (new, empty, or a site built before)')
    .action(async (dirs: string[], opts: { out: string }) => {
      const refused = await refusals(dirs, opts.out);
      if (refused.length) {
        for (const line of refused) process.stderr.write(`speedmatrix site: ${line}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const [{ buildSite }, { openSessionOrImport }] = await Promise.all([
        import('../../../workflows/site/build'),
        import('../../../workflows/importers/open'),
      ]);
      const built = await buildSite(dirs, opts.out, openSessionOrImport);
      if (!built.ok) {
        process.stderr.write(`speedmatrix site: ${built.error}\n`);
        process.exitCode = EXIT.failed;
        return;
      }
      const b = built.data;
      for (const r of b.runs.filter((r) => r.error))
        process.stderr.write(`speedmatrix site: ${r.source}: ${r.error}\n`);
      process.stdout.write(
        `Built the site of ${b.runs.length} run${b.runs.length === 1 ? '' : 's'} in ${opts.out}: ${b.written} written, ${b.kept} unchanged, ${b.removed} removed${b.passedOver ? `, ${b.passedOver} other files passed over` : ''}.\nOpen ${join(opts.out, 'index.html')}\n`,
      );
    });
}
