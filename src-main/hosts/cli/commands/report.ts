import { Option, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { PaperSize } from '../../../workflows/report/pdf';
import { TargetSpecError, type TargetSet, parseTargets } from '#shared/report/slo';
import { CELL_METRICS, type CellMetric } from '#shared/report/cell-metrics';
import { GPU_PRICE_HINT, parseGpuPrice } from '#shared/report/price';
import { EXIT } from './exit';
import { Refusal, checkWritableFolder } from './out-folder';

const REPORT_FORMATS = ['md', 'html', 'pdf', 'csv', 'jsonl'] as const;
type ReportFormat = (typeof REPORT_FORMATS)[number];

const FORMAT_NAMES: Record<ReportFormat, string> = {
  md: 'Markdown',
  html: 'HTML',
  pdf: 'PDF',
  csv: 'per-cell CSV',
  jsonl: 'per-request JSON Lines',
};

/** `--out -`: the report goes to standard output. */
const STDOUT = '-';

const extensionOf = (path: string): string | null => /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? null;

/** The format an output file's extension names, or null for another extension. */
function formatOfPath(path: string): ReportFormat | null {
  const ext = extensionOf(path);
  if (ext === 'markdown') return 'md';
  if (ext === 'htm') return 'html';
  return (REPORT_FORMATS as readonly string[]).includes(ext ?? '') ? (ext as ReportFormat) : null;
}

/**
 * --format as given, else the one --out's extension names, else Markdown; an error when the two
 * disagree (a CSV written to report.html would be read as a page), or when no --format is given
 * and --out ends in an extension no format has (Markdown in report.docx would not open).
 */
export function reportFormat(
  given: ReportFormat | undefined,
  out: string | undefined,
): { ok: true; data: ReportFormat } | { ok: false; error: string } {
  const fromPath = out === undefined ? null : formatOfPath(out);
  const ext = out === undefined ? null : extensionOf(out);
  if (!given && ext !== null && fromPath === null) {
    return {
      ok: false,
      error: `--out ${out}: .${ext} is no report format; end it in ${REPORT_FORMATS.map((f) => `.${f}`).join(', ')}, or give --format`,
    };
  }
  if (given && fromPath && given !== fromPath) {
    return {
      ok: false,
      error: `--format ${given} writes ${FORMAT_NAMES[given]}, but --out ${out} ends in .${fromPath}; give an --out ending in .${given}, or leave --format out`,
    };
  }
  return { ok: true, data: given ?? fromPath ?? 'md' };
}

/** run.speedmatrix.json -> run.md; benchmark_results.json -> benchmark_results.md (same folder). */
function defaultReportPath(input: string, format: ReportFormat): string {
  const stem = basename(input)
    .replace(/\.speedmatrix\.json$/i, '')
    .replace(/\.[^.]+$/, '');
  return join(dirname(input), `${stem || 'report'}.${format}`);
}

/** --metric and --gpu-price checked: a known metric, and a price above 0 (its currency named or US dollars) when cost is asked for. */
export function metricOptions(
  metric: string,
  gpuPrice: string | undefined,
):
  | { ok: true; data: { metric: CellMetric; gpuPricePerHour: number | null; gpuPriceCurrency?: string } }
  | { ok: false; error: string } {
  if (!(CELL_METRICS as readonly string[]).includes(metric)) {
    return { ok: false, error: `--metric: "${metric}" is not a metric; use one of ${CELL_METRICS.join(', ')}` };
  }
  const price = gpuPrice === undefined ? null : parseGpuPrice(gpuPrice);
  if (gpuPrice !== undefined && price === null) {
    return { ok: false, error: `--gpu-price: "${gpuPrice}" is not a price; give ${GPU_PRICE_HINT}` };
  }
  if (metric === 'cost-per-million' && price === null) {
    return { ok: false, error: `--metric cost-per-million needs --gpu-price: ${GPU_PRICE_HINT}` };
  }
  return {
    ok: true,
    data: {
      metric: metric as CellMetric,
      gpuPricePerHour: price?.perHour ?? null,
      ...(price && { gpuPriceCurrency: price.currency }),
    },
  };
}

/** Why the report cannot go to `out` (its folder, or a file there without --force), else null. */
function outputRefusal(out: string, force: boolean): string | null {
  try {
    checkWritableFolder('--out', resolve(out));
  } catch (e) {
    if (e instanceof Refusal) return e.message;
    throw e;
  }
  return existsSync(out) && !force ? `${out} already exists; choose another --out or add --force to replace it.` : null;
}

/** Flags given that this report does not use, each said in one line rather than ignored silently. */
export function unusedFlags(o: {
  format: ReportFormat;
  metric: string;
  gpuPrice?: string;
  paperGiven: boolean;
}): string[] {
  const notes: string[] = [];
  if (o.gpuPrice !== undefined && o.metric !== 'cost-per-million')
    notes.push('--gpu-price is used only with --metric cost-per-million; ignored.');
  if (o.metric !== 'total' && (o.format === 'csv' || o.format === 'jsonl'))
    notes.push(
      `--metric is for the heatmap of a report; the ${FORMAT_NAMES[o.format]} export holds every figure. Ignored.`,
    );
  if (o.paperGiven && o.format !== 'pdf')
    notes.push(`--paper is for PDF reports; ignored for ${FORMAT_NAMES[o.format]}.`);
  return notes;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      "Write a report of a session (or of another tool's results) as Markdown, HTML or PDF, or its figures as data: one CSV row per decode cell, or one JSON Lines record per request.",
    )
    .argument('<file>', 'session file (.speedmatrix.json), llm-inference-bench results, or report text')
    .addOption(
      new Option(
        '-f, --format <format>',
        'report format (default: from --out, e.g. cells.csv, requests.jsonl; else md)',
      ).choices(REPORT_FORMATS),
    )
    .option(
      '-o, --out <path>',
      'where to write it, - for standard output; its extension chooses the format (default: next to the input file)',
    )
    .addOption(new Option('--paper <size>', 'PDF paper size').choices(['a4', 'letter']).default('a4'))
    .option(
      '--slo <targets>',
      'service-level targets, e.g. "ttft-p90<=2s,tbt-p90<=50ms,per-request>=20": adds "Capacity within targets"',
    )
    .option('--metric <name>', `figure the decode heatmap shows: ${CELL_METRICS.join(', ')}`, 'total')
    .option(
      '--gpu-price <price>',
      'price of one GPU for one hour, for --metric cost-per-million: 2.5 (US dollars), 2.1 EUR, €2.10',
    )
    .option('--force', 'replace the output file if it exists')
    .action(
      async (
        file: string,
        opts: {
          format?: ReportFormat;
          out?: string;
          paper: PaperSize;
          slo?: string;
          metric: string;
          gpuPrice?: string;
          force?: boolean;
        },
        cmd: Command,
      ) => {
        let targets: TargetSet | undefined;
        try {
          targets = opts.slo === undefined ? undefined : parseTargets(opts.slo);
        } catch (e) {
          if (!(e instanceof TargetSpecError)) throw e;
          process.stderr.write(`speedmatrix report: --slo: ${e.message}\n`);
          process.exitCode = 2;
          return;
        }
        const chosen = reportFormat(opts.format, opts.out);
        if (!chosen.ok) {
          process.stderr.write(`speedmatrix report: ${chosen.error}\n`);
          process.exitCode = 2;
          return;
        }
        const format = chosen.data;
        const view = metricOptions(opts.metric, opts.gpuPrice);
        if (!view.ok) {
          process.stderr.write(`speedmatrix report: ${view.error}\n`);
          process.exitCode = 2;
          return;
        }
        const paperGiven = cmd.getOptionValueSource('paper') === 'cli';
        for (const note of unusedFlags({ ...opts, format, paperGiven }))
          process.stderr.write(`speedmatrix report: ${note}\n`);
        const out = opts.out ?? defaultReportPath(file, format);
        const refused = out === STDOUT ? null : outputRefusal(out, Boolean(opts.force));
        if (refused) {
          process.stderr.write(`speedmatrix report: ${refused}\n`);
          process.exitCode = EXIT.usage;
          return;
        }
        const options = { targets, ...view.data };
        const [
          { openSessionOrImport },
          { renderHtmlReport },
          { renderMarkdownReport },
          { htmlToPdf },
          { writeFileAtomic },
          { renderDataExport, dataExportRefusal },
        ] = await Promise.all([
          import('../../../workflows/importers/open'),
          import('../../../workflows/report/html'),
          import('../../../workflows/report/markdown'),
          import('../../../workflows/report/pdf'),
          import('../../../platform/session/write'),
          import('../../../workflows/report/data-export'),
        ]);
        const session = await openSessionOrImport(file);
        if (!session.ok) {
          process.stderr.write(`speedmatrix report: ${session.error}\n`);
          process.exitCode = 1;
          return;
        }
        let data: string | Uint8Array;
        if (format === 'csv' || format === 'jsonl') {
          const refusal = dataExportRefusal(session.data, format, '-o cells.csv');
          if (refusal) {
            process.stderr.write(`speedmatrix report: ${refusal}\n`);
            process.exitCode = 1;
            return;
          }
          data = renderDataExport(session.data, format);
        } else if (format === 'md') data = renderMarkdownReport(session.data, options);
        else if (format === 'html') data = renderHtmlReport(session.data, options);
        else {
          const pdf = await htmlToPdf(renderHtmlReport(session.data, options), { paper: opts.paper });
          if (!pdf.ok) {
            process.stderr.write(`speedmatrix report: ${pdf.error}\n`);
            process.exitCode = 1;
            return;
          }
          data = pdf.data;
        }
        if (out === STDOUT) {
          process.stdout.write(data);
          return;
        }
        const written = await writeFileAtomic(out, data);
        if (!written.ok) {
          process.stderr.write(`speedmatrix report: ${written.error} Choose another place with --out.\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`Wrote the ${FORMAT_NAMES[format]} report to ${out}\n`);
      },
    );
}
