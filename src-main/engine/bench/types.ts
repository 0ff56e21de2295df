/**
 * The benchmark engine's public types: what a caller asks for (RunConfigInput), what the plan
 * looks like before anything runs (RunPlan), and the typed progress events a run streams
 * (BenchEvent). These cross the worker-process boundary, so they are plain JSON data.
 */
import type { CellStatus, DecodeCell, KvBudget, PrefillResult, Session } from '#shared/session/schema';
import type { LengthSpec } from '#shared/session/schema-load';
import type { ScoutDeadlineLimits } from './scout-deadline';
import type { PlannedOutStatus } from '#shared/session/status-words';

export type TokenTargeting = 'exact' | 'estimate';

/** What a caller may ask for; everything left out gets the defaults of docs/method.md. */
export interface RunConfigInput {
  /** Decode contexts in tokens (rows). Default 0, 8K, 16K, 32K, 64K, 128K and the largest that fits. */
  contexts?: number[];
  /** Concurrency levels (columns). Default 1, 2, 4, ... 128. */
  concurrency?: number[];
  /** Contexts measured for prefill. Default the non-zero decode contexts plus 256K where it fits. */
  prefillContexts?: number[];
  /** Measurement window per decode cell, in seconds. Default 30. */
  secondsPerMeasurement?: number;
  /** max_tokens of every decode request. Default 4096. */
  maxOutputTokens?: number;
  /** `exact` sizes prompts through POST /tokenize; `estimate` scales characters per token. Default exact. */
  tokenTargeting?: TokenTargeting;
  /** Cells the user left out: they are planned as Skipped and never run. */
  skip?: Array<{ context: number; concurrency: number }>;
  /** A KV cache budget in tokens given by the user; overrides what the server reported. */
  kvBudgetTokens?: number;
  /**
   * Clock speed-up of a simulated server (`--sim-speed X`). All times (windows, gates, figures)
   * are then in simulated seconds, so figures read as at speed 1. Default: read from the
   * simulator's launch argv, else 1.
   */
  simSpeed?: number;
  /** Warm-ups before the first measurement (docs/method.md). Default true. */
  warmup?: boolean;
  /** A run tag to use in prompts; default a fresh one (resume keeps the session's). */
  runTag?: string;
  /** Seconds without a token before a stream counts as stalled (Error). Default 30. */
  stallSeconds?: number;
  /**
   * Limits of a prefill scout's deadline (server seconds): twice the time expected from the prefills measured at
   * smaller contexts, at least `floorSeconds` (default 120) and at most `capSeconds` (default 3600).
   */
  scoutDeadline?: Partial<ScoutDeadlineLimits>;
  /** Times each decode cell is measured, in interleaved passes (docs/repeats-and-targets.md). Default 1. */
  repeat?: number;
  /**
   * Adaptive measurement (docs/adaptive-precision.md): a decode window closes once the 95% interval of its total
   * tok/s is within this share of the figure (0.01 = ±1%); `secondsPerMeasurement` is then the maximum. Default: none
   * (fixed windows).
   */
  precision?: number;
  /** With `precision`: the shortest window, server seconds. Default 5. */
  minSecondsPerMeasurement?: number;
  /** Each decode request's max_tokens drawn from this distribution (docs/method.md); replaces maxOutputTokens. */
  outputLength?: LengthSpec;
  /** Tokens of the same text every prompt starts with (docs/method.md). Default 0. */
  sharedPrefixTokens?: number;
}

/** The resolved run configuration: every default filled in. */
export interface ResolvedRunConfig {
  contexts: number[];
  concurrency: number[];
  prefillContexts: number[];
  secondsPerMeasurement: number;
  maxOutputTokens: number;
  tokenTargeting: TokenTargeting;
  kvBudget: KvBudget;
  simSpeed: number;
  warmup: boolean;
  runTag: string;
  stallSeconds: number;
  scoutDeadline: ScoutDeadlineLimits;
  repeat: number;
  /** Relative half-width a window stops at; null: fixed windows. */
  precision: number | null;
  minSecondsPerMeasurement: number;
  /** Null: every decode request asks for maxOutputTokens (then the distribution's largest draw). */
  outputLength: LengthSpec | null;
  sharedPrefixTokens: number;
}

/** What the plan says about one decode cell before the run. */
export type PlannedAction = 'run' | PlannedOutStatus;

export interface PlannedCell {
  context: number;
  concurrency: number;
  action: PlannedAction;
  /** Why it will not run, in words (null when it runs). */
  reason: string | null;
  /** C x (context + max output): the KV cache tokens this cell needs. */
  kvTokensNeeded: number;
  /** Known before the run: the engine runs fewer than C requests at once, so the cell will be Requests queued. */
  expectQueued?: string;
}

export interface PlannedPrefill {
  context: number;
  action: 'run' | 'too-long' | 'skipped';
  reason: string | null;
  /** True when decode cells of this context follow the scout. */
  withDecode: boolean;
  /** Expected seconds of the scout before anything is measured (a guessed prefill speed); null when it does not run. */
  expectedSeconds: number | null;
}

/** One step of the run, in the order it runs (docs/method.md, "Order of a run"). */
export type PlanStep =
  | { kind: 'warmup' }
  | { kind: 'prefill'; context: number; measured: boolean }
  /** `repetition`: 1 in the first pass, 2 in the second, ... (with repeat N). */
  | {
      kind: 'decode';
      context: number;
      concurrency: number;
      repetition: number;
      /** Planned as Requests queued (above the server's running-request cap): the ETA counts its readiness deadline. */
      queued?: boolean;
    };

export interface RunPlan {
  config: ResolvedRunConfig;
  maxModelLen: number | null;
  /** Every decode cell, row by row (context ascending, then concurrency ascending). */
  cells: PlannedCell[];
  prefill: PlannedPrefill[];
  steps: PlanStep[];
  counts: { cells: number; toRun: number; overCapacity: number; tooLong: number; skipped: number; prefill: number };
  /** Estimated wall time of the whole run, seconds. */
  etaSeconds: number;
  /** Things the user should know before pressing Start (e.g. "KV budget unknown"). */
  warnings: string[];
}

/** Progress events streamed from the worker (and the parent) while a run goes. */
export type BenchEvent =
  /** On resume, doneCells (cell keys) and donePrefill (contexts) say what the session already holds. */
  | { type: 'plan'; plan: RunPlan; alreadyDone: number; doneCells: string[]; donePrefill: number[] }
  /** The session the run writes to, once loaded or created: its owner applies each finished cell from here on. */
  | { type: 'session'; session: Session }
  | {
      type: 'phase';
      phase: 'warmup' | 'calibration' | 'idle-gate' | 'readiness' | 'window' | 'cooldown';
      message: string;
      context?: number;
      concurrency?: number;
    }
  | {
      type: 'cell-start';
      context: number;
      concurrency: number;
      repetition?: number;
      index: number;
      total: number;
      etaSeconds: number;
    }
  | {
      type: 'sample';
      context: number;
      concurrency: number;
      /** 'ramp' before the window opens, 'window' inside it. */
      stage: 'ramp' | 'window';
      /** Output tokens per second so far (in the window), or over the last second during ramp. */
      tokensPerSecond: number;
      activeRequests: number;
      waitingRequests: number | null;
      /** Output tokens counted so far in the window. */
      tokens: number;
      elapsedSeconds: number;
      /** In the ramp: how many of the C streams have had a token (the ramp ends at C). */
      streamsStarted?: number;
    }
  | {
      type: 'cell-done';
      /** The cell as measured by this repetition; the session owner forwards it folded into the cell's repetitions. */
      cell: DecodeCell;
      /** Which repetition of the cell this was (absent: 1, as without repeats). */
      repetition?: number;
      index: number;
      total: number;
      etaSeconds: number;
      /** The measurement window in wall-clock epoch milliseconds (for telemetry and ground truth); null when none. */
      window?: { startMs: number; endMs: number } | null;
    }
  | {
      type: 'prefill-start';
      context: number;
      /** Expected seconds to the first token, from the prefills measured so far (null: nothing to go by yet). */
      expectedSeconds?: number | null;
      /** When the client gives up on it. */
      deadlineSeconds?: number;
    }
  | { type: 'prefill-done'; result: PrefillResult }
  | { type: 'server-down'; message: string }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'error'; message: string }
  | { type: 'saved'; file: string }
  | {
      type: 'run-done';
      outcome: RunOutcome;
      session: Session;
      sessionFile: string | null;
      counts: Partial<Record<CellStatus, number>>;
    };

export type RunOutcome = 'completed' | 'cancelled' | 'failed';
