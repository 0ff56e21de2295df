/**
 * Comparing load sessions (docs/load.md, "Comparing"): the rules in one place for `compare`'s
 * Markdown and HTML and the app's comparison view. Load sessions compare only with load sessions;
 * passes are matched by what was offered (the same rate, or the sweep's synchronous or throughput
 * pass); the headline is each session's answer: the largest rate within the targets when every
 * session has the same targets, else the most each achieved.
 */
import type { Session } from '../session/schema';
import type { LoadRateResult, LoadRun } from '../session/schema-load';
import { NONE, fmtMs, fmtRate, fmtTokPerSec } from './format';
import { loadSection, passLabel } from './load-model';
import type { TableModel } from './report-model';

export interface LoadComparison {
  /** One line per session after the first, against the first. */
  verdicts: string[];
  /** Each session's workload and answer: passes are like for like only where the workloads agree. */
  workloads: TableModel;
  /** One row per pass offered by any session, each session's figures side by side. */
  passes: TableModel;
}

/** Why these sessions do not compare, in words; null when they do (all load sessions, or none). */
export function loadMixRefusal(sessions: readonly Session[], labels: readonly string[]): string | null {
  const load = labels.filter((_, i) => sessions[i].load);
  const matrix = labels.filter((_, i) => !sessions[i].load);
  if (load.length === 0 || matrix.length === 0) return null;
  const are = (l: string[], what: string) => `${l.join(', ')} ${l.length === 1 ? 'is a' : 'are'} ${what}`;
  return `${are(load, 'load session')} and ${are(matrix, 'matrix session')}${matrix.length === 1 ? '' : 's'}: a load run's request rates and a matrix's cells measure different things. Compare load sessions with load sessions.`;
}

const sameTargets = (loads: readonly LoadRun[]): boolean =>
  loads.every((l) => l.config.slo !== null && JSON.stringify(l.config.slo) === JSON.stringify(loads[0].config.slo));

/** The figure compared: the largest rate within the targets (targets alike), else the most achieved. */
function headline(load: LoadRun, byTargets: boolean): number | null {
  if (byTargets) return load.bestRateWithinSlo;
  return load.results.length ? Math.max(...load.results.map((r) => r.achievedRate)) : null;
}

function verdict(a: LoadRun, b: LoadRun, labels: [string, string], byTargets: boolean): string {
  const [x, y] = [headline(a, byTargets), headline(b, byTargets)];
  const what = byTargets ? 'largest rate within the targets' : 'most achieved';
  const ratio = x && y !== null ? ` (${(y / x).toFixed(2)}×)` : '';
  return `${labels[1]} against ${labels[0]}: ${what} ${fmtRate(y)} vs ${fmtRate(x)} req/s${ratio}.`;
}

/** A pass's place: the synchronous pass first, the rates by rate, the throughput pass last. */
export const passKey = (r: LoadRateResult): string => (r.pass === 'rate' ? `rate:${r.targetRate}` : r.pass);
const passOrder = (r: LoadRateResult): number =>
  r.pass === 'synchronous' ? -1 : r.pass === 'throughput' ? Number.POSITIVE_INFINITY : (r.targetRate ?? 0);

function passesTable(loads: readonly LoadRun[], labels: readonly string[]): TableModel {
  const firsts = new Map<string, LoadRateResult>();
  for (const l of loads) for (const r of l.results) if (!firsts.has(passKey(r))) firsts.set(passKey(r), r);
  const kinds = [...firsts.values()].sort((a, b) => passOrder(a) - passOrder(b));
  const each = (title: string) => labels.map((l) => `${l} ${title}`);
  const header = [
    'Pass',
    ...each('achieved req/s'),
    ...each('output tok/s'),
    ...labels.slice(1).map((l) => `${l} / ${labels[0]} output tok/s`),
    ...each('TTFT p99'),
    ...each('kept up'),
  ];
  const rows = kinds.map((kind) => {
    const found = loads.map((l) => l.results.find((r) => passKey(r) === passKey(kind)) ?? null);
    const base = found[0]?.outputTokensPerSecond;
    return [
      passLabel(kind),
      ...found.map((r) => (r ? fmtRate(r.achievedRate) : NONE)),
      ...found.map((r) => (r ? fmtTokPerSec(r.outputTokensPerSecond) : NONE)),
      ...found.slice(1).map((r) => (r && base ? `${(r.outputTokensPerSecond / base).toFixed(2)}×` : NONE)),
      ...found.map((r) => fmtMs(r?.ttft?.p99)),
      ...found.map((r) => (r ? (r.keptUp ? 'yes' : 'no') : NONE)),
    ];
  });
  return { header, rows };
}

/**
 * The load comparison, or null when no session is a load session. Throws when load and matrix
 * sessions are mixed (loadMixRefusal says why).
 */
export function loadComparison(sessions: readonly Session[], labels: readonly string[]): LoadComparison | null {
  const refusal = loadMixRefusal(sessions, labels);
  if (refusal) throw new Error(refusal);
  if (!sessions[0]?.load) return null;
  const loads = sessions.map((s) => s.load as LoadRun);
  const byTargets = sameTargets(loads);
  return {
    verdicts: loads.slice(1).map((l, i) => verdict(loads[0], l, [labels[0], labels[i + 1]], byTargets)),
    workloads: {
      header: ['Session', 'Workload', 'Answer'],
      rows: loads.map((l, i) => {
        const s = loadSection(l);
        return [labels[i], s.workload, s.answer];
      }),
    },
    passes: passesTable(loads, labels),
  };
}

/** One load session as a row of the comparison's Sessions table; null when it did not run or has no load block. */
export interface LoadSessionRow {
  label: string;
  file: string;
  load: LoadRun | null;
  /** Why it has no figures (did not start, file unusable), shown in place of them. */
  problem: string | null;
}

export const LOAD_SESSION_COLUMNS = [
  'Session',
  'Session file',
  'Passes',
  'Most achieved req/s',
  'Largest rate within the targets',
  'Goodput there req/s',
  'Kept up',
];

/** What a session answers about its targets: the largest rate within them, none, or no targets. */
function bestText(l: LoadRun): string {
  if (!l.config.slo) return 'no targets';
  return l.bestRateWithinSlo === null ? 'none tried' : `${fmtRate(l.bestRateWithinSlo)} req/s`;
}

/** The goodput of the pass at the largest rate within the targets. */
function goodputThere(l: LoadRun): string {
  const at = l.results.find((r) => r.pass === 'rate' && r.targetRate === l.bestRateWithinSlo);
  return at?.goodput == null ? NONE : fmtRate(at.goodput);
}

/** The Sessions table of a comparison of load sessions: each one's passes and answer, in place of a matrix's cells. */
export function loadSessionsTable(rows: readonly LoadSessionRow[]): TableModel {
  return {
    header: [...LOAD_SESSION_COLUMNS],
    rows: rows.map(({ label, file, load: l, problem }) => {
      if (!l) return [label, file, problem ?? 'not run yet', NONE, NONE, NONE, NONE];
      const most = l.results.length ? Math.max(...l.results.map((r) => r.achievedRate)) : null;
      return [
        label,
        file,
        l.results.map(passLabel).join(', ') || 'none',
        fmtRate(most),
        bestText(l),
        goodputThere(l),
        `${l.results.filter((r) => r.keptUp).length} of ${l.results.length}`,
      ];
    }),
  };
}

export const LOAD_COMPARE_CAPTION =
  'Passes are matched by what was offered: the same rate, or a sweep’s synchronous or throughput pass; — where a session did not offer it. A sweep spreads its own rates between its two passes, so two sweeps rarely share them.';
