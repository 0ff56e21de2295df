import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The session file ending (SESSION_EXTENSION), spelled here so the help needs no schema. */
const SESSION_EXTENSION = '.speedmatrix.json';

/** benchmark_results.json -> benchmark_results.speedmatrix.json, in the same folder. */
function defaultImportPath(input: string): string {
  const stem = basename(input).replace(/\.[^.]+$/, '');
  return join(dirname(input), `${stem || 'imported'}${SESSION_EXTENSION}`);
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      'Turn llm-inference-bench results (benchmark_results.json) or the text of a speed test matrix report into a session file.',
    )
    .argument('<file>', 'file to import; its kind is recognised from its content')
    .option('-o, --out <path>', `session file to write (default: next to the input, ending ${SESSION_EXTENSION})`)
    .option('--force', 'replace the output file if it exists')
    .action(async (file: string, opts: { out?: string; force?: boolean }) => {
      const [{ importFile }, { summarizeSession }, { writeSessionFile }] = await Promise.all([
        import('../../../workflows/importers/index'),
        import('../../../platform/session/summary'),
        import('../../../platform/session/write'),
      ]);
      const imported = await importFile(file);
      if (!imported.ok) {
        process.stderr.write(`speedmatrix import: ${imported.error}\n`);
        process.exitCode = 1;
        return;
      }
      const out = opts.out ?? defaultImportPath(file);
      if (existsSync(out) && !opts.force) {
        process.stderr.write(
          `speedmatrix import: ${out} already exists; choose another --out or add --force to replace it.\n`,
        );
        process.exitCode = 2;
        return;
      }
      const written = await writeSessionFile(out, imported.data);
      if (!written.ok) {
        process.stderr.write(`speedmatrix import: ${written.error} Choose another place with --out.\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`Imported ${basename(file)} into ${out}\n${summarizeSession(imported.data)}\n`);
    });
}
