/**
 * The results site's index, as data: one row per run with its headline figures, and the
 * columns the index table shows and sorts by. Pure, no Node imports: the site builder
 * (src-main/workflows/site/build.ts) writes the table from it and caches rows in its manifest; the
 * page's script sorts by the values written beside each cell. See docs/site.md.
 */
import type { Session } from '../session/schema';
import { NONE, fmtCell, fmtContext, fmtTokPerSec } from './format';
import { flagsOf, parseLaunchLine } from './launch-flags';
import { gpuLabelOf, modelNameOf } from './report-blocks';
import { passLabel } from './load-model';
import { headlineFigures } from './at-a-glance';
import type { LoadRateResult } from '../session/schema-load';

export interface SiteRunFigures {
  /** Prompt tok/s at 8K context, when that prefill measurement is Valid. */
  prefill8k: number | null;
  /** Total tok/s of one request alone, at the shortest context where that cell is Valid. */
  decodeSingle: number | null;
  /** The highest total tok/s of any Valid cell, and where it was. */
  bestTotal: number | null;
  bestAt: string | null;
  /** The largest context with a Valid measurement (prefill or decode): the longest that fits. */
  largestContext: number | null;
}

export interface SiteRun extends SiteRunFigures {
  /** The run's folder under runs/ in the site. */
  id: string;
  /** Where it came from, as given on the command line (for a person to find the file). */
  source: string;
  /** The downloadable file's name inside runs/<id>/; null for a run that could not be read. */
  download: string | null;
  /** Why the file could not be read; the other fields are then empty. */
  error: string | null;
  model: string;
  gpu: string;
  engine: string;
  quantization: string;
  kvCacheDtype: string;
  /** ISO time the session was created. */
  createdAt: string;
  tool: string;
  simulated: boolean;
  imported: boolean;
  /** The sweep variant's label ("--max-num-seqs=16"), when the run is part of a sweep. */
  variant: string | null;
}

function launchFlags(s: Session): Map<string, string> {
  if (s.server.argv.length) return flagsOf(s.server.argv);
  return s.server.display.trim() ? parseLaunchLine(s.server.display).flags : new Map();
}

/** vLLM's --kv-cache-dtype; "auto" (the model's dtype) when the launch is known and does not set it. */
function kvCacheDtypeOf(s: Session): string {
  const known = s.server.argv.length > 0 || s.server.display.trim() !== '';
  return launchFlags(s).get('--kv-cache-dtype') ?? (known ? 'auto' : NONE);
}

/**
 * A load session's figures in the index's columns: its best output tok/s and the pass that gave
 * it, and its synchronous pass (one request at a time) as the single-request figure.
 */
function loadRunFigures(load: NonNullable<Session['load']>): SiteRunFigures {
  const best = load.results.reduce<LoadRateResult | null>(
    (b, r) => (b === null || r.outputTokensPerSecond > b.outputTokensPerSecond ? r : b),
    null,
  );
  const single = load.results.find((r) => r.pass === 'synchronous');
  return {
    prefill8k: null,
    decodeSingle: single?.outputTokensPerSecond ?? null,
    bestTotal: best?.outputTokensPerSecond ?? null,
    bestAt: best ? passLabel(best) : null,
    largestContext: null,
  };
}

export function siteRunFigures(s: Session): SiteRunFigures {
  if (s.load) return loadRunFigures(s.load);
  const f = headlineFigures(s);
  return {
    prefill8k: f.prefill8k,
    decodeSingle: f.single?.totalTokensPerSecond ?? null,
    bestTotal: f.best?.totalTokensPerSecond ?? null,
    bestAt: f.best ? fmtCell(f.best.context, f.best.concurrency) : null,
    largestContext: f.largestContext,
  };
}

export function siteRunOf(
  s: Session,
  where: { id: string; source: string; download: string; variant?: string | null },
): SiteRun {
  return {
    ...where,
    variant: where.variant ?? null,
    error: null,
    model: modelNameOf(s),
    gpu: s.hardware.gpus.length ? gpuLabelOf(s) : NONE,
    engine: [s.engine.name, s.engine.version].filter(Boolean).join(' ') || NONE,
    quantization: s.engine.quantization ?? NONE,
    kvCacheDtype: kvCacheDtypeOf(s),
    createdAt: s.createdAt,
    tool: s.runConfig.benchmarkTool,
    simulated: s.simulated,
    imported: s.origin.kind !== 'measured',
    ...siteRunFigures(s),
  };
}

/** A run whose file could not be read: listed with why, so nothing goes missing silently. */
export function unreadableRun(where: { id: string; source: string }, error: string): SiteRun {
  return {
    ...where,
    download: null,
    error,
    model: NONE,
    gpu: NONE,
    engine: NONE,
    quantization: NONE,
    kvCacheDtype: NONE,
    createdAt: '',
    tool: NONE,
    simulated: false,
    imported: false,
    variant: null,
    prefill8k: null,
    decodeSingle: null,
    bestTotal: null,
    bestAt: null,
    largestContext: null,
  };
}

export interface SiteColumn {
  key: string;
  header: string;
  /** Numbers sort largest first on the first click; text sorts A to Z. */
  kind: 'text' | 'number';
  /** Filterable columns get a drop-down of their values. */
  filter?: boolean;
  text: (r: SiteRun) => string;
  /** What the column sorts by: a number, or the text itself. Missing numbers sort last. */
  value: (r: SiteRun) => string | number | null;
}

/** "2026-11-29 10:00 UTC" */
export function fmtSiteDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? NONE : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const text = (key: keyof SiteRun, header: string, filter = false): SiteColumn => ({
  key,
  header,
  kind: 'text',
  filter,
  text: (r) => String(r[key] ?? NONE),
  value: (r) => String(r[key] ?? ''),
});

const tokPerSec = (key: 'prefill8k' | 'decodeSingle' | 'bestTotal', header: string): SiteColumn => ({
  key,
  header,
  kind: 'number',
  text: (r) => fmtTokPerSec(r[key]),
  value: (r) => r[key],
});

export const SITE_COLUMNS: readonly SiteColumn[] = [
  text('model', 'Model', true),
  text('gpu', 'GPU', true),
  text('engine', 'Engine', true),
  text('quantization', 'Quantization'),
  text('kvCacheDtype', 'KV cache dtype'),
  {
    key: 'date',
    header: 'Date',
    kind: 'text',
    text: (r) => (r.createdAt ? fmtSiteDate(r.createdAt) : NONE),
    value: (r) => r.createdAt,
  },
  text('tool', 'Tool'),
  tokPerSec('prefill8k', 'Prefill tok/s at 8K'),
  tokPerSec('decodeSingle', 'Decode tok/s, 1 request'),
  {
    key: 'best',
    header: 'Best decode tok/s',
    kind: 'number',
    text: (r) => (r.bestTotal === null ? NONE : `${fmtTokPerSec(r.bestTotal)} (${r.bestAt})`),
    value: (r) => r.bestTotal,
  },
  {
    key: 'largestContext',
    header: 'Largest context',
    kind: 'number',
    text: (r) => fmtContext(r.largestContext),
    value: (r) => r.largestContext,
  },
];

/** The marks beside a run's name: simulated, imported, unreadable. */
export function siteRunMarks(r: SiteRun): string[] {
  return [r.simulated ? 'SIMULATED' : '', r.imported ? 'imported' : '', r.error ? 'unreadable' : ''].filter(Boolean);
}
