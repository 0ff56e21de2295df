import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import type { Session } from '../../../src-shared/session/schema';
import { EXIT } from './exit';
import { Refusal, checkWritableFolder } from './out-folder';

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description(
      'Compare two or more sessions: prefill curves, B / A decode ratios, deltas and the settings that differ. The first file is the baseline (A).',
    )
    .argument('<files...>', "session files (or other tools' results); at least two")
    .addOption(new Option('-f, --format <format>', 'output format').choices(['md', 'html']).default('md'))
    .option('-o, --out <path>', 'where to write it (default: print to the terminal)')
    .action(async (files: string[], opts: { format: 'md' | 'html'; out?: string }) => {
      if (files.length < 2) {
        process.stderr.write(
          'speedmatrix compare: give at least two files to compare, e.g. speedmatrix compare a.speedmatrix.json b.speedmatrix.json\n',
        );
        process.exitCode = 2;
        return;
      }
      const [{ openSessionOrImport }, { renderCompareHtml, renderCompareMarkdown }, { writeFileAtomic }] =
        await Promise.all([
          import('../../importers/open'),
          import('../../report/compare'),
          import('../../session/write'),
        ]);
      const sessions: Session[] = [];
      for (const f of files) {
        const s = await openSessionOrImport(f);
        if (!s.ok) {
          process.stderr.write(`speedmatrix compare: ${s.error}\n`);
          process.exitCode = 1;
          return;
        }
        sessions.push(s.data);
      }
      if (opts.out) {
        try {
          checkWritableFolder('--out', resolve(opts.out));
        } catch (e) {
          if (!(e instanceof Refusal)) throw e;
          process.stderr.write(`speedmatrix compare: ${e.message}\n`);
          process.exitCode = EXIT.usage;
          return;
        }
      }
      const text = opts.format === 'html' ? renderCompareHtml(sessions) : renderCompareMarkdown(sessions);
      if (!opts.out) {
        process.stdout.write(text);
        return;
      }
      const written = await writeFileAtomic(opts.out, text);
      if (!written.ok) {
        process.stderr.write(`speedmatrix compare: ${written.error} Choose another place with --out.\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`Wrote the comparison to ${opts.out}\n`);
    });
}
