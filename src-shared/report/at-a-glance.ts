/**
 * "At a glance": the few figures a reader asks first, above everything else a report says. Built
 * once from a session for the report model (so Markdown, HTML, PDF and the results site's run
 * pages), and the app's Results view. The headline figures are the same ones the results
 * site's index sorts by (site-index.ts), so a run's row and its page agree. Pure: no Node imports.
 */
import type { DecodeCell, Session } from '../session/schema';
import type { LoadRun } from '../session/schema-load';
import { cellIndex } from '../cell-key';
import { fmtContext, fmtRate, fmtTokPerSec } from './format';
import { passLabel } from './load-model';
import { type TargetSet, capacityWithinTargets } from './slo';
import { capacityTargetLabels } from './capacity-section';

/** The prefill context quoted first: 8K, the context every reference report measures. */
export const HEADLINE_PREFILL_CONTEXT = 8192;

/** One line of the block: what it is, the figure with its unit, and where it was measured. */
export interface GlanceItem {
  label: string;
  value: string;
  detail: string | null;
}

export const GLANCE_TITLE = 'At a glance';

/** The figures behind the block, in base units (tokens per second, tokens of context). */
export interface HeadlineFigures {
  /** Prompt tok/s at 8K context, when that prefill measurement is Valid. */
  prefill8k: number | null;
  /** The longest context with a Valid prefill measurement, and its prompt tok/s. */
  prefillLongest: { context: number; tokensPerSecond: number } | null;
  /** One request alone (concurrency 1) at the shortest context where that cell is Valid. */
  single: DecodeCell | null;
  /** The Valid cell with the highest total tok/s. */
  best: DecodeCell | null;
  /** The largest context with a Valid measurement (prefill or decode): the longest that fits. */
  largestContext: number | null;
}

export function headlineFigures(s: Session): HeadlineFigures {
  // A rerun replaces its cell: only the latest measurement of each cell counts.
  const valid = [...cellIndex(s.cells).values()].filter((c) => c.status === 'valid' && c.totalTokensPerSecond !== null);
  const single = valid.filter((c) => c.concurrency === 1).sort((a, b) => a.context - b.context)[0] ?? null;
  const best = valid.reduce<DecodeCell | null>(
    (b, c) => (b === null || c.totalTokensPerSecond! > b.totalTokensPerSecond! ? c : b),
    null,
  );
  const prefill = s.prefill.filter((p) => p.status === 'valid' && p.tokensPerSecond !== null);
  const at8k = prefill.find((p) => p.context === HEADLINE_PREFILL_CONTEXT);
  const longest = prefill.reduce<(typeof prefill)[number] | null>(
    (l, p) => (l === null || p.context > l.context ? p : l),
    null,
  );
  const fitting = [...valid.map((c) => c.context), ...prefill.map((p) => p.context)];
  return {
    prefill8k: at8k?.tokensPerSecond ?? null,
    prefillLongest: longest ? { context: longest.context, tokensPerSecond: longest.tokensPerSecond! } : null,
    single,
    best,
    largestContext: fitting.length ? Math.max(...fitting) : null,
  };
}

const tokPerSec = (v: number): string => `${fmtTokPerSec(v)} tok/s`;

/**
 * Capacity within targets in one line: the context where the most requests at once within every
 * target give the highest total tok/s, from the same rows as the report's capacity table.
 */
function capacityItem(s: Session, set: TargetSet): GlanceItem {
  const targets = `targets: ${capacityTargetLabels(set).join('; ')}`;
  const rows = capacityWithinTargets(s, set).filter((r) => r.concurrency !== null);
  const top = rows.reduce<(typeof rows)[number] | null>(
    (b, r) => (b === null || (r.totalTokensPerSecond ?? 0) > (b.totalTokensPerSecond ?? 0) ? r : b),
    null,
  );
  if (!top) return { label: 'Capacity within targets', value: 'none', detail: `no cell meets them (${targets})` };
  return {
    label: 'Capacity within targets',
    value: `${top.concurrency} ${top.concurrency === 1 ? 'request' : 'requests'} at once at ${fmtContext(top.context)}`,
    detail: top.totalTokensPerSecond === null ? targets : `${tokPerSec(top.totalTokensPerSecond)} total (${targets})`,
  };
}

/**
 * A load session's glance (it has no matrix): the most requests per second it achieved, and with
 * targets, the largest rate within them (the same figures as its answer, load-model.ts).
 */
function loadGlance(load: LoadRun): GlanceItem[] {
  const most = load.results.reduce<LoadRun['results'][number] | null>(
    (b, r) => (b === null || r.achievedRate > b.achievedRate ? r : b),
    null,
  );
  if (!most) return [];
  const items: GlanceItem[] = [
    {
      label: 'Most achieved',
      value: `${fmtRate(most.achievedRate)} req/s`,
      detail: `${passLabel(most)}${most.pass === 'rate' ? ' offered' : ' pass'}, ${tokPerSec(most.outputTokensPerSecond)} output`,
    },
  ];
  if (load.config.slo) {
    const best = load.bestRateWithinSlo;
    items.push({
      label: 'Best rate within targets',
      value: best === null ? 'none' : `${fmtRate(best)} req/s`,
      detail:
        best === null
          ? 'no rate tried kept 99% of its requests within the targets'
          : 'at least 99% of its requests met every target, and it kept up',
    });
  }
  return items;
}

/**
 * The block's lines, in reading order: prefill at 8K and at the longest context, one request
 * alone, the peak total and where, and capacity when targets are set. A figure the session lacks
 * is left out; an empty list means no block.
 */
export function atAGlance(s: Session, targets?: TargetSet): GlanceItem[] {
  if (s.load) return loadGlance(s.load);
  const f = headlineFigures(s);
  const items: GlanceItem[] = [];
  if (f.prefill8k !== null)
    items.push({
      label: `Prefill at ${fmtContext(HEADLINE_PREFILL_CONTEXT)}`,
      value: tokPerSec(f.prefill8k),
      detail: 'one prompt at a time',
    });
  if (f.prefillLongest && f.prefillLongest.context !== HEADLINE_PREFILL_CONTEXT)
    items.push({
      label: `Prefill at ${fmtContext(f.prefillLongest.context)}`,
      value: tokPerSec(f.prefillLongest.tokensPerSecond),
      detail: 'the longest context measured',
    });
  if (f.single)
    items.push({
      label: 'Decode, 1 request',
      value: tokPerSec(f.single.totalTokensPerSecond!),
      detail: `one request alone at ${fmtContext(f.single.context)} context`,
    });
  if (f.best)
    items.push({
      label: 'Peak decode',
      value: `${tokPerSec(f.best.totalTokensPerSecond!)} total`,
      detail: `${fmtContext(f.best.context)} context × ${f.best.concurrency} ${f.best.concurrency === 1 ? 'request' : 'requests'} at once`,
    });
  if (targets && s.cells.length) items.push(capacityItem(s, targets));
  return items;
}
