import type { Command } from 'commander';
import { join } from 'node:path';

export function registerSite(program: Command): void {
  program
    .command('site')
    .description(
      "Build a static results site: an index of every session, sweep variant and importable result under the folders, each run's report, and comparisons in the browser. Works from file:// and any static web server; running it again on the same folder updates it.",
    )
    .argument('<dirs...>', "folders (or files) holding sessions, sweep folders and other tools' results")
    .requiredOption('-o, --out <dir>', 'the site folder (new, empty, or a site built before)')
    .action(async (dirs: string[], opts: { out: string }) => {
      const [{ buildSite }, { openSessionOrImport }] = await Promise.all([
        import('../../../workflows/site/build'),
        import('../../../workflows/importers/open'),
      ]);
      const built = await buildSite(dirs, opts.out, openSessionOrImport);
      if (!built.ok) {
        process.stderr.write(`speedmatrix site: ${built.error}\n`);
        process.exitCode = 1;
        return;
      }
      const b = built.data;
      for (const p of b.problems) process.stderr.write(`speedmatrix site: ${p}\n`);
      for (const r of b.runs.filter((r) => r.error))
        process.stderr.write(`speedmatrix site: ${r.source}: ${r.error}\n`);
      process.stdout.write(
        `Built the site of ${b.runs.length} run${b.runs.length === 1 ? '' : 's'} in ${opts.out}: ${b.written} written, ${b.kept} unchanged, ${b.removed} removed${b.passedOver ? `, ${b.passedOver} other files passed over` : ''}.\nOpen ${join(opts.out, 'index.html')}\n`,
      );
      // Folders that could not be read leave the site incomplete: say so in the exit code.
      if (b.problems.length) process.exitCode = 1;
    });
}
