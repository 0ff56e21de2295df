/**
 * The plan of a run, decided before anything is sent: which cells run, which are Over
 * capacity (C x (context + max output) above the KV budget), Too long or Skipped, in what
 * order, and about how long it takes. Pure: the UI shows it before the user presses Start.
 */
import { cellKey } from '../../src-shared/cell-key';
import { fmtContext } from '../../src-shared/report/format';
import { newRunTag } from '../session/create';
import type { KvBudget } from '../../src-shared/session/schema';
import type { ServerTarget } from '../server/target';
import { DEFAULT_SCOUT_DEADLINE, expectedPrefillSeconds, type PrefillPoint } from './scout-deadline';
import type { PlannedCell, PlannedPrefill, PlanStep, ResolvedRunConfig, RunConfigInput, RunPlan } from './types';

export const K = 1024;
export const DEFAULT_CONTEXTS = [0, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K];
export const DEFAULT_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64, 128];
export const PREFILL_EXTRA_CONTEXT = 256 * K;
export const DEFAULT_SECONDS = 30;
export const DEFAULT_MAX_OUTPUT = 4096;
/** Room left for the chat template and the final question (docs/method.md: max_model_len - max_output - 64). */
export const CONTEXT_MARGIN = 64;

/** The part of a ServerTarget the plan needs (so the UI can plan from a probe alone). */
export type PlanTarget = Pick<ServerTarget, 'maxModelLen' | 'kvBudget'> & Partial<Pick<ServerTarget, 'launch' | 'simulated' | 'simSpeed'>>;

/** The largest useful context: max_model_len - max_output - 64. */
export function largestContext(maxModelLen: number, maxOutput: number): number {
  return maxModelLen - maxOutput - CONTEXT_MARGIN;
}

/**
 * Why a decode cell at `context` cannot run on a server of `maxModelLen` with `maxOutput` tokens
 * of output (Too long), or null when it fits (or max_model_len is unknown).
 */
export function tooLongReason(context: number, maxOutput: number, maxModelLen: number | null): string | null {
  if (maxModelLen === null || context + maxOutput <= maxModelLen) return null;
  return `${fmtContext(context)} context + ${maxOutput} output tokens exceeds max_model_len ${maxModelLen}`;
}

/** Decode measurements the plan makes: every runnable cell, once per repetition. */
export function measurementsToRun(plan: RunPlan): number {
  return plan.counts.toRun * plan.config.repeat;
}

/** A message when the plan has nothing to measure (no decode cell and no prefill runs), else null. */
export function nothingToRun(plan: RunPlan): string | null {
  if (plan.counts.toRun > 0 || plan.counts.prefill > 0) return null;
  const { counts, config, maxModelLen } = plan;
  const why = [
    counts.tooLong ? `${counts.tooLong} too long for max_model_len ${maxModelLen} with ${config.maxOutputTokens} output tokens` : '',
    counts.overCapacity ? `${counts.overCapacity} over the KV cache budget` : '',
    counts.skipped ? `${counts.skipped} left out` : '',
  ].filter(Boolean);
  return `nothing to measure: of ${counts.cells} cells, ${why.join(', ') || 'none can run'}, and no prefill context fits. Choose smaller contexts, fewer requests at once or a smaller max output.`;
}

/** `--sim-speed X` from a simulator's argv, else the speed its /version reported, else 1. */
export function simSpeedFromTarget(target: PlanTarget): number {
  if (!target.simulated) return 1;
  const argv = target.launch?.argv ?? [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = a === '--sim-speed' ? argv[i + 1] : a.startsWith('--sim-speed=') ? a.slice(12) : undefined;
    const n = v === undefined ? Number.NaN : Number(v);
    if (Number.isFinite(n) && n > 0) return n;
  }
  return target.simSpeed ?? 1;
}

const sortedUnique = (xs: number[]): number[] => [...new Set(xs)].sort((a, b) => a - b);

export function resolveConfig(input: RunConfigInput, target: PlanTarget): ResolvedRunConfig {
  const maxOutputTokens = input.maxOutputTokens ?? DEFAULT_MAX_OUTPUT;
  const mml = target.maxModelLen;
  const largest = mml ? largestContext(mml, maxOutputTokens) : null;
  let contexts: number[];
  if (input.contexts?.length) contexts = sortedUnique(input.contexts);
  else {
    contexts = DEFAULT_CONTEXTS.filter((c) => largest === null || c <= largest);
    if (largest !== null && largest > 0 && !contexts.includes(largest)) contexts.push(largest);
    contexts = sortedUnique(contexts);
  }
  let prefillContexts: number[];
  if (input.prefillContexts) prefillContexts = sortedUnique(input.prefillContexts.filter((c) => c > 0));
  else {
    prefillContexts = contexts.filter((c) => c > 0);
    // 256K is measured for prefill alone when the server takes it (the prompt is then sized to fit).
    if (mml !== null && mml >= PREFILL_EXTRA_CONTEXT) prefillContexts.push(PREFILL_EXTRA_CONTEXT);
    prefillContexts = sortedUnique(prefillContexts);
  }
  const kvBudget: KvBudget =
    input.kvBudgetTokens !== undefined
      ? { tokens: input.kvBudgetTokens, source: 'user', detail: 'given by the user', maxConcurrency: null, tokensPerRequest: null }
      : target.kvBudget;
  return {
    contexts,
    concurrency: sortedUnique(input.concurrency?.length ? input.concurrency : DEFAULT_CONCURRENCY),
    prefillContexts,
    secondsPerMeasurement: input.secondsPerMeasurement ?? DEFAULT_SECONDS,
    maxOutputTokens,
    tokenTargeting: input.tokenTargeting ?? 'exact',
    kvBudget,
    simSpeed: input.simSpeed ?? simSpeedFromTarget(target),
    warmup: input.warmup ?? true,
    runTag: input.runTag ?? newRunTag(),
    stallSeconds: input.stallSeconds ?? 30,
    scoutDeadline: { ...DEFAULT_SCOUT_DEADLINE, ...input.scoutDeadline },
    repeat: input.repeat ?? 1,
  };
}

/** Seconds (server clock) a decode cell takes beyond its window: gates, ramp, cancel. */
const CELL_OVERHEAD_SECONDS = 8;
const WARMUP_SECONDS = 10;

export function planRun(input: RunConfigInput, target: PlanTarget): RunPlan {
  const config = resolveConfig(input, target);
  const { maxOutputTokens: out, kvBudget } = config;
  const mml = target.maxModelLen;
  const budget = kvBudget.tokens;
  const skip = new Set((input.skip ?? []).map(cellKey));
  const warnings: string[] = [];
  if (budget === null) warnings.push('The KV cache budget is unknown, so no cell could be marked Over capacity in advance.');
  if (mml === null) warnings.push('The server did not report max_model_len, so no cell could be marked Too long in advance.');

  const cells: PlannedCell[] = [];
  for (const context of config.contexts) {
    for (const concurrency of config.concurrency) {
      const kvTokensNeeded = concurrency * (context + out);
      let cell: PlannedCell = { context, concurrency, action: 'run', reason: null, kvTokensNeeded };
      const tooLong = tooLongReason(context, out, mml);
      if (skip.has(cellKey({ context, concurrency }))) cell = { ...cell, action: 'skipped', reason: 'left out by the user' };
      else if (tooLong) cell = { ...cell, action: 'too-long', reason: tooLong };
      else if (budget !== null && kvTokensNeeded > budget)
        cell = {
          ...cell,
          action: 'over-capacity',
          reason: `${concurrency} × (${context} + ${out}) = ${kvTokensNeeded} tokens exceeds the KV cache budget of ${budget} tokens (${kvBudget.source}${kvBudget.detail ? `: ${kvBudget.detail}` : ''})`,
        };
      cells.push(cell);
    }
  }

  const decodeContexts = new Set(cells.filter((c) => c.action === 'run' && c.context > 0).map((c) => c.context));
  const prefill: PlannedPrefill[] = config.prefillContexts.map((context) => {
    // Prefill scouts ask for 1 output token; a prompt at the limit is trimmed to fit (see prompts.ts).
    if (mml !== null && context > mml)
      return { context, action: 'too-long', reason: `${fmtContext(context)} exceeds max_model_len ${mml}`, withDecode: false, expectedSeconds: null };
    return { context, action: 'run', reason: null, withDecode: decodeContexts.has(context), expectedSeconds: expectedPrefillSeconds(context, []) };
  });

  // Order (docs/method.md): prefill scouts and the C=1 column first, then row by row.
  const steps: PlanStep[] = [];
  if (config.warmup) steps.push({ kind: 'warmup' });
  const runnable = (c: PlannedCell) => c.action === 'run';
  const firstColumn = config.concurrency[0];
  const prefillRun = new Set(prefill.filter((p) => p.action === 'run').map((p) => p.context));
  const allContexts = sortedUnique([...config.contexts, ...prefillRun]);
  for (const context of allContexts) {
    if (context > 0 && prefillRun.has(context)) steps.push({ kind: 'prefill', context, measured: true });
    const first = cells.find((c) => c.context === context && c.concurrency === firstColumn);
    if (first && runnable(first)) {
      if (context > 0 && !prefillRun.has(context)) steps.push({ kind: 'prefill', context, measured: false });
      steps.push({ kind: 'decode', context, concurrency: firstColumn, repetition: 1 });
    }
  }
  for (const context of config.contexts) {
    const row = cells.filter((c) => c.context === context && c.concurrency !== firstColumn && runnable(c));
    if (row.length === 0) continue;
    // Re-warm the prefix cache for this context: other contexts ran since its scout.
    if (context > 0) steps.push({ kind: 'prefill', context, measured: false });
    for (const c of row) steps.push({ kind: 'decode', context, concurrency: c.concurrency, repetition: 1 });
  }
  steps.push(...laterPasses(steps, config.repeat));

  const counts = {
    cells: cells.length,
    toRun: cells.filter(runnable).length,
    overCapacity: cells.filter((c) => c.action === 'over-capacity').length,
    tooLong: cells.filter((c) => c.action === 'too-long').length,
    skipped: cells.filter((c) => c.action === 'skipped').length,
    prefill: prefillRun.size,
  };
  return { config, maxModelLen: mml, cells, prefill, steps, counts, etaSeconds: estimateSeconds(steps, config), warnings };
}

/**
 * Passes 2..N of a repeated run (docs/repeats-and-targets.md): the first pass's decode cells again,
 * in the same order, so that drift over the run spreads over every cell instead of hitting a few.
 * Each stretch of one context starts with an unmeasured scout that re-warms its prefix cache.
 */
export function laterPasses(firstPass: readonly PlanStep[], repeat: number): PlanStep[] {
  const decodes = firstPass.filter((s): s is Extract<PlanStep, { kind: 'decode' }> => s.kind === 'decode');
  const steps: PlanStep[] = [];
  for (let repetition = 2; repetition <= repeat; repetition++) {
    let previous: number | null = null;
    for (const d of decodes) {
      if (d.context > 0 && d.context !== previous) steps.push({ kind: 'prefill', context: d.context, measured: false });
      previous = d.context;
      steps.push({ ...d, repetition });
    }
  }
  return steps;
}

/** Wall-clock estimate of the given steps, seconds; prefill from the prefills measured so far, if any. */
export function estimateSeconds(steps: readonly PlanStep[], config: ResolvedRunConfig, measured: readonly PrefillPoint[] = []): number {
  let serverSeconds = 0;
  const scouted = new Set<number>();
  for (const s of steps) {
    if (s.kind === 'warmup') serverSeconds += WARMUP_SECONDS;
    else if (s.kind === 'prefill') {
      // A later scout of the same context re-warms a prompt the cache mostly holds: about a second.
      serverSeconds += (scouted.has(s.context) ? 0 : (expectedPrefillSeconds(s.context, measured) ?? 0)) + 1;
      scouted.add(s.context);
    } else serverSeconds += config.secondsPerMeasurement + CELL_OVERHEAD_SECONDS;
  }
  return serverSeconds / config.simSpeed;
}

