/**
 * The Markdown report: the reference report's sections in its order, then energy, telemetry
 * and notes when the session has them. Every string from the session is escaped, so a model
 * name holding `|` or `<script>` cannot break a table or inject HTML.
 */
import type { Session } from '#shared/session/schema';
import { codeBlock, escapeMarkdownLine as line, escapeMarkdown as md } from './escape';
import {
  type ReportModel,
  type ReportOptions,
  SIMULATED_NOTE,
  type TableModel,
  buildReportModel,
} from '#shared/report/report-model';
import { type InfoBlock } from '#shared/report/report-blocks';
import { fmtContext } from '#shared/report/format';
import { type DecodeMatrixModel, MISSES_TARGETS, type MatrixCellView } from '#shared/report/matrix-model';
import type { CapacitySection } from '#shared/report/capacity-section';
import type { LoadSection } from '#shared/report/load-model';
import { GLANCE_TITLE, type GlanceItem } from '#shared/report/at-a-glance';

/** A GFM table; cells are escaped here, so callers pass plain text. Rows in `bold` are emphasised. */
export function markdownTable(table: TableModel, bold: ReadonlySet<number> = new Set()): string {
  const line = (cells: readonly string[], strong = false): string =>
    `| ${cells.map((c) => (strong && c ? `**${md(c)}**` : md(c))).join(' | ')} |`;
  return [
    line(table.header),
    `|${table.header.map(() => '---').join('|')}|`,
    ...table.rows.map((r, i) => line(r, bold.has(i))),
  ].join('\n');
}

function block(b: InfoBlock): string {
  const rows = b.rows.map((r) => `- **${md(r.label)}**: ${md(r.value)}`);
  return [`## ${b.title}`, '', ...(b.missing ? [line(b.missing), ''] : []), ...rows].join('\n');
}

/** "141.4 · 37 ms TTFT", "… · Requests queued", "… · misses the targets", or the status word. */
export function matrixCellText(cell: MatrixCellView): string {
  const missed = cell.missesTargets && cell.kind === 'value' ? MISSES_TARGETS : null;
  return [cell.text, cell.detail, cell.flag, missed].filter(Boolean).join(' · ');
}

export function decodeMatrixTable(m: DecodeMatrixModel): TableModel {
  return {
    header: ['Context', ...m.concurrency.map(String)],
    rows: m.rows.map((row, i) => [fmtContext(m.contexts[i], m.contexts), ...row.map(matrixCellText)]),
  };
}

const paragraphs = (lines: readonly string[]): string[] => lines.flatMap((l) => [line(l), '']);

export function renderMarkdownFromModel(r: ReportModel): string {
  const out: string[] = [r.kicker, '', `# ${md(r.title)}`, ''];
  if (r.simulated) out.push(`> **${md(SIMULATED_NOTE)}**`, '');
  if (r.origin) out.push(`*${md(r.origin)}*`, '');
  if (r.engineLine) out.push(line(r.engineLine), '');
  out.push(line(r.matrixLine), '');
  if (r.glance.length) out.push(glanceMarkdown(r.glance), '');
  if (r.missing.length) out.push('**Missing from this session:**', '', ...r.missing.map((m) => `- ${md(m)}`), '');

  for (const b of r.blocks) out.push(block(b), '');

  out.push('## Launch command', '');
  out.push(r.launch ? codeBlock(r.launch) : line(r.launchMissing), '');

  if (r.load) return finish([...out, loadMarkdown(r.load)]);
  out.push('## Prefill', '', line(r.prefillCaption), '');
  out.push(r.prefill ? markdownTable(r.prefill) : 'No prefill measurements in this session.', '');

  out.push('## Sustained decode', '', line(r.decodeCaption), '');
  if (r.decodeUnavailable) out.push(line(r.decodeUnavailable), '');
  else if (r.decode.contexts.length && r.decode.concurrency.length)
    out.push(markdownTable(decodeMatrixTable(r.decode)), '');
  else out.push('No decode measurements in this session.', '');
  out.push(...paragraphs(r.legend), line(r.ttftNote), '');

  if (r.capacity) out.push(capacityMarkdown(r.capacity), '');

  out.push('## All measurements', '', line(r.measurementsCaption), '');
  out.push(r.measurements.rows.length ? markdownTable(r.measurements) : 'No measurements in this session.', '');

  if (r.latency) out.push('## Latency percentiles', '', line(r.latencyCaption), '', markdownTable(r.latency), '');
  if (r.energy)
    out.push(
      '## Energy per token',
      '',
      'GPU energy per generated token · rows are context length, columns are simultaneous requests',
      '',
      markdownTable(r.energy),
      '',
    );
  if (r.telemetry)
    out.push(
      '## GPU telemetry per measurement',
      '',
      'Averages over each measurement window.',
      '',
      markdownTable(r.telemetry),
      '',
    );
  if (r.cellNotes.length) out.push('## Notes', '', ...r.cellNotes.map((n) => `- ${md(n)}`), '');
  if (r.checksUnavailable.length)
    out.push('## Checks not made', '', ...r.checksUnavailable.map((n) => `- ${md(n)}`), '');
  return finish(out);
}

const finish = (out: readonly string[]): string =>
  `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;

/** "At a glance" first, as a list: "- **Peak decode**: 4,786.2 tok/s total (8K context × 16 requests at once)". */
function glanceMarkdown(items: readonly GlanceItem[]): string {
  const rows = items.map((g) => `- **${md(g.label)}**: ${md(g.value)}${g.detail ? ` (${md(g.detail)})` : ''}`);
  return [`## ${GLANCE_TITLE}`, '', ...rows].join('\n');
}

function loadMarkdown(l: LoadSection): string {
  return [
    '## Load',
    '',
    line(l.workload),
    '',
    `**${md(l.answer)}**`,
    '',
    markdownTable(l.table),
    '',
    ...l.notes.map((n) => `- ${md(n)}`),
  ].join('\n');
}

function capacityMarkdown(c: CapacitySection): string {
  return [
    `## ${c.title}`,
    '',
    `Targets: ${c.targets.map(md).join('; ')}.`,
    '',
    markdownTable({ header: c.header, rows: c.rows }),
    '',
    ...paragraphs(c.notes),
  ].join('\n');
}

export function renderMarkdownReport(session: Session, options: ReportOptions = {}): string {
  return renderMarkdownFromModel(buildReportModel(session, options));
}
