import { Option, type Command } from 'commander';
import { basename, dirname, join } from 'node:path';
import type { PaperSize } from '../../report/pdf';
import { TargetSpecError, type TargetSet, parseTargets } from '../../../src-shared/report/slo';

export type ReportFormat = 'md' | 'html' | 'pdf';

const FORMAT_NAMES: Record<ReportFormat, string> = { md: 'Markdown', html: 'HTML', pdf: 'PDF' };

/** run.speedmatrix.json -> run.md; benchmark_results.json -> benchmark_results.md (same folder). */
export function defaultReportPath(input: string, format: ReportFormat): string {
  const stem = basename(input).replace(/\.speedmatrix\.json$/i, '').replace(/\.[^.]+$/, '');
  return join(dirname(input), `${stem || 'report'}.${format}`);
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('Write a report of a session (or of another tool\'s results) as Markdown, HTML or PDF.')
    .argument('<file>', 'session file (.speedmatrix.json), llm-inference-bench results, or report text')
    .addOption(new Option('-f, --format <format>', 'report format').choices(['md', 'html', 'pdf']).default('md'))
    .option('-o, --out <path>', 'where to write it (default: next to the input file)')
    .addOption(new Option('--paper <size>', 'PDF paper size').choices(['a4', 'letter']).default('a4'))
    .option('--slo <targets>', 'service-level targets, e.g. "ttft-p90<=2s,tbt-p90<=50ms,per-request>=20": adds "Capacity within targets"')
    .action(async (file: string, opts: { format: ReportFormat; out?: string; paper: PaperSize; slo?: string }) => {
      let targets: TargetSet | undefined;
      try {
        targets = opts.slo === undefined ? undefined : parseTargets(opts.slo);
      } catch (e) {
        if (!(e instanceof TargetSpecError)) throw e;
        process.stderr.write(`speedmatrix report: --slo: ${e.message}\n`);
        process.exitCode = 2;
        return;
      }
      const [{ openSessionOrImport }, { renderHtmlReport }, { renderMarkdownReport }, { htmlToPdf }, { writeFileAtomic }] = await Promise.all([
        import('../../importers/open'),
        import('../../report/html'),
        import('../../report/markdown'),
        import('../../report/pdf'),
        import('../../session/write'),
      ]);
      const session = await openSessionOrImport(file);
      if (!session.ok) {
        process.stderr.write(`speedmatrix report: ${session.error}\n`);
        process.exitCode = 1;
        return;
      }
      let data: string | Uint8Array;
      if (opts.format === 'md') data = renderMarkdownReport(session.data, { targets });
      else if (opts.format === 'html') data = renderHtmlReport(session.data, { targets });
      else {
        const pdf = await htmlToPdf(renderHtmlReport(session.data, { targets }), { paper: opts.paper });
        if (!pdf.ok) {
          process.stderr.write(`speedmatrix report: ${pdf.error}\n`);
          process.exitCode = 1;
          return;
        }
        data = pdf.data;
      }
      const out = opts.out ?? defaultReportPath(file, opts.format);
      const written = await writeFileAtomic(out, data);
      if (!written.ok) {
        process.stderr.write(`speedmatrix report: ${written.error} Choose another place with --out.\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`Wrote the ${FORMAT_NAMES[opts.format]} report to ${out}\n`);
    });
}
