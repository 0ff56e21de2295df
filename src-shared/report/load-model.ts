/**
 * What a load session says (docs/load.md): one row per pass with its figures as text, and the
 * answer in one sentence. Defined once for the CLI, the reports and the app.
 */
import type { CountedStats, LoadRateResult, LoadRun } from '../session/schema-load';
import {
  fmtCount,
  fmtMs,
  fmtMsPrecise,
  fmtOneDecimal,
  fmtPercent,
  fmtRate,
  fmtSettingSeconds,
  fmtTokPerSec,
  fmtTwoDecimals,
  plural,
} from './format';

export const LOAD_COLUMNS = [
  'Pass',
  'Offered req/s',
  'Achieved req/s',
  'Output tok/s',
  'Total tok/s',
  'TTFT p50 / p90 / p99',
  'TBT p50 / p90 / p99',
  'E2E p50 / p90 / p99',
  'Requests',
  'Errors',
  'Kept up',
  'Goodput req/s',
] as const;

const PASS_LABEL = { synchronous: 'synchronous', throughput: 'throughput', trace: 'trace replay' } as const;

/** A pass's name: its rate, or the sweep pass it was. */
export function passLabel(r: Pick<LoadRateResult, 'pass' | 'targetRate'>): string {
  return r.pass === 'rate' ? `${fmtRate(r.targetRate)} req/s` : PASS_LABEL[r.pass];
}

/** The line a pass starts with as `load` prints it: "[3/6] 1.2 req/s...", "[1/6] synchronous pass...". */
export function passStartLine(p: Pick<LoadRateResult, 'pass' | 'targetRate'>, index: number, total: number): string {
  return `[${index + 1}/${total}] ${passLabel(p)}${p.pass === 'rate' ? '' : ' pass'}...`;
}

const three = (s: CountedStats | null, fmt: (v: number) => string): string =>
  s ? `${fmt(s.p50)} / ${fmt(s.p90)} / ${fmt(s.p99)} (n=${fmtCount(s.count)})` : '—';

/** The row of one pass, in LOAD_COLUMNS order. */
export function loadRow(r: LoadRateResult): string[] {
  return [
    passLabel(r),
    fmtRate(r.offeredRate),
    fmtRate(r.achievedRate),
    fmtTokPerSec(r.outputTokensPerSecond),
    fmtTokPerSec(r.totalTokensPerSecond),
    three(r.ttft, fmtMs),
    three(r.timeBetweenTokens, fmtMsPrecise),
    three(r.e2e, fmtMs),
    fmtCount(r.requests),
    fmtCount(r.errors),
    r.keptUp ? 'yes' : 'no',
    r.goodput === null ? '—' : fmtRate(r.goodput),
  ];
}

/** The answer: the largest rate within the targets, else the most the server achieved. */
export function loadAnswer(load: LoadRun): string {
  const most = Math.max(0, ...load.results.map((r) => r.achievedRate));
  const best = `The most it achieved: ${fmtRate(most)} req/s.`;
  if (!load.config.slo) return best;
  if (load.bestRateWithinSlo === null) return `No rate tried kept 99% of its requests within the targets. ${best}`;
  // 99% is the rule a rate is held to (docs/load.md), not a measured share: say it as the rule.
  return `Largest rate within the targets: ${fmtRate(load.bestRateWithinSlo)} req/s (a rate counts when at least 99% of its requests meet them and it kept up). ${best}`;
}

/** A load session's part of a report: what was offered, the answer, and one row per pass. */
export interface LoadSection {
  /** The workload in one line: arrivals, lengths, endpoint, window. */
  workload: string;
  answer: string;
  table: { header: string[]; rows: string[][] };
  /** Each pass that did not keep up, with why; then each pass's figures beyond the table (passDetails). */
  notes: string[];
}

/** A length spec as its flag is written: `1024`, `512-2048`, `1024~256`. */
export const lengthText = (s: LoadRun['config']['inputLength']): string =>
  s.kind === 'fixed' ? `${s.tokens}` : s.kind === 'uniform' ? `${s.min}-${s.max}` : `${s.mean}~${s.sd}`;

/** What was offered: a trace, a sweep, the rates, or (a closed loop: AIPerf's --concurrency) no rate at all. */
function offeredText(c: LoadRun['config']): string {
  if (c.trace) {
    const t = c.trace;
    const speed = t.speed === 1 ? '' : ` at ${Number(t.speed.toPrecision(3))}x its speed`;
    return `replay of ${t.file}: ${plural(t.requests, 'request')} over ${fmtSettingSeconds(t.spanSeconds)}${speed}`;
  }
  if (c.sweep) return `sweep of ${plural(c.sweep.points, 'rate')}`;
  if (c.rates.length) return `rates ${c.rates.map(fmtRate).join(', ')} req/s`;
  return 'no set rate: each request sent as soon as one finishes';
}

/** A length spec for reading: a fixed length with separators ("1,025"), a range or distribution as its flag. */
const lengthWords = (s: LoadRun['config']['inputLength']): string =>
  s.kind === 'fixed' ? fmtCount(s.tokens) : lengthText(s);

export function loadSection(load: LoadRun): LoadSection {
  const c = load.config;
  const closedLoop = !c.sweep && c.rates.length === 0 && !c.trace;
  const arrivals =
    c.arrivals.kind === 'gamma'
      ? `gamma arrivals (CV ${fmtTwoDecimals(c.arrivals.cv)})`
      : `${c.arrivals.kind} arrivals`;
  const perPass = closedLoop ? 'measured' : 'per rate';
  const conv = c.conversation;
  const workload = c.trace
    ? [offeredText(c), 'lengths and shared prefixes from the trace', `${c.endpoint} endpoint`]
    : [
        offeredText(c),
        closedLoop ? null : arrivals,
        conv ? `${conv.turns}-turn conversations, ${fmtSettingSeconds(conv.thinkSeconds)} think time` : null,
        c.maxInFlight === null ? 'no cap in flight' : `at most ${fmtCount(c.maxInFlight)} in flight`,
        c.dataset
          ? `prompts from ${c.dataset}`
          : `input ${lengthWords(c.inputLength)} tokens${conv ? ' per turn' : ''}`,
        `output ${lengthWords(c.outputLength)} tokens${c.ignoreEos ? '' : ' at most'}`,
        c.sharedPrefixTokens ? `shared prefix ${fmtCount(c.sharedPrefixTokens)} tokens` : null,
        `${c.endpoint} endpoint`,
        `${fmtSettingSeconds(c.durationSeconds)} ${perPass} after ${fmtSettingSeconds(c.warmupSeconds)} warm-up`,
      ];
  return {
    workload: workload.filter(Boolean).join(' · '),
    answer: loadAnswer(load),
    table: { header: [...LOAD_COLUMNS], rows: load.results.map(loadRow) },
    notes: [
      ...load.results.filter((r) => !r.keptUp).map((r) => `${passLabel(r)}: not kept up: ${r.keptUpReason}.`),
      ...load.results.flatMap(passDetails),
    ],
  };
}

/**
 * A pass's figures beyond the table, a sentence each, only those it measured: how late requests
 * left against their schedule (open-loop passes), the time to the first answer token after
 * reasoning, what the server's prefix cache found, and TTFT per conversation turn.
 */
export function passDetails(r: LoadRateResult): string[] {
  const label = passLabel(r);
  const out: string[] = [];
  const lag = r.arrivalLag;
  if (lag && (r.pass === 'rate' || r.pass === 'trace'))
    out.push(`${label}: requests left ${fmtMs(lag.p50)} (p50), ${fmtMs(lag.p99)} (p99) after their scheduled arrival.`);
  if (r.timeToFirstAnswer || r.meanReasoningTokens)
    out.push(
      `${label}: time to first answer token, after reasoning: ${three(r.timeToFirstAnswer ?? null, fmtMs)}; ${fmtOneDecimal(r.meanReasoningTokens ?? 0)} reasoning tokens per request.`,
    );
  const pc = r.prefixCache;
  if (pc && pc.queriedTokens > 0)
    out.push(
      `${label}: the server's prefix cache found ${fmtPercent(pc.hitTokens / pc.queriedTokens)} of ${fmtCount(pc.queriedTokens)} prompt tokens (${fmtCount(pc.hitTokens)} cached).`,
    );
  if (r.ttftByTurn?.length)
    out.push(
      `${label}: TTFT p50 by conversation turn: ${r.ttftByTurn.map((t) => `turn ${t.turn} ${fmtMs(t.ttft.p50)}`).join(', ')}.`,
    );
  return out;
}

/** One pass as the load charts plot it: x is the offered rate; latencies in seconds (null: none measured). */
export interface LoadChartPoint {
  label: string;
  offeredRate: number;
  achievedRate: number;
  outputTokensPerSecond: number;
  ttftP50: number | null;
  ttftP99: number | null;
  tbtP50: number | null;
  e2eP50: number | null;
}

/**
 * The passes as the throughput-vs-rate and latency-vs-rate charts draw them, by offered rate
 * (a sweep's synchronous and throughput passes sit where their offered rate puts them).
 */
export function loadChartPoints(results: readonly LoadRateResult[]): LoadChartPoint[] {
  return results
    .map((r) => ({
      label: passLabel(r),
      offeredRate: r.offeredRate,
      achievedRate: r.achievedRate,
      outputTokensPerSecond: r.outputTokensPerSecond,
      ttftP50: r.ttft?.p50 ?? null,
      ttftP99: r.ttft?.p99 ?? null,
      tbtP50: r.timeBetweenTokens?.p50 ?? null,
      e2eP50: r.e2e?.p50 ?? null,
    }))
    .sort((a, b) => a.offeredRate - b.offeredRate);
}
