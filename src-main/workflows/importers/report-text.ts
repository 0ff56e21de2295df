/**
 * Importing the text of a speed test matrix report: the web page as copied to text (the
 * reference fixture), or a SpeedMatrix Markdown report. Reads the title, the Hardware /
 * Engine / Run blocks, the launch command and the All measurements table; the matrix and the
 * prefill chart are views of that table, so they are not read.
 */
import { basename } from 'node:path';
import { unescapeMarkdown } from '../report/escape';
import { parseLaunchLine } from '#shared/report/launch-flags';
import { MEASUREMENT_COLUMNS } from '#shared/report/report-model';
import { createSession } from '../../platform/session/create';
import { type CellStatus, type DecodeCell, type Gpu, type PrefillResult, type Session } from '#shared/session/schema';
import { STATUS_WORDS } from '#shared/session/status-words';
import { redactArgv, redactEnv } from '#shared/session/secrets';
import { redactCommandLine } from '#shared/report/redact';
import { type Result, fail, ok } from '#shared/result';
import { readContext, readGigabytes, readMs, readNumber, readSeconds, readTokPerSec, readTokens } from './text-values';

const SECTIONS = [
  'Hardware',
  'Engine',
  'Run',
  'Launch command',
  'Prefill',
  'Sustained decode',
  'All measurements',
] as const;
type SectionName = (typeof SECTIONS)[number];

const BLOCK_LABELS: Record<'Hardware' | 'Engine' | 'Run', readonly string[]> = {
  Hardware: ['Type', 'GPU', 'VRAM', 'OS', 'Driver', 'CUDA', 'Power limit', 'CPU', 'RAM'],
  Engine: ['Engine', 'Version', 'Quantization', 'Backend', 'Repository', 'Build', 'Commit'],
  Run: [
    'Served model',
    'Revision',
    'Benchmark tool',
    'Decode test',
    'Prefill mode',
    'Time per measurement',
    'Max output',
    'Max model length',
  ],
};

const TABLE_MARK = /\|\s*Phase\s*\|\s*Context\s*\|/;

/** True when the text has the report's All measurements table: the one part an import needs. */
export function looksLikeReportText(text: string): boolean {
  return TABLE_MARK.test(text) && /All measurements/i.test(text);
}

/** A GFM table row into cells: split on unescaped `|`, trimmed and unescaped. */
function splitTableRow(line: string): string[] {
  const body = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return body.split(/(?<!\\)\|/).map((c) => unescapeMarkdown(c.trim()));
}

/** The rows (header first) of the table whose header line contains `mark`, from that header on. */
function readTableAt(lines: readonly string[], mark: RegExp): string[][] | null {
  const at = lines.findIndex((l) => mark.test(l));
  if (at < 0) return null;
  const headerLine = lines[at].slice(lines[at].search(mark));
  const rows = [splitTableRow(headerLine)];
  for (let i = at + 1; i < lines.length; i++) {
    const l = lines[i].trim();
    if (!l.startsWith('|')) break;
    if (/^\|[\s|:-]+\|?$/.test(l)) continue; // the |---| separator
    rows.push(splitTableRow(l));
  }
  return rows;
}

const headerName = (line: string): string => line.replace(/^#{1,6}\s+/, '').trim();

function sectionStarts(lines: readonly string[]): Map<SectionName, number> {
  const starts = new Map<SectionName, number>();
  lines.forEach((l, i) => {
    if (/^\s*-/.test(l)) return; // "- Engine" is a label, "Engine" a section
    const name = headerName(l) as SectionName;
    if ((SECTIONS as readonly string[]).includes(name) && !starts.has(name)) starts.set(name, i);
  });
  return starts;
}

function sectionLines(lines: readonly string[], starts: Map<SectionName, number>, name: SectionName): string[] {
  const from = starts.get(name);
  if (from === undefined) return [];
  const next = Math.min(...[...starts.values()].filter((i) => i > from), lines.length);
  return lines.slice(from + 1, next);
}

/** Label/value pairs, as "- Label" + "- Value" lines (web page) or "- **Label**: Value" (Markdown). */
function readBlock(lines: readonly string[], labels: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  let pending: string | null = null;
  for (const raw of lines) {
    const text = raw.trim().replace(/^-\s*/, '');
    if (!text) continue;
    const pair = /^\*\*(.+?)\*\*:\s*(.*)$/.exec(text);
    if (pair) {
      out.set(unescapeMarkdown(pair[1]), unescapeMarkdown(pair[2]));
      pending = null;
    } else if (pending === null && labels.includes(text)) {
      pending = text;
    } else if (pending !== null) {
      out.set(pending, text);
      pending = null;
    }
  }
  return out;
}

const value = (m: Map<string, string>, k: string): string | null => {
  const v = m.get(k);
  return v === undefined || v === '—' || v === '' ? null : v;
};

/** The launch line: the web page runs the next heading ("Prefill") onto its end. */
function readLaunch(all: readonly string[], starts: Map<SectionName, number>): string | null {
  const from = starts.get('Launch command');
  if (from === undefined) return null;
  const body: string[] = [];
  for (let i = from + 1; i < all.length; i++) {
    const l = all[i];
    const name = headerName(l);
    if (!/^\s*-/.test(l) && (SECTIONS as readonly string[]).includes(name)) break;
    if (/^```/.test(l.trim())) continue;
    const glued = /^(.*\S)Prefill\s*$/.exec(l);
    if (glued && /^prompt tok\/s/i.test(all[i + 1]?.trim() ?? '')) {
      body.push(glued[1]);
      break;
    }
    if (l.trim()) body.push(l.trim());
  }
  const line = body.join(' ').trim();
  return line && !/^Not recorded/i.test(line) ? line : null;
}

const STATUS_BY_WORD = new Map<string, CellStatus>(
  Object.entries(STATUS_WORDS).map(([status, word]) => [word.toLowerCase(), status as CellStatus]),
);

function guessVendor(name: string): Gpu['vendor'] {
  if (/nvidia|geforce|rtx|quadro|tesla|\b[ABHLG]\d{2,3}\b|GB\d{3}|B200|H200|H100|A100|L40/i.test(name)) return 'nvidia';
  if (/radeon|instinct|\bMI\d{3}/i.test(name)) return 'amd';
  if (/apple|\bM\d( (Pro|Max|Ultra))?\b/i.test(name)) return 'apple';
  if (/intel|arc\b/i.test(name)) return 'intel';
  if (/simulat/i.test(name)) return 'simulated';
  return 'other';
}

function gpusOf(hw: Map<string, string>): Gpu[] {
  const label = value(hw, 'GPU');
  if (!label) return [];
  const m = /^(\d+)\s*[×x]\s*(.+)$/.exec(label);
  const n = m ? Number(m[1]) : 1;
  const name = m ? m[2] : label;
  const vram = readGigabytes((value(hw, 'VRAM') ?? '').replace(/\s*each$/, '')) ?? null;
  return Array.from({ length: n }, (_, index) => ({
    index,
    vendor: guessVendor(name),
    name,
    uuid: null,
    vramBytes: vram,
    driver: value(hw, 'Driver'),
    cuda: value(hw, 'CUDA'),
    computeCapability: null,
    powerLimitWatts: readNumber((value(hw, 'Power limit') ?? '').replace(/\s*W$/, '')) ?? null,
    busId: null,
  }));
}

/** "MODEL on GPU": the first line after the "Speed test matrix" kicker, or the first heading. */
function readTitle(lines: readonly string[]): string | null {
  const kicker = lines.findIndex((l) => headerName(l) === 'Speed test matrix');
  const after = kicker >= 0 ? lines.slice(kicker + 1).find((l) => l.trim() !== '') : undefined;
  const heading = after ?? lines.find((l) => /^#\s+\S/.test(l));
  return heading ? unescapeMarkdown(headerName(heading)) : null;
}

/**
 * "Intel Xeon E5-2680 v4 (14C)", "AMD EPYC 9355 (32 cores, 64 threads)", "... (14C/28T)": the
 * model, and the core and thread counts the brackets give.
 */
export function cpuOf(text: string): { model: string; cores: number | null; threads: number | null } {
  const m = /\s*\((\d+)\s*(?:C|cores?)(?:\s*[,/]\s*(\d+)\s*(?:T|threads?))?\)\s*$/i.exec(text);
  if (!m) return { model: text.replace(/\s*\(.*\)$/, ''), cores: null, threads: null };
  return { model: text.slice(0, m.index), cores: Number(m[1]), threads: m[2] ? Number(m[2]) : null };
}

/** The All measurements table's rows as prefill points and decode cells; the first bad cell refused, named by its row. */
function readRows(
  table: string[][],
  name: string,
  hints: number[],
): Result<{ prefill: PrefillResult[]; cells: DecodeCell[] }> {
  const header = table[0];
  const col = new Map(header.map((h, i) => [h, i]));
  const prefill: PrefillResult[] = [];
  const cells: DecodeCell[] = [];
  for (let r = 1; r < table.length; r++) {
    const row = table[r];
    const cell = (c: string): string => row[col.get(c)!] ?? '';
    const where = `${name}, All measurements row ${r} (${row.slice(0, 3).join(' | ')})`;
    const bad = (c: string): Result<never> => fail(`${where}: "${cell(c)}" is not a valid ${c} value.`);
    if (row.length < header.length)
      return fail(`${where}: the row has ${row.length} cells, the header ${header.length}; the table looks truncated.`);

    const status = STATUS_BY_WORD.get(cell('Status').toLowerCase());
    if (!status)
      return fail(
        `${where}: unknown status "${cell('Status')}"; expected one of ${Object.values(STATUS_WORDS).join(', ')}.`,
      );
    const context = readContext(cell('Context'), hints);
    if (context === undefined) return bad('Context');
    const total = readTokPerSec(cell('Total tok/s'));
    if (total === undefined) return bad('Total tok/s');
    const ttft = readMs(cell('TTFT'));
    if (ttft === undefined) return bad('TTFT');
    const phase = cell('Phase').toLowerCase();

    if (phase === 'prefill') {
      prefill.push({
        context,
        status,
        reason: null,
        promptTokens: null,
        ttftSeconds: ttft,
        tokensPerSecond: total,
        measuredAt: null,
      });
      continue;
    }
    if (phase !== 'sustained decode' && phase !== 'decode')
      return fail(`${where}: unknown phase "${cell('Phase')}"; expected Prefill or Sustained decode.`);
    const concurrency = readNumber(cell('Requests at once'));
    if (!concurrency || !Number.isInteger(concurrency) || concurrency < 1) return bad('Requests at once');
    const perRequest = readTokPerSec(cell('Per request tok/s'));
    if (perRequest === undefined) return bad('Per request tok/s');
    const tbt = readMs(cell('Time between tokens'));
    if (tbt === undefined) return bad('Time between tokens');
    const active = readNumber(cell('Average active requests'));
    if (active === undefined) return bad('Average active requests');
    const completed = readNumber(cell('Completed requests'));
    if (completed === undefined) return bad('Completed requests');
    const output = readNumber(cell('Output tokens'));
    if (output === undefined) return bad('Output tokens');
    const window = readSeconds(cell('Measured for'));
    if (window === undefined) return bad('Measured for');
    // A report prints medians only; the other statistics repeat the median (said in checksUnavailable).
    const stats = (v: number | null) => (v === null ? null : { p50: v, p90: v, p99: v, mean: v });
    cells.push({
      context,
      concurrency,
      status,
      reason: null,
      promptTokens: null,
      totalTokensPerSecond: total,
      perRequestTokensPerSecond: perRequest,
      ttft: stats(ttft),
      timeBetweenTokens: stats(tbt),
      avgActiveRequests: active,
      completedRequests: completed,
      outputTokens: output,
      windowSeconds: window,
      readinessTimedOut: false,
      maxWaitingSeen: null,
      evidence: null,
      requests: null,
      telemetry: null,
      startedAt: null,
      finishedAt: null,
    });
  }
  return ok({ prefill, cells });
}

/** Parse the text; `file` names it in messages and in the session's origin. */
export function parseReportText(text: string, file = 'report'): Result<Session> {
  const name = basename(file);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const table = readTableAt(lines, TABLE_MARK);
  if (!table) return fail(`${name} has no All measurements table, so there is nothing to import.`);

  const header = table[0];
  const col = new Map(header.map((h, i) => [h, i]));
  const absent = MEASUREMENT_COLUMNS.filter((c) => !col.has(c));
  if (absent.length) {
    return fail(
      `${name}: the All measurements table has no ${absent.map((c) => `"${c}"`).join(', ')} column${absent.length > 1 ? 's' : ''}; expected the columns ${MEASUREMENT_COLUMNS.join(', ')}.`,
    );
  }

  const starts = sectionStarts(lines);
  const hw = readBlock(sectionLines(lines, starts, 'Hardware'), BLOCK_LABELS.Hardware);
  const eng = readBlock(sectionLines(lines, starts, 'Engine'), BLOCK_LABELS.Engine);
  const run = readBlock(sectionLines(lines, starts, 'Run'), BLOCK_LABELS.Run);
  const launchLine = readLaunch(lines, starts);
  const launch = launchLine ? parseLaunchLine(launchLine) : null;

  const maxOutput = readTokens(value(run, 'Max output') ?? '') ?? 4096;
  const maxModelLen =
    readNumber(launch?.flags.get('--max-model-len') ?? '') ?? readTokens(value(run, 'Max model length') ?? '') ?? null;
  const hints = maxModelLen ? [maxModelLen - maxOutput - 64] : [];

  const rows = readRows(table, name, hints);
  if (!rows.ok) return rows;
  const { prefill, cells } = rows.data;
  if (prefill.length === 0 && cells.length === 0)
    return fail(`${name}: the All measurements table has no rows; the file looks truncated.`);

  const title = readTitle(lines);
  const titleModel = title && title.includes(' on ') ? title.slice(0, title.indexOf(' on ')) : null;
  const seconds =
    readSeconds(value(run, 'Time per measurement') ?? '') ?? cells.find((c) => c.windowSeconds)?.windowSeconds ?? 30;
  const os = value(hw, 'OS');
  const uniq = (v: number[]) => [...new Set(v)].sort((a, b) => a - b);
  const displayLine = launchLine ? redactCommandLine(launchLine) : '';

  const session = createSession({
    simulated: /^\s*>?\s*\**SIMULATED/m.test(text),
    origin: { kind: 'imported-report-text', file: name },
    hardware: {
      gpuType: value(hw, 'Type'),
      gpus: gpusOf(hw),
      cpu: value(hw, 'CPU') ? cpuOf(value(hw, 'CPU')!) : null,
      ramBytes: readGigabytes(value(hw, 'RAM') ?? '') ?? null,
      os: os ? { platform: os.replace(/\s*\(.*\)$/, '') } : null,
      notes: [],
    },
    engine: {
      name: value(eng, 'Engine') ?? 'unknown',
      version: value(eng, 'Version'),
      commit: value(eng, 'Commit'),
      quantization: value(eng, 'Quantization'),
      dtype: launch?.flags.get('--dtype') ?? null,
      backend: value(eng, 'Backend'),
      build: value(eng, 'Build'),
      repository: value(eng, 'Repository'),
    },
    server: {
      kind: 'imported',
      url: null,
      argv: launch ? redactArgv(launch.argv) : [],
      env: launch ? redactEnv(launch.env) : {},
      display: displayLine,
      model: launch?.model ?? titleModel,
      servedModel: value(run, 'Served model') ?? launch?.flags.get('--served-model-name') ?? null,
      revision: value(run, 'Revision'),
      maxModelLen: maxModelLen ?? null,
    },
    runConfig: {
      contexts: uniq(cells.map((c) => c.context)),
      concurrency: uniq(cells.map((c) => c.concurrency)),
      prefillContexts: uniq(prefill.map((p) => p.context)),
      secondsPerMeasurement: seconds,
      maxOutputTokens: maxOutput,
      decodeTestMode: 'fixed-duration',
      prefillMode: 'during-decode-warmup',
      tokenTargeting: 'exact',
      benchmarkTool: value(run, 'Benchmark tool') ?? 'unknown',
      runTag: 'imported',
    },
    kvBudget: { tokens: null, source: 'imported', detail: 'not stated in the imported report' },
    prefill,
    cells,
    events: [{ at: new Date().toISOString(), level: 'info', message: `Imported from the report text ${name}.` }],
    checksUnavailable: [
      'Imported from a report: only medians of TTFT and time between tokens are known (their p90, p99 and mean are not shown), and per-request timings are not available.',
    ],
  });
  return ok(session);
}
