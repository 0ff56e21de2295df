/**
 * Session file format v1 (`*.speedmatrix.json`): one self-contained, versioned JSON document
 * holding everything a report needs. This schema is the single definition; the TypeScript
 * types below are derived from it, so the validator and the types can never drift apart.
 *
 * Units: every number is in base units (tokens, seconds, bytes, watts, tokens per second,
 * joules). Formatting for people happens only at display time (see report/format.ts).
 * Times of day are ISO 8601 strings; times inside a cell are seconds relative to the cell's
 * measurement window start, so they stay small and portable. The fields in words:
 * docs/session-format.md.
 */
import { z } from 'zod';
import { LengthSpecSchema, LoadRunSchema } from './schema-load';
import { START_PHASES } from './start-phases';

export const SESSION_FORMAT = 'speedmatrix-session';
export const SESSION_FORMAT_VERSION = 1;
export const SESSION_EXTENSION = '.speedmatrix.json';

const num = z.number().finite();
const nonNeg = num.nonnegative();
const count = z.number().int().nonnegative();
const maybeNum = nonNeg.nullable();
const maybeStr = z.string().nullable();

/** Distribution summary of a latency, in seconds. */
export const LatencyStatsSchema = z.object({
  p50: nonNeg,
  p90: nonNeg,
  /** Older files and imported ones: absent. */
  p95: nonNeg.optional(),
  p99: nonNeg,
  mean: nonNeg,
  /** How many values the figures are made of (older files and imported ones: absent). */
  count: count.optional(),
});

export const GpuSchema = z.object({
  index: count,
  vendor: z.enum(['nvidia', 'amd', 'apple', 'intel', 'simulated', 'other']),
  name: z.string(),
  uuid: maybeStr.default(null),
  vramBytes: maybeNum,
  driver: maybeStr,
  cuda: maybeStr,
  computeCapability: maybeStr,
  powerLimitWatts: maybeNum,
  busId: maybeStr,
});

export const HardwareSchema = z.object({
  /** e.g. "Discrete GPU", "Integrated GPU", "Simulated GPU", as the reference report's Type line. */
  gpuType: maybeStr.default(null),
  gpus: z.array(GpuSchema),
  cpu: z.object({ model: z.string(), cores: count.nullable(), threads: count.nullable() }).nullable(),
  ramBytes: maybeNum,
  os: z
    .object({
      platform: z.string(),
      distro: maybeStr.default(null),
      release: maybeStr.default(null),
      kernel: maybeStr.default(null),
      arch: maybeStr.default(null),
    })
    .nullable(),
  /** What detection saw that is worth saying, e.g. "no supported GPU found; lspci saw ...". */
  notes: z.array(z.string()).default([]),
});

export const EngineSchema = z.object({
  name: z.string(),
  version: maybeStr,
  commit: maybeStr,
  quantization: maybeStr,
  dtype: maybeStr.default(null),
  backend: maybeStr,
  build: maybeStr,
  repository: maybeStr.default(null),
});

export const ServerKindSchema = z.enum(['vllm-native', 'vllm-docker', 'custom', 'simulator', 'attach', 'imported']);

export const ServerLaunchSchema = z.object({
  kind: ServerKindSchema,
  /** Base URL the benchmark talked to (no credentials). */
  url: maybeStr,
  /** Exact argv, with any API key replaced by "<redacted>". Empty for attach/imported. */
  argv: z.array(z.string()),
  /** Extra environment given to the server, secrets removed. */
  env: z.record(z.string(), z.string()),
  /** The one-line shell form a person would paste, API key shown as <redacted>. */
  display: z.string(),
  model: maybeStr,
  servedModel: maybeStr,
  revision: maybeStr,
  maxModelLen: count.nullable(),
  /**
   * How long the launch took to become ready, per phase its startup log showed, in order (seconds from the end of
   * the phase before). Phases the engine did not print are absent. Absent: attached, imported or older sessions.
   */
  startPhases: z.array(z.object({ phase: z.enum(START_PHASES), seconds: nonNeg })).optional(),
});

export const RunConfigSchema = z.object({
  contexts: z.array(count),
  concurrency: z.array(z.number().int().positive()),
  prefillContexts: z.array(count),
  secondsPerMeasurement: nonNeg,
  maxOutputTokens: z.number().int().positive(),
  decodeTestMode: z.enum(['fixed-duration']),
  prefillMode: z.enum(['during-decode-warmup']),
  tokenTargeting: z.enum(['exact', 'estimate']),
  /** Name and version of the tool that measured, e.g. "SpeedMatrix 0.1.0" or "llm-inference-bench v0.7.6". */
  benchmarkTool: z.string(),
  /** Unique tag of this run, used in prompt prefixes so no earlier cache is reused. */
  runTag: z.string(),
  /** Times each decode cell is measured, in interleaved passes (docs/repeats-and-targets.md). Older files: 1. */
  repeat: z.number().int().positive().default(1),
  /**
   * Adaptive measurement (docs/adaptive-precision.md): each decode window closes once the 95% interval of its total
   * tok/s is within this share of the figure (0.01 = ±1%), after at least `minSecondsPerMeasurement` and at most
   * `secondsPerMeasurement`. Absent or null: fixed windows (older files).
   */
  precision: z.number().positive().nullable().optional(),
  minSecondsPerMeasurement: nonNeg.optional(),
  /**
   * Each decode request's max_tokens drawn from this distribution (`--output-len`, docs/method.md); maxOutputTokens
   * is then its largest draw. Absent: every request asks for maxOutputTokens.
   */
  outputLength: LengthSpecSchema.optional(),
  /** Tokens of the same text every prompt starts with (`--shared-prefix`, docs/method.md). Absent: none. */
  sharedPrefixTokens: count.optional(),
});

export const KvBudgetSourceSchema = z.enum([
  'metrics-cache-config',
  'startup-log',
  'engine-info',
  'user',
  'imported',
  'unknown',
]);

export const KvBudgetSchema = z.object({
  tokens: count.nullable(),
  source: KvBudgetSourceSchema,
  /** Human detail of the source, e.g. "num_gpu_blocks 18934 x block_size 16". */
  detail: maybeStr.default(null),
  /** As stated by the engine, when it states one (e.g. "Maximum concurrency ... 1.16x"). */
  maxConcurrency: maybeNum.default(null),
  tokensPerRequest: count.nullable().default(null),
});

export const CellStatusSchema = z.enum([
  'valid',
  'over-capacity',
  'too-long',
  'queued',
  'stalled',
  'looped',
  'error',
  'cancelled',
  'skipped',
]);

export const PrefillResultSchema = z.object({
  /** Context asked for, in tokens. */
  context: count,
  status: CellStatusSchema,
  reason: maybeStr.default(null),
  /** Real prompt tokens, from usage.prompt_tokens. */
  promptTokens: count.nullable(),
  ttftSeconds: maybeNum,
  /** promptTokens / ttftSeconds. */
  tokensPerSecond: maybeNum,
  measuredAt: maybeStr.default(null),
  /**
   * With --precision (docs/adaptive-precision.md): the prompt was measured cold this many times under fresh tags, the
   * figures above are the means, and the 95% interval of the throughput is this share of it. Absent: one measurement.
   */
  precision: z
    .object({
      measurements: z.number().int().positive(),
      halfWidthRelative: maybeNum,
      stopReason: z.enum(['precision', 'max-measurements', 'max-duration']),
    })
    .nullable()
    .optional(),
  /**
   * The client machine's own delay (docs/method.md, "Prefill"): the longest a kept measurement's thread waited for a
   * CPU between sending and reading the first token (server seconds), and how many measurements were taken again
   * because that was over 1% of the time to first token. Absent where the OS does not report it, and in older files.
   */
  clientDelay: z
    .object({
      seconds: z.number().nonnegative(),
      retakes: z.number().int().nonnegative(),
      /** Of `seconds`, how long a simulated server on the same machine was held back (its lost schedule and its own wait for a CPU; absent: none, or not simulated). */
      serverDelaySeconds: z.number().nonnegative().optional(),
    })
    .nullable()
    .optional(),
  /**
   * Why the figure is no measurement although it was taken (docs/method.md, "Prefill"): this machine delayed it by
   * more than 10% of its time to first token after the retakes, or with --precision its 95% interval is wider than
   * ±50%. The figure stays, marked; absent: reliable, and in older files.
   */
  unreliable: z.string().optional(),
});

// Per-request columns hold up to hundreds of thousands of values: checked in one plain loop
// (zod's per-element parse took most of a large session's open time), the first bad value
// still reported with its index ("cells[3].requests.sentAt[5]: expected a finite number").
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isOutcome = (v: unknown): v is 'done' | 'cancelled' | 'error' =>
  v === 'done' || v === 'cancelled' || v === 'error';
const orNull =
  <T>(is: (v: unknown) => v is T) =>
  (v: unknown): v is T | null =>
    v === null || is(v);
function column<T>(is: (v: unknown) => v is T, what: string) {
  return z
    .custom<T[]>((v) => Array.isArray(v), { message: 'expected an array' })
    .superRefine((arr, ctx) => {
      for (let i = 0; i < arr.length; i++) {
        if (!is(arr[i])) {
          ctx.addIssue({ code: 'custom', message: `expected ${what}`, path: [i] });
          return;
        }
      }
    });
}

/**
 * Each request's own timings, columnar (one array per field, same length) so 100,000 samples
 * stay small on disk. Times are seconds relative to the cell's window start (negative = before).
 */
export const RequestSamplesSchema = z
  .object({
    sentAt: column(isFiniteNumber, 'a finite number'),
    firstTokenAt: column(orNull(isFiniteNumber), 'a finite number or null'),
    lastTokenAt: column(orNull(isFiniteNumber), 'a finite number or null'),
    outputTokens: column(isCount, 'a whole number >= 0'),
    /** Output tokens that fell inside the measurement window. */
    windowTokens: column(isCount, 'a whole number >= 0').default([]),
    promptTokens: column(orNull(isCount), 'a whole number >= 0 or null').default([]),
    /** "done" (finished with [DONE]), "cancelled" (cut at window end), "error". */
    outcome: column(isOutcome, '"done", "cancelled" or "error"'),
    /**
     * The request's longest gap between two tokens that ended inside the window, in seconds, and
     * when it ended; null when none did (older files: absent). The cell timeline marks them.
     */
    longestGap: column(orNull(isFiniteNumber), 'a finite number or null').optional(),
    longestGapEndedAt: column(orNull(isFiniteNumber), 'a finite number or null').optional(),
  })
  .refine(
    (s) => [s.firstTokenAt, s.lastTokenAt, s.outputTokens, s.outcome].every((a) => a.length === s.sentAt.length),
    { message: 'every column of requests must have the same length as sentAt' },
  );

export const CellTelemetrySchema = z.object({
  avgGpuUtilization: maybeNum, // 0..1
  avgPowerWatts: maybeNum,
  avgSmClockHz: maybeNum,
  avgMemoryUsedBytes: maybeNum,
  avgTemperatureC: num.nullable(),
  throttleReasons: z.array(z.string()),
  energyPerTokenJoules: maybeNum,
});

export const EvidenceSchema = z.object({
  /** The repeating passage, cut to a readable length. */
  loopExcerpt: maybeStr.default(null),
  loopPeriodChars: count.nullable().default(null),
  loopStream: z.enum(['content', 'reasoning']).nullable().default(null),
  /** Server log lines around a failure. */
  logLines: z.array(z.string()).default([]),
});

/** What the window's once-a-second /metrics scrapes said about queueing (docs/method.md). */
export const QueueEvidenceSchema = z.object({
  scrapes: count,
  /** Share (0..1) of the scrapes that saw a request waiting. */
  waitingShare: nonNeg.max(1),
  /** Longest run of consecutive scrapes that saw a request waiting. */
  longestWaitingRun: count,
  /** Mean running requests over the scrapes. */
  avgRunning: nonNeg,
  /**
   * Standard error of `avgRunning` (requests): the scrapes' sample standard deviation over the square
   * root of their number, taken as independent samples (older files, fewer than two scrapes: absent).
   */
  avgRunningStdError: nonNeg.optional(),
  /** Most requests running in one scrape (older files: absent). Evidence only: one scrape's chance decides nothing. */
  maxRunning: count.optional(),
  /**
   * Requests the client really had at the server on average: its own count of outstanding requests
   * less its turnaround (older files: absent). Running below this is the server's queueing; this
   * below C is the client's shortfall, never the server's.
   */
  clientInFlight: nonNeg.optional(),
  /** Mean seconds from a request's last token to its worker's next request, inside the window (older files: absent). */
  clientTurnaroundSeconds: nonNeg.optional(),
  /**
   * From vLLM's `vllm:request_queue_time_seconds` between the window's first and last scrape, where
   * the server exports it and scheduled a request in the window (else absent): requests scheduled,
   * their mean wait before it, and the preemptions meanwhile (`vllm:num_preemptions_total`).
   */
  scheduledRequests: count.optional(),
  meanQueueSeconds: nonNeg.optional(),
  preemptions: count.optional(),
  /**
   * Server seconds from the window's first scrape to its last (older files: absent): the span over
   * which `scheduledRequests` was counted, so their rate is the one over the other (Little's law,
   * docs/method.md "Requests queued").
   */
  scrapeSpanSeconds: nonNeg.optional(),
});

/** The longest gap between two tokens of one stream inside the window, when it made the figure suspect. */
export const StallEvidenceSchema = z.object({
  gapSeconds: nonNeg,
  /** When the gap ended (or the window closed on it), seconds from the window start. */
  endedAtSeconds: num,
  /** The gap it was over: 20× the median time between tokens, at least 2 s. */
  thresholdSeconds: nonNeg,
});

/** How an adaptive window closed (docs/adaptive-precision.md); absent on fixed windows and older files. */
export const WindowPrecisionSchema = z.object({
  /** Why the window closed: its interval reached the target, or the maximum duration came first. */
  stopReason: z.enum(['precision', 'max-duration']),
  /** The wanted half-width relative to total tok/s (0.01 = ±1%). */
  targetRelative: nonNeg,
  /** The 95% interval's half-width relative to total tok/s when the window closed; null when too short to tell. */
  halfWidthRelative: maybeNum,
  /** The batch means behind the interval: how many sub-windows, of how many server seconds each. */
  batches: count,
  batchSeconds: nonNeg,
  /**
   * Closed at its maximum because of the client, not the server: the client's own mean delay in reading tokens as a
   * share of a batch, at least half the target (bench/client-delay.ts clientHeldPrecision). Absent otherwise.
   */
  clientDelayShare: nonNeg.optional(),
});

/**
 * The client's own health during a decode cell's window (bench/client-health.ts): a client that ran late or waited
 * for a CPU may have set the pace instead of the server. Absent in older files.
 */
export const ClientHealthSchema = z.object({
  /** How late the client's event loop ran, beyond its sampling interval, at its 99th percentile and at most. */
  loopDelayP99Seconds: nonNeg,
  loopDelayMaxSeconds: nonNeg,
  /** The share of the window's wall time the client's thread was ready to run but kept waiting for a CPU; null where the OS does not say. */
  runDelayShare: maybeNum,
  /** The client process's CPU time (user + system) per token the window counted; null without tokens. */
  cpuSecondsPerToken: maybeNum,
  /** The threads that read the cell's streams (absent: one, the cell's own). */
  threads: z.number().int().positive().optional(),
});

/** One measurement of a repeated cell: its own figures, kept so the cell's means come with an interval. */
export const RepetitionSchema = z.object({
  /** 1 for the first pass, 2 for the second, ... */
  repetition: z.number().int().positive(),
  status: CellStatusSchema,
  reason: maybeStr.default(null),
  totalTokensPerSecond: maybeNum,
  perRequestTokensPerSecond: maybeNum,
  ttft: LatencyStatsSchema.nullable(),
  timeBetweenTokens: LatencyStatsSchema.nullable(),
  e2eLatency: LatencyStatsSchema.nullable().optional(),
  outputTokens: count.nullable(),
  windowSeconds: maybeNum,
  precision: WindowPrecisionSchema.nullable().optional(),
  startedAt: maybeStr.default(null),
  /** See DecodeCellSchema's simulatorLagSeconds. */
  simulatorLagSeconds: nonNeg.optional(),
  /** See DecodeCellSchema's clientHealth. */
  clientHealth: ClientHealthSchema.optional(),
});

/** One repetition's requests of a repeated cell, with the window that repetition measured over (its own times). */
export const RepetitionRequestsSchema = z.object({
  repetition: z.number().int().positive(),
  windowSeconds: maybeNum,
  requests: RequestSamplesSchema,
});

export const DecodeCellSchema = z.object({
  context: count,
  concurrency: z.number().int().positive(),
  status: CellStatusSchema,
  reason: maybeStr.default(null),
  promptTokens: count.nullable().default(null),
  totalTokensPerSecond: maybeNum,
  /** Median over the window's requests of each request's own rate (1 / its time between tokens). */
  perRequestTokensPerSecond: maybeNum,
  /** Total / C: each request's fair share of the total (older files: absent). */
  fairShareTokensPerSecond: maybeNum.optional(),
  ttft: LatencyStatsSchema.nullable(),
  timeBetweenTokens: LatencyStatsSchema.nullable(),
  /** End-to-end latency, send to last token, of the requests that finished (older files: absent). */
  e2eLatency: LatencyStatsSchema.nullable().optional(),
  /**
   * A thinking model's answers: time from sending to the first answer token, after the reasoning (AIPerf's TTFO),
   * and the mean reasoning tokens per request. Absent when no answer had reasoning, and in older files.
   */
  timeToFirstAnswer: LatencyStatsSchema.nullable().optional(),
  reasoningTokensPerRequest: nonNeg.optional(),
  avgActiveRequests: maybeNum,
  completedRequests: count.nullable(),
  outputTokens: count.nullable(),
  windowSeconds: maybeNum,
  readinessTimedOut: z.boolean().default(false),
  maxWaitingSeen: count.nullable().default(null),
  /** Requests of the window that failed and were replaced; the figure stands up to 10% (older files: absent). */
  failedRequests: count.nullable().optional(),
  /** Requests in flight at some time during the window, failed ones included. */
  windowRequests: count.nullable().optional(),
  queueEvidence: QueueEvidenceSchema.nullable().optional(),
  stall: StallEvidenceSchema.nullable().optional(),
  /** An adaptive window: why it closed and its interval (`windowSeconds` is how long it measured). */
  precision: WindowPrecisionSchema.nullable().optional(),
  /**
   * Simulated seconds of schedule a simulated server gave up during the window because its host did
   * not let it run (its /metrics says so); the figures are then less certain. Absent otherwise.
   */
  simulatorLagSeconds: nonNeg.optional(),
  /** The client's own health in the window; its reason says when the client, not the server, set the pace. */
  clientHealth: ClientHealthSchema.optional(),
  /**
   * Where this verdict deliberately differs from the reference tool's 95% rule (docs/method.md, "The reference's
   * verdicts"): the status that rule gives, what it saw, and why SpeedMatrix's rule judges otherwise. Absent where
   * they agree, and in older files.
   */
  referenceVerdict: z.object({ status: CellStatusSchema, says: z.string(), differs: z.string() }).optional(),
  evidence: EvidenceSchema.nullable().default(null),
  requests: RequestSamplesSchema.nullable().default(null),
  telemetry: CellTelemetrySchema.nullable().default(null),
  startedAt: maybeStr.default(null),
  finishedAt: maybeStr.default(null),
  /**
   * Each repetition's own figures when the run repeats cells (absent otherwise); the cell's figures
   * above are then their means (docs/repeats-and-targets.md).
   */
  repetitions: z.array(RepetitionSchema).optional(),
  /**
   * A repeated cell's requests of its other repetitions: `requests` holds the latest with figures, these the rest,
   * each once (docs/session-format.md). Absent without repeats, and in older files (their other requests were not kept).
   */
  repetitionRequests: z.array(RepetitionRequestsSchema).optional(),
});

/** GPU telemetry, columnar; t is seconds since the session's createdAt. */
export const TelemetrySeriesSchema = z.object({
  intervalSeconds: nonNeg,
  t: z.array(num),
  gpu: z.array(count),
  utilization: z.array(num.nullable()), // 0..1
  memoryUsedBytes: z.array(num.nullable()),
  powerWatts: z.array(num.nullable()),
  powerLimitWatts: z.array(num.nullable()),
  smClockHz: z.array(num.nullable()),
  memClockHz: z.array(num.nullable()),
  temperatureC: z.array(num.nullable()),
  pstate: z.array(z.string().nullable()),
  throttleReasons: z.array(z.string().nullable()),
});

export const EventSchema = z.object({
  at: z.string(),
  level: z.enum(['info', 'warn', 'error']),
  message: z.string(),
});

export const SessionSchema = z.object({
  format: z.literal(SESSION_FORMAT),
  formatVersion: z.literal(SESSION_FORMAT_VERSION),
  appVersion: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** True when the numbers come from the simulated vLLM server, not real hardware. */
  simulated: z.boolean(),
  /** Where this session came from: measured here, or imported from another tool's output. */
  origin: z.object({
    kind: z.enum([
      'measured',
      'imported-seed-json',
      'imported-report-text',
      'imported-vllm-bench',
      'imported-aiperf',
      'imported-guidellm',
    ]),
    file: maybeStr.default(null),
  }),
  hardware: HardwareSchema,
  engine: EngineSchema,
  server: ServerLaunchSchema,
  runConfig: RunConfigSchema,
  kvBudget: KvBudgetSchema,
  prefill: z.array(PrefillResultSchema),
  cells: z.array(DecodeCellSchema),
  telemetry: TelemetrySeriesSchema.nullable().default(null),
  serverLog: z.object({ lines: z.array(z.string()), truncated: z.boolean() }),
  events: z.array(EventSchema),
  /** Checks the run could not make (e.g. "no /metrics: readiness used client-side signals only"). */
  checksUnavailable: z.array(z.string()).default([]),
  /** A load session's rates and figures (docs/load.md); absent in a matrix session and in older files. */
  load: LoadRunSchema.optional(),
});

export type LatencyStats = z.infer<typeof LatencyStatsSchema>;
export type Gpu = z.infer<typeof GpuSchema>;
export type Hardware = z.infer<typeof HardwareSchema>;
export type Engine = z.infer<typeof EngineSchema>;
export type ServerKind = z.infer<typeof ServerKindSchema>;
export type ServerLaunch = z.infer<typeof ServerLaunchSchema>;
export type RunConfig = z.infer<typeof RunConfigSchema>;
export type KvBudgetSource = z.infer<typeof KvBudgetSourceSchema>;
export type KvBudget = z.infer<typeof KvBudgetSchema>;
export type CellStatus = z.infer<typeof CellStatusSchema>;
export type PrefillResult = z.infer<typeof PrefillResultSchema>;
export type RequestSamples = z.infer<typeof RequestSamplesSchema>;
export type RepetitionRequests = z.infer<typeof RepetitionRequestsSchema>;
export type CellTelemetry = z.infer<typeof CellTelemetrySchema>;
export type Evidence = z.infer<typeof EvidenceSchema>;
export type QueueEvidence = z.infer<typeof QueueEvidenceSchema>;
export type StallEvidence = z.infer<typeof StallEvidenceSchema>;
export type WindowPrecision = z.infer<typeof WindowPrecisionSchema>;
export type ClientHealth = z.infer<typeof ClientHealthSchema>;
export type DecodeCell = z.infer<typeof DecodeCellSchema>;
export type Repetition = z.infer<typeof RepetitionSchema>;
export type TelemetrySeries = z.infer<typeof TelemetrySeriesSchema>;
export type SessionEvent = z.infer<typeof EventSchema>;
export type Session = z.infer<typeof SessionSchema>;
/** What callers may pass before defaults are filled in (e.g. when building a session). */
export type SessionInput = z.input<typeof SessionSchema>;
