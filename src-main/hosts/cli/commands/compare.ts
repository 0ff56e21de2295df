import { Option, type Command } from 'commander';
import { basename, resolve } from 'node:path';
import type { Regression } from '#shared/report/compare-verdict';
import type { LoadRegression } from '#shared/report/load-gate';
import type { Session } from '#shared/session/schema';
import type { LoadRun } from '#shared/session/schema-load';
import { GPU_PRICE_HINT, parseGpuPrice } from '#shared/report/price';
import { parseRegressionLimit } from './compare-flags';
import { EXIT } from './exit';
import { Refusal, checkWritableFolder } from './out-folder';

interface CompareOptions {
  format: 'md' | 'html';
  out?: string;
  json?: boolean;
  maxRegression?: string;
  gpuPrice?: string;
}

const fail = (message: string, code: number): void => {
  process.stderr.write(`speedmatrix compare: ${message}\n`);
  process.exitCode = code;
};

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description(
      'Compare two or more sessions: a one-line verdict, prefill curves, B / A decode ratios, deltas and the settings that differ. The first file is the baseline (A).',
    )
    .argument('<files...>', "session files (or other tools' results, report text included); at least two")
    .addOption(new Option('-f, --format <format>', 'output format').choices(['md', 'html']).default('md'))
    .option('-o, --out <path>', 'where to write it (default: print to the terminal)')
    .option('--json', 'print the comparison as JSON (the model the reports are laid out from)')
    .option(
      '--max-regression <percent>',
      'regression gate: exit 3, naming the cells, when a cell of a later file is slower than the first by more than this (e.g. 5%) beyond the noise',
    )
    .option(
      '--gpu-price <price>',
      "price of one GPU for one hour, for the overlay's tok/s per price per hour (a server's price counts every GPU it used): 2.5 (US dollars), 2.1 EUR, €2.10",
    )
    .action(async (files: string[], opts: CompareOptions) => {
      if (files.length < 2)
        return fail(
          'give at least two files to compare, e.g. speedmatrix compare a.speedmatrix.json b.speedmatrix.json',
          EXIT.usage,
        );
      const limit = opts.maxRegression === undefined ? null : parseRegressionLimit(opts.maxRegression);
      if (opts.maxRegression !== undefined && limit === null)
        return fail(
          `--max-regression takes a percentage from 0 to 100, e.g. --max-regression 5%; got "${opts.maxRegression}".`,
          EXIT.usage,
        );
      const gpuPrice = opts.gpuPrice === undefined ? null : parseGpuPrice(opts.gpuPrice);
      if (opts.gpuPrice !== undefined && gpuPrice === null)
        return fail(`--gpu-price: "${opts.gpuPrice}" is not a price; give ${GPU_PRICE_HINT}.`, EXIT.usage);
      const [{ openSessionOrImport }, report, { writeFileAtomic }, { compareSessions }, verdict, { loadMixRefusal }] =
        await Promise.all([
          import('../../../workflows/importers/open'),
          import('../../../workflows/report/compare'),
          import('../../../platform/session/write'),
          import('#shared/report/compare-model'),
          import('#shared/report/compare-verdict'),
          import('#shared/report/load-compare'),
        ]);
      const gate = await import('#shared/report/load-gate');
      const sessions: Session[] = [];
      for (const f of files) {
        const s = await openSessionOrImport(f);
        if (!s.ok) return fail(s.error, EXIT.failed);
        sessions.push(s.data);
      }
      if (opts.out) {
        try {
          checkWritableFolder('--out', resolve(opts.out));
        } catch (e) {
          if (!(e instanceof Refusal)) throw e;
          return fail(e.message, EXIT.usage);
        }
      }
      const mixed = loadMixRefusal(
        sessions,
        files.map((f) => basename(f)),
      );
      if (mixed) return fail(mixed, EXIT.usage);
      const model = compareSessions(sessions);
      // Load sessions are gated pass by pass at the offered rates they share (docs/load.md, "Comparing").
      const loads = sessions[0].load ? sessions.map((s) => s.load as LoadRun) : null;
      const unshared = limit !== null && loads ? gate.loadGateRefusal(loads, model.labels) : null;
      if (unshared) return fail(unshared, EXIT.usage);
      const slower: (Regression | LoadRegression)[] =
        limit === null
          ? []
          : loads
            ? gate.loadRegressions(loads, model.labels, limit)
            : verdict.regressions(model.decode, limit);
      const what = loads ? 'figure' : 'cell';
      const text = opts.json
        ? `${JSON.stringify(limit === null ? model : { ...model, regressions: slower }, null, 2)}\n`
        : opts.format === 'html'
          ? report.renderCompareHtml(sessions, {}, { gpuPrice })
          : report.renderCompareMarkdown(sessions, { gpuPrice });
      if (!opts.out) process.stdout.write(text);
      else {
        const written = await writeFileAtomic(opts.out, text);
        if (!written.ok) return fail(`${written.error} Choose another place with --out.`, EXIT.failed);
        process.stdout.write(`Wrote the comparison to ${opts.out}\n`);
      }
      if (limit === null) return;
      const pct = `${+(limit * 100).toFixed(2)}%`;
      // The gate's verdict, passing or failing, goes to stderr: a redirected comparison holds the comparison only.
      if (!slower.length) {
        process.stderr.write(`Regression gate: no ${what} slower by more than ${pct} beyond the noise.\n`);
        return;
      }
      process.stderr.write(
        `Regression gate: ${slower.length} ${what}${slower.length === 1 ? '' : 's'} slower by more than ${pct} beyond the noise:\n${slower.map((g) => `  ${'pass' in g ? gate.fmtLoadRegression(g) : verdict.fmtRegression(g)}\n`).join('')}`,
      );
      process.exitCode = EXIT.regression;
    });
}
