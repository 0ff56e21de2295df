/**
 * What the page sends main: the forms and choices behind the invoke channels (contract.ts), as
 * zod schemas main checks every argument against (never trusted from the page), and their types.
 */
import { z } from 'zod';
import { CELL_METRICS } from '../report/cell-metrics';
import { LAUNCH_SETTINGS, SERVER_KINDS, type SwitchSettingKey, type TextSettingKey } from '../server/launch-settings';

const port = z.number().int().min(1).max(65535);
const tokens = z.number().int().nonnegative();

/**
 * The launch settings' fields, from their table: a text field as typed (read in main by
 * formToLaunch), a check box as a boolean starting at its initial value.
 */
type LaunchSettingsShape = { [K in TextSettingKey]: z.ZodDefault<z.ZodString> } & {
  [K in SwitchSettingKey]: z.ZodDefault<z.ZodBoolean>;
};
function launchSettingsShape(): LaunchSettingsShape {
  const shape: Record<string, z.ZodDefault<z.ZodString> | z.ZodDefault<z.ZodBoolean>> = {};
  for (const s of LAUNCH_SETTINGS) {
    if (!('field' in s)) continue;
    shape[s.key] =
      s.arg === 'switch' ? z.boolean().default(s.field.initial) : z.string().max(s.field.maxLength).default('');
  }
  return shape as LaunchSettingsShape;
}

/** The Server view's form. Core maps it onto the supervisor's launch options. */
export const ServerFormSchema = z.object({
  kind: z.enum(SERVER_KINDS),
  model: z.string().max(500),
  ...launchSettingsShape(),
  host: z.string().max(200).default('127.0.0.1'),
  port: port.nullable().default(null),
  apiKey: z.string().max(500).default(''),
  /** vLLM native: the executable (PATH lookup when empty). */
  executable: z.string().max(2000).default(''),
  /** Docker image tag, e.g. "latest" or "v0.11.0". */
  dockerImage: z.string().max(300).default(''),
  /** Custom command, one argument per line (never passed through a shell). */
  customCommand: z.string().max(10_000).default(''),
  /** CUDA_VISIBLE_DEVICES, e.g. "0,1". */
  gpus: z.string().max(100).default(''),
  /** Extra environment, KEY=VALUE per line. */
  extraEnv: z.string().max(10_000).default(''),
  /** Extra args, one per line, passed through untouched. */
  extraArgs: z.string().max(10_000).default(''),
  /** Attach mode: the server's base URL. */
  url: z.string().max(2000).default(''),
  /** Simulator: clock speed-up and load delay, for demos and tests. */
  simSpeed: z.number().positive().max(10_000).default(1),
  simLoadSeconds: z.number().nonnegative().max(600).default(3),
  simProfile: z.string().max(200).default(''),
  /** Simulator fault switches, passed as extra sim flags (one per line). */
  simFlags: z.string().max(2000).default(''),
  /** Where the server runs: this machine, or a remote host over the user's ssh (README "A GPU server over SSH"). */
  where: z.enum(['local', 'ssh']).default('local'),
  /** With `where: 'ssh'`: the host as the user's ssh understands it (an alias from ~/.ssh/config or user@host). */
  sshHost: z.string().max(500).default(''),
  /** With `where: 'ssh'`: ssh options, KEY=VALUE per line, passed on as `-o KEY=VALUE`. */
  sshOptions: z.string().max(5000).default(''),
});
export type ServerForm = z.infer<typeof ServerFormSchema>;
export type ServerFormInput = z.input<typeof ServerFormSchema>;

export const RunFormSchema = z.object({
  contexts: z.array(tokens).min(1).max(64),
  /** Empty: automatic, the levels the plan gives by default (the CLI's without --concurrency). */
  concurrency: z.array(z.number().int().positive().max(4096)).max(64),
  /** Empty: the engine's default (the decode contexts). */
  prefillContexts: z.array(tokens).max(64).default([]),
  secondsPerMeasurement: z.number().positive().max(3600),
  maxOutputTokens: z.number().int().positive().max(1_000_000),
  tokenTargeting: z.enum(['exact', 'estimate']),
  /** Times each decode cell is measured (docs/repeats-and-targets.md). */
  repeat: z.number().int().positive().max(100).default(1),
  /** "Stop each cell at ±P%" (docs/adaptive-precision.md): P in percent, null for fixed windows. */
  precisionPercent: z.number().positive().max(50).nullable().optional(),
  /** With a precision: the shortest window, seconds (secondsPerMeasurement is then the longest). */
  minSecondsPerMeasurement: z.number().positive().max(3600).optional(),
  /** Each decode request's max_tokens drawn, as `--output-len` writes it (`256`, `128-512`, `256~64`); empty: max output. */
  outputLen: z.string().max(100).optional(),
  /** Tokens of the same text first in every prompt (`--shared-prefix`); 0 for none. */
  sharedPrefix: z.number().int().nonnegative().max(10_000_000).optional(),
});
export type RunForm = z.infer<typeof RunFormSchema>;

/**
 * The Run view's Load mode (docs/load.md): the same settings as `speedmatrix load`'s flags, in
 * the flags' own words (lengths as `1024`, `512-2048` or `1024~256`; arrivals as `poisson`,
 * `constant` or `gamma:CV`; targets as `ttft<=500ms`), checked in main by the CLI's rules.
 */
export const LoadFormSchema = z.object({
  /** Requests per second to offer, in order (ignored when sweep is on). */
  rates: z.array(z.number().positive().max(1_000_000)).max(64),
  /** A sweep instead: a synchronous pass, a throughput pass, then sweepPoints rates between. */
  sweep: z.boolean(),
  sweepPoints: z.number().int().positive().max(64),
  arrivals: z.string().max(100),
  /** Most requests in flight at once; null: no cap. */
  maxInFlight: z.number().int().positive().max(100_000).nullable(),
  durationSeconds: z.number().positive().max(86_400),
  warmupSeconds: z.number().nonnegative().max(86_400),
  inputLen: z.string().max(100),
  outputLen: z.string().max(100),
  /** Per-request targets for goodput; empty for none. */
  slo: z.string().max(500),
  /** Turns per conversation (1 or absent: single requests) and seconds between an answer and the next turn. */
  turns: z.number().int().positive().max(1000).optional(),
  thinkSeconds: z.number().nonnegative().max(86_400).optional(),
  /** A trace to replay instead of rates (picked with 'load:choose-trace'), and how many times its pace. */
  trace: z
    .object({ file: z.string().min(1).max(4096), speed: z.number().positive().max(1000) })
    .nullable()
    .optional(),
});
export type LoadForm = z.infer<typeof LoadFormSchema>;

/** One varied launch setting as typed in the Server view: a flag and its values, separated by commas. */
export const SweepAxisInputSchema = z.object({ flag: z.string().max(200), values: z.string().max(2000) });
export const SweepAxesSchema = z.array(SweepAxisInputSchema).max(16);

/** A new sweep: the launch form, the varied settings, the matrix every variant measures, the folder it goes to. */
export const SweepStartSchema = z.object({
  server: ServerFormSchema,
  axes: SweepAxesSchema.min(1),
  run: RunFormSchema,
  dir: z.string().min(1).max(4096),
});
export type SweepStart = z.infer<typeof SweepStartSchema>;

/** A remote host as the Server view names it: what `--ssh` and `--ssh-option` take, nothing more. */
export const RemoteHostSchema = z.object({
  host: z.string().max(500),
  options: z.array(z.string().max(500)).max(50).default([]),
});
export type RemoteHost = z.infer<typeof RemoteHostSchema>;

/** A report (Markdown, HTML, PDF) or the session's figures as data: per-cell CSV, per-request JSON Lines. */
export const ExportFormatSchema = z.enum(['markdown', 'html', 'pdf', 'csv', 'jsonl']);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;

export const optionalPath = z.string().min(1).max(4096).optional();

/** What an export shows besides the session: the heatmap's metric, the targets and the GPU price the person chose. */
export const ReportViewSchema = z.object({
  metric: z.enum(CELL_METRICS).default('total'),
  /** Service-level targets as written, e.g. "ttft-p90<=2s,tbt-p90<=50ms"; empty for none. */
  slo: z.string().max(2000).default(''),
  /** Price of one GPU for one hour, for cost per million tokens. */
  gpuPricePerHour: z.number().positive().finite().nullable().default(null),
  /** That price's ISO 4217 code (report/price.ts); US dollars when absent. */
  gpuPriceCurrency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
});
export type ReportView = z.input<typeof ReportViewSchema>;

/** Comparisons export as the CLI writes them (`compare`, `sweep`): Markdown or HTML. */
export const ComparisonFormatSchema = z.enum(['markdown', 'html', 'pdf']);
export type ComparisonFormat = z.infer<typeof ComparisonFormatSchema>;

/** Which decode cell: its context length and concurrency. */
export const CellRefSchema = z.object({ context: tokens, concurrency: z.number().int().positive() });
export type CellRef = z.infer<typeof CellRefSchema>;
