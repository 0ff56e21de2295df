import { Option, type Command } from 'commander';
import { basename, dirname, join } from 'node:path';
import type { PaperSize } from '../../report/pdf';

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
    .action(async (file: string, opts: { format: ReportFormat; out?: string; paper: PaperSize }) => {
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
      if (opts.format === 'md') data = renderMarkdownReport(session.data);
      else if (opts.format === 'html') data = renderHtmlReport(session.data);
      else {
        const pdf = await htmlToPdf(renderHtmlReport(session.data), { paper: opts.paper });
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
