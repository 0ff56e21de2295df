/**
 * The plan of a run, decided before anything is sent: which cells run, which are Over
 * capacity (C x (context + max output) above the KV budget), Too long or Skipped, in what
 * order, and about how long it takes. Pure: the UI shows it before the user presses Start.
 */
import { cellKey } from '#shared/cell-key';
import { DEFAULT_CONCURRENCY, LARGE_CONCURRENCY } from '#shared/default-concurrency';
import { mean } from '#shared/mean';
import { fmtContext, fmtCount } from '#shared/report/format';
import { kvBudgetOrigin } from '#shared/report/report-blocks';
import { newRunTag } from '../../platform/session/create';
import { lengthCeiling } from './load-arrivals';
import { repetitionKey } from './repetitions';
import type { ProgressUnit } from '#shared/run-progress';
import type { KvBudget } from '#shared/session/schema';
import { STATUS_WORDS } from '#shared/session/status-words';
import type { ServerTarget } from '../server/target';
import { READINESS_STEADY_SECONDS, readinessTimeoutSeconds } from './readiness';
import { flagsOf, parseLaunchLine } from '#shared/report/launch-flags';
import { parseMaxModelLenArg } from '../server/human-int';
import { DEFAULT_SCOUT_DEADLINE, expectedPrefillSeconds, type PrefillPoint } from './scout-deadline';
import type { PlannedCell, PlannedPrefill, PlanStep, ResolvedRunConfig, RunConfigInput, RunPlan } from './types';

export const K = 1024;
export const DEFAULT_CONTEXTS = [0, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K];
export const PREFILL_EXTRA_CONTEXT = 256 * K;
export const DEFAULT_SECONDS = 30;
/** With --precision: the shortest window, server seconds (docs/adaptive-precision.md). */
export const DEFAULT_MIN_SECONDS = 5;
export const DEFAULT_MAX_OUTPUT = 4096;
/** Room left for the chat template and the final question (docs/method.md: max_model_len - max_output - 64). */
export const CONTEXT_MARGIN = 64;

/** The part of a ServerTarget the plan needs (so the UI can plan from a probe alone). */
export type PlanTarget = Pick<ServerTarget, 'maxModelLen' | 'kvBudget'> &
  Partial<Pick<ServerTarget, 'launch' | 'simulated' | 'simSpeed' | 'maxRunningRequests'>>;

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
  return `${fmtContext(context)} context + ${fmtCount(maxOutput)} output tokens exceeds max_model_len ${fmtCount(maxModelLen)}`;
}

/**
 * Why a cell would not fit the KV cache, with its numbers formatted as everywhere else and where
 * the budget came from (the probe's own detail, which names its source, else the source in words):
 * "4 × (128K + 4,096) = 540,672 tokens exceeds the KV cache budget of 495,440 tokens (startup log …)".
 */
function overCapacityReason(concurrency: number, context: number, out: number, kv: KvBudget): string {
  const needed = concurrency * (context + out);
  return `${concurrency} × (${fmtContext(context)} + ${fmtCount(out)}) = ${fmtCount(needed)} tokens exceeds the KV cache budget of ${fmtCount(kv.tokens)} tokens (${kvBudgetOrigin(kv)})`;
}

/** Decode measurements the plan makes: every runnable cell, once per repetition. */
export function measurementsToRun(plan: RunPlan): number {
  return plan.counts.toRun * plan.config.repeat;
}

/** What progress counts: cells, or each cell's repetitions when it is measured several times. */
export function progressUnit(plan: RunPlan): ProgressUnit {
  return plan.config.repeat > 1 ? 'measurement' : 'cell';
}

/** A message when the plan has nothing to measure (no decode cell and no prefill runs), else null. */
export function nothingToRun(plan: RunPlan): string | null {
  if (plan.counts.toRun > 0 || plan.counts.prefill > 0) return null;
  const { counts, config, maxModelLen } = plan;
  const why = [
    counts.tooLong
      ? `${counts.tooLong} too long for max_model_len ${maxModelLen} with ${config.maxOutputTokens} output tokens`
      : '',
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

/**
 * The default levels, and 256 and 512 where the server has room for them: the KV budget holds
 * that many requests at the smallest prompt context (not the 0 row alone, so a level added holds
 * prompts) with their output, and no running cap below them would only queue them (docs/method.md).
 */
function defaultConcurrency(contexts: number[], out: number, kv: KvBudget, target: PlanTarget): number[] {
  // An unknown budget shows no room.
  const budget = kv.tokens ?? 0;
  const smallest = contexts.find((c) => c > 0) ?? contexts[0];
  const cap = runningCap(target)?.limit ?? Number.POSITIVE_INFINITY;
  const roomy = LARGE_CONCURRENCY.filter((c) => c * (smallest + out) <= budget && c <= cap);
  return [...DEFAULT_CONCURRENCY, ...roomy];
}

export function resolveConfig(input: RunConfigInput, target: PlanTarget): ResolvedRunConfig {
  const outputLength = input.outputLength ?? null;
  const maxOutputTokens = outputLength ? lengthCeiling(outputLength) : (input.maxOutputTokens ?? DEFAULT_MAX_OUTPUT);
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
    // Prefill is measured where decode is: nothing the person did not ask for. Only the default
    // matrix adds 256K for prefill alone, when the server takes it (the prompt is then sized to fit).
    prefillContexts = contexts.filter((c) => c > 0);
    if (!input.contexts?.length && mml !== null && mml >= PREFILL_EXTRA_CONTEXT)
      prefillContexts.push(PREFILL_EXTRA_CONTEXT);
    prefillContexts = sortedUnique(prefillContexts);
  }
  const kvBudget: KvBudget =
    input.kvBudgetTokens !== undefined
      ? {
          tokens: input.kvBudgetTokens,
          source: 'user',
          detail: 'given by the user',
          maxConcurrency: null,
          tokensPerRequest: null,
        }
      : target.kvBudget;
  return {
    contexts,
    concurrency: input.concurrency?.length
      ? sortedUnique(input.concurrency)
      : defaultConcurrency(contexts, maxOutputTokens, kvBudget, target),
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
    precision: input.precision ?? null,
    minSecondsPerMeasurement: Math.min(
      input.minSecondsPerMeasurement ?? DEFAULT_MIN_SECONDS,
      input.secondsPerMeasurement ?? DEFAULT_SECONDS,
    ),
    outputLength,
    sharedPrefixTokens: input.sharedPrefixTokens ?? 0,
  };
}

/*
 * The ETA follows the method's phases (docs/method.md), in server seconds unless named wall:
 * a decode cell is its readiness gate (first tokens, then READINESS_STEADY_SECONDS of steady
 * streams), the window, then cancel and the idle gate; a prefill step is the prompt's prefill
 * plus sizing it. Measured cells then refine it (see EtaTracker in progress.ts).
 */
/** Until every stream's first token arrived, before the steady part of the readiness gate. */
const FIRST_TOKENS_SECONDS = 1;
/** Cancelling the streams and waiting for the server to be idle again. */
const COOLDOWN_SECONDS = 0.5;
/** Sizing a prompt (/tokenize) and the scout's own request overhead. */
const PREFILL_OVERHEAD_SECONDS = 0.5;
/** The three warm-up requests (a short decode, a small prefill, a few seconds of decode) and an idle gate. */
const WARMUP_SECONDS = 7;
/** Starting the benchmark worker process (1 to 2.7 s measured on a loaded 2-core machine): wall seconds, whatever the simulator's speed. */
export const WORKER_START_WALL_SECONDS = 1.5;

type WindowConfig = Pick<ResolvedRunConfig, 'secondsPerMeasurement' | 'precision' | 'minSecondsPerMeasurement'>;

/**
 * The window a decode cell is expected to measure, server seconds: the fixed length; with --precision, the mean of
 * the windows measured so far in this run, and before any, the geometric mean of the shortest and the longest
 * (docs/adaptive-precision.md).
 */
export function expectedWindowSeconds(config: WindowConfig, measured: readonly number[] = []): number {
  if (config.precision === null) return config.secondsPerMeasurement;
  return mean(measured) ?? Math.sqrt(config.minSecondsPerMeasurement * config.secondsPerMeasurement);
}

/** Server seconds of a decode cell, by the method's phases. */
function decodeCellSeconds(config: WindowConfig, windows: readonly number[]): number {
  return FIRST_TOKENS_SECONDS + READINESS_STEADY_SECONDS + expectedWindowSeconds(config, windows) + COOLDOWN_SECONDS;
}

/** A cell expected to queue: the readiness gate never opens, so it waits out its deadline (docs/method.md). */
export function queuedCellSeconds(context: number, config: WindowConfig, windows: readonly number[] = []): number {
  return readinessTimeoutSeconds(context) + expectedWindowSeconds(config, windows) + COOLDOWN_SECONDS;
}

/**
 * Wall-clock estimate of the given steps, seconds (the simulator's clock runs simSpeed times
 * faster); prefill from the prefills measured so far, if any, else a guessed speed.
 */
export function estimateSeconds(
  steps: readonly PlanStep[],
  config: WindowConfig & Pick<ResolvedRunConfig, 'simSpeed'>,
  measured: readonly PrefillPoint[] = [],
  /** Windows measured so far in this run (server seconds): an adaptive run's expected window comes from them. */
  windows: readonly number[] = [],
): number {
  let serverSeconds = 0;
  const scouted = new Set<number>();
  for (const s of steps) {
    if (s.kind === 'warmup') serverSeconds += WARMUP_SECONDS;
    else if (s.kind === 'prefill') {
      // A later scout of the same context re-warms a prompt the cache mostly holds.
      serverSeconds +=
        (scouted.has(s.context) ? 0 : (expectedPrefillSeconds(s.context, measured) ?? 0)) + PREFILL_OVERHEAD_SECONDS;
      scouted.add(s.context);
    } else
      serverSeconds += s.queued ? queuedCellSeconds(s.context, config, windows) : decodeCellSeconds(config, windows);
  }
  return serverSeconds / config.simSpeed;
}

/**
 * The plan's steps still to run when these cells and prefill points are done (a resume): every
 * pending decode cell and measured prefill, scouts only where a pending cell of their context
 * follows them directly, and the warm-up (a resumed server may be a fresh one).
 */
export function pendingSteps(
  steps: readonly PlanStep[],
  doneCells: ReadonlySet<string>,
  donePrefill: ReadonlySet<number>,
): PlanStep[] {
  const out: PlanStep[] = [];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (s.kind === 'decode') {
      if (!doneCells.has(repetitionKey(s, s.repetition))) out.push(s);
      continue;
    }
    if (s.kind === 'prefill') {
      const measuredPending = s.measured && !donePrefill.has(s.context);
      let servesDecode = false;
      for (let j = i + 1; j < steps.length; j++) {
        const n = steps[j];
        if (n.kind !== 'decode' || n.context !== s.context) break;
        if (!doneCells.has(repetitionKey(n, n.repetition))) servesDecode = true;
      }
      if (measuredPending || servesDecode) out.push(s);
      continue;
    }
    out.push(s);
  }
  return out;
}

/** The flags of the command that started the server, where the target says it. */
function launchFlags(target: PlanTarget): Map<string, string> {
  const launch = target.launch;
  if (!launch) return new Map();
  return launch.argv.length ? flagsOf(launch.argv) : parseLaunchLine(launch.display).flags;
}

/**
 * The server's max_model_len: as it reports it, else as its launch gives it (`--max-model-len
 * 32k`, read as vLLM reads it; `auto` says nothing), else null.
 */
export function plannedMaxModelLen(target: PlanTarget): number | null {
  if (target.maxModelLen !== null) return target.maxModelLen;
  const given = launchFlags(target).get('--max-model-len');
  const n = given === undefined ? undefined : parseMaxModelLenArg(given);
  return typeof n === 'number' ? n : null;
}

/**
 * The most requests the server runs at once, and what says so: the engine's own report (SGLang's
 * max_running_requests), else the launch flags: vLLM's `--max-num-seqs`, and
 * `--max-num-batched-tokens`, since each running sequence takes one token of every step.
 */
export function runningCap(target: PlanTarget): { limit: number; what: string } | null {
  if (target.maxRunningRequests !== undefined)
    return { limit: target.maxRunningRequests, what: "the engine's max_running_requests" };
  const flags = launchFlags(target);
  const caps = ['--max-num-seqs', '--max-num-batched-tokens'].flatMap((flag) => {
    const n = Number(flags.get(flag));
    return Number.isInteger(n) && n > 0 ? [{ limit: n, what: flag }] : [];
  });
  return caps.reduce<{ limit: number; what: string } | null>((a, b) => (a && a.limit <= b.limit ? a : b), null);
}

/** A cell's decode step; one expected to queue waits out its readiness deadline, and the ETA counts that. */
const decodeStep = (c: PlannedCell): PlanStep => ({
  kind: 'decode',
  context: c.context,
  concurrency: c.concurrency,
  repetition: 1,
  ...(c.expectQueued ? { queued: true } : {}),
});

export function planRun(input: RunConfigInput, target: PlanTarget): RunPlan {
  const config = resolveConfig(input, target);
  const { maxOutputTokens: out, kvBudget } = config;
  const mml = plannedMaxModelLen(target);
  const budget = kvBudget.tokens;
  const skip = new Set((input.skip ?? []).map(cellKey));
  const warnings: string[] = [];
  if (budget === null)
    warnings.push(
      `The KV cache budget is unknown, so no cell could be marked ${STATUS_WORDS['over-capacity']} in advance.`,
    );
  if (mml === null)
    warnings.push(
      `The server did not report max_model_len, so no cell could be marked ${STATUS_WORDS['too-long']} in advance.`,
    );

  const cap = runningCap(target);
  const cells: PlannedCell[] = [];
  for (const context of config.contexts) {
    for (const concurrency of config.concurrency) {
      const kvTokensNeeded = concurrency * (context + out);
      let cell: PlannedCell = { context, concurrency, action: 'run', reason: null, kvTokensNeeded };
      const tooLong = tooLongReason(context, out, mml);
      if (skip.has(cellKey({ context, concurrency })))
        cell = { ...cell, action: 'skipped', reason: 'left out by the user' };
      else if (tooLong) cell = { ...cell, action: 'too-long', reason: tooLong };
      else if (budget !== null && kvTokensNeeded > budget)
        cell = {
          ...cell,
          action: 'over-capacity',
          reason: overCapacityReason(concurrency, context, out, kvBudget),
        };
      if (cell.action === 'run' && cap && concurrency > cap.limit) {
        cell = {
          ...cell,
          expectQueued: `${concurrency} requests at once is above ${cap.what} of ${cap.limit}: the rest wait, so the cell will be ${STATUS_WORDS.queued}`,
        };
      }
      cells.push(cell);
    }
  }
  if (cap && cells.some((c) => c.expectQueued)) {
    warnings.push(
      `The server runs at most ${cap.limit} requests at once (${cap.what}): cells above that concurrency will be ${STATUS_WORDS.queued}, each waiting out its readiness deadline.`,
    );
  }

  const decodeContexts = new Set(cells.filter((c) => c.action === 'run' && c.context > 0).map((c) => c.context));
  const prefill: PlannedPrefill[] = config.prefillContexts.map((context) => {
    // Prefill scouts ask for 1 output token; a prompt at the limit is trimmed to fit (see prompts.ts).
    if (mml !== null && context > mml)
      return {
        context,
        action: 'too-long',
        reason: `${fmtContext(context)} exceeds max_model_len ${fmtCount(mml)}`,
        withDecode: false,
        expectedSeconds: null,
      };
    return {
      context,
      action: 'run',
      reason: null,
      withDecode: decodeContexts.has(context),
      expectedSeconds: expectedPrefillSeconds(context, []),
    };
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
      steps.push(decodeStep(first));
    }
  }
  for (const context of config.contexts) {
    const row = cells.filter((c) => c.context === context && c.concurrency !== firstColumn && runnable(c));
    if (row.length === 0) continue;
    // Re-warm the prefix cache for this context: other contexts ran since its scout.
    if (context > 0) steps.push({ kind: 'prefill', context, measured: false });
    for (const c of row) steps.push(decodeStep(c));
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
  return {
    config,
    maxModelLen: mml,
    cells,
    prefill,
    steps,
    counts,
    etaSeconds: WORKER_START_WALL_SECONDS + estimateSeconds(steps, config),
    warnings,
  };
}

/**
 * Passes 2..N of a repeated run (docs/repeats-and-targets.md): the first pass's decode cells again,
 * in the same order, so that drift over the run spreads over every cell instead of hitting a few.
 * Each stretch of one context starts with an unmeasured scout that re-warms its prefix cache.
 */
function laterPasses(firstPass: readonly PlanStep[], repeat: number): PlanStep[] {
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
