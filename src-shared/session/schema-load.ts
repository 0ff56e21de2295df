/**
 * A load session's own part (`session.load`, docs/load.md): the workload it offered and, per
 * request rate, what the server achieved. A session with `load` is a load session; its `cells`
 * and `prefill` are empty. Old files have no `load` and open as before. Units as the rest of the
 * session: seconds, tokens, requests per second, tokens per second.
 */
import { z } from 'zod';

const nonNeg = z.number().finite().nonnegative();
const count = z.number().int().nonnegative();

/** A distribution summary that says how many values it summarises. */
export const CountedStatsSchema = z.object({
  p50: nonNeg,
  p90: nonNeg,
  p99: nonNeg,
  mean: nonNeg,
  count,
});

/** How requests arrive: Poisson (exponential gaps), evenly spaced, or gamma gaps with this coefficient of variation. */
export const ArrivalsSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('poisson') }),
  z.object({ kind: z.literal('constant') }),
  z.object({ kind: z.literal('gamma'), cv: z.number().finite().positive() }),
]);

/** A length in tokens: one value, a uniform range, or a normal distribution (clamped to 1 or more). */
export const LengthSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('fixed'), tokens: z.number().int().positive() }),
  z.object({ kind: z.literal('uniform'), min: z.number().int().positive(), max: z.number().int().positive() }),
  z.object({ kind: z.literal('normal'), mean: z.number().int().positive(), sd: nonNeg }),
]);

/** Latency targets a request must all meet to count towards goodput. */
export const SloSchema = z.object({
  ttftSeconds: nonNeg.optional(),
  tbtSeconds: nonNeg.optional(),
  e2eSeconds: nonNeg.optional(),
});

export const LoadConfigSchema = z.object({
  /** The rates asked for (requests per second), or the sweep's, in the order run. */
  rates: z.array(nonNeg),
  sweep: z.object({ points: z.number().int().positive() }).nullable(),
  arrivals: ArrivalsSchema,
  /** Most requests in flight at once (null: no cap, an open loop). */
  maxInFlight: z.number().int().positive().nullable(),
  /** Seconds of arrivals measured per rate, after the warm-up. */
  durationSeconds: nonNeg,
  warmupSeconds: nonNeg,
  inputLength: LengthSpecSchema,
  outputLength: LengthSpecSchema,
  /** Tokens of prompt every request starts with (prefix caching); 0 for none. */
  sharedPrefixTokens: count,
  endpoint: z.enum(['chat', 'completions']),
  ignoreEos: z.boolean(),
  /** The prompt file's name when prompts came from one (--dataset). */
  dataset: z.string().nullable(),
  seed: z.number().int(),
  slo: SloSchema.nullable(),
  /** A replayed trace (--trace): its file's name, the speed-up of its times, its requests and span in server seconds. */
  trace: z
    .object({ file: z.string(), speed: z.number().finite().positive(), requests: count, spanSeconds: nonNeg })
    .nullable()
    .optional(),
  /** Conversations (--turns): each of `turns` requests sends the whole history plus a new message, `thinkSeconds` after the answer. */
  conversation: z
    .object({ turns: z.number().int().min(2), thinkSeconds: nonNeg })
    .nullable()
    .optional(),
});

/** What /metrics said about queueing while the rate's window ran. */
export const LoadQueueSchema = z.object({
  scrapes: count,
  meanWaiting: nonNeg,
  maxWaiting: nonNeg,
  /** Mean waiting in the window's last third less its first third: a queue that grows is one not served. */
  waitingGrowth: z.number().finite(),
  /** Mean seconds a request waited in the server's queue (vllm:request_queue_time_seconds over the window). */
  meanQueueSeconds: nonNeg.nullable(),
});

export const LoadPassSchema = z.enum(['rate', 'synchronous', 'throughput', 'trace']);

/** Time to first token of one conversation turn's requests. */
export const TurnTtftSchema = z.object({ turn: z.number().int().positive(), ttft: CountedStatsSchema });

export const LoadRateResultSchema = z.object({
  /** What kind of pass: a set rate, the sweep's one-at-a-time pass, or its all-at-once pass. */
  pass: LoadPassSchema,
  /** Requests per second asked for (null for the sweep's synchronous and throughput passes). */
  targetRate: nonNeg.nullable(),
  /** Requests sent per second inside the window. */
  offeredRate: nonNeg,
  /** Requests completed per second inside the window. */
  achievedRate: nonNeg,
  outputTokensPerSecond: nonNeg,
  totalTokensPerSecond: nonNeg,
  ttft: CountedStatsSchema.nullable(),
  timeBetweenTokens: CountedStatsSchema.nullable(),
  e2e: CountedStatsSchema.nullable(),
  /** Requests sent inside the window, those that finished, those that failed, those still open at the end. */
  requests: count,
  completed: count,
  errors: count,
  unfinished: count,
  firstError: z.string().nullable(),
  meanInputTokens: nonNeg.nullable(),
  meanOutputTokens: nonNeg.nullable(),
  /** Most requests in flight at once, as the client counted them. */
  maxInFlight: count,
  /** Arrivals the --max-in-flight cap held back past their time. */
  heldBack: count,
  queue: LoadQueueSchema.nullable(),
  keptUp: z.boolean(),
  /** Why not, in words, with the evidence ("completed 3.1 req/s of 8 offered; waiting grew by 41"). */
  keptUpReason: z.string().nullable(),
  /** Requests per second that met every --slo target (null without --slo). */
  goodput: nonNeg.nullable(),
  /** Share (0..1) of completed requests that met every target (null without --slo). */
  sloShare: nonNeg.max(1).nullable(),
  windowSeconds: nonNeg,
  startedAt: z.string(),
  /** Seconds each request was sent after its arrival was due (a client that keeps its schedule: near 0). Older files: absent. */
  arrivalLag: CountedStatsSchema.nullable().optional(),
  /** Time to the first answer token, after any reasoning (AIPerf's TTFO); present when the answers had reasoning. */
  timeToFirstAnswer: CountedStatsSchema.nullable().optional(),
  /** Mean reasoning tokens per finished request; present when the answers had reasoning. */
  meanReasoningTokens: nonNeg.nullable().optional(),
  /** Prompt tokens the server's prefix cache looked up and found during the pass (its /metrics counters). */
  prefixCache: z.object({ queriedTokens: nonNeg, hitTokens: nonNeg }).nullable().optional(),
  /** Time to first token per conversation turn (conversations only). */
  ttftByTurn: z.array(TurnTtftSchema).optional(),
});

export const LoadRunSchema = z.object({
  config: LoadConfigSchema,
  results: z.array(LoadRateResultSchema),
  /** The largest rate tried that met every SLO target for at least 99% of its requests and kept up (null: none, or no --slo). */
  bestRateWithinSlo: nonNeg.nullable(),
});

export type CountedStats = z.infer<typeof CountedStatsSchema>;
export type Arrivals = z.infer<typeof ArrivalsSchema>;
export type LengthSpec = z.infer<typeof LengthSpecSchema>;
export type Slo = z.infer<typeof SloSchema>;
export type LoadConfig = z.infer<typeof LoadConfigSchema>;
export type LoadQueue = z.infer<typeof LoadQueueSchema>;
export type LoadPass = z.infer<typeof LoadPassSchema>;
export type LoadRateResult = z.infer<typeof LoadRateResultSchema>;
export type LoadRun = z.infer<typeof LoadRunSchema>;
export type TurnTtft = z.infer<typeof TurnTtftSchema>;
