/**
 * The one IPC contract between main and renderer. Main's handlers, the preload bridge, the
 * test WebSocket bridge and the renderer all derive from this file, so a channel cannot be
 * renamed or retyped in one place only. No 'electron' import: the renderer and tests use it.
 *
 * Invoke channels: zod-validated arguments (checked in main, never trusted from the page)
 * and a typed result that is always {ok, data} | {ok, error}, never a throw.
 * Event channels: main -> renderer payloads. How to add a channel: docs/ipc.md.
 */
import { z } from 'zod';
import type { Result } from '../result';
import type { StartPhase } from '../session/start-phases';
import type {
  CellStatus,
  DecodeCell,
  Engine,
  Hardware,
  KvBudget,
  PrefillResult,
  ServerKind,
  Session,
} from '../session/schema';
import type { ComparisonModel } from '../report/compare-model';
import type { SweepModel } from '../report/sweep-model';
import type { LoadConfig, LoadRateResult } from '../session/schema-load';
import type { PlannedOutStatus } from '../session/status-words';
import { CELL_METRICS } from '../report/cell-metrics';

// ---------- argument schemas ----------

const port = z.number().int().min(1).max(65535);
const tokens = z.number().int().nonnegative();

/** The Server view's form. Core maps it onto the supervisor's launch options. */
export const ServerFormSchema = z.object({
  kind: z.enum(['vllm-native', 'vllm-docker', 'custom', 'simulator', 'attach']),
  model: z.string().max(500),
  servedModelName: z.string().max(200).default(''),
  revision: z.string().max(200).default(''),
  dtype: z.string().max(40).default(''),
  quantization: z.string().max(40).default(''),
  maxModelLen: z.string().max(20).default(''),
  gpuMemoryUtilization: z.string().max(10).default(''),
  maxNumSeqs: z.string().max(10).default(''),
  maxNumBatchedTokens: z.string().max(20).default(''),
  tensorParallelSize: z.string().max(5).default(''),
  kvCacheDtype: z.string().max(40).default(''),
  enablePrefixCaching: z.boolean().default(true),
  trustRemoteCode: z.boolean().default(false),
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
  concurrency: z.array(z.number().int().positive().max(4096)).min(1).max(64),
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

const optionalPath = z.string().min(1).max(4096).optional();

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

// ---------- result and event payload types ----------

export interface AppInfo {
  name: string;
  version: string;
  platform: string;
  /** 'electron' in the app, 'bridge' in the browser test harness. */
  host: 'electron' | 'bridge';
  /** The simulator's built-in GPU profiles, for the Server view's list. */
  simProfiles: { name: string; description: string }[];
}

/** What a remote host's own `speedmatrix hw --json` detected there. */
export interface RemoteHardware {
  host: string;
  hardware: Hardware;
  /** Why no GPU was found there, when none was. */
  noGpuMessage: string | null;
}

/** The supervisor's states: the one definition, used by the supervisor, the core and the page. */
export type ServerState = 'idle' | 'starting' | 'ready' | 'stopping' | 'exited' | 'failed';

export interface ServerReadyInfo {
  url: string;
  model: string;
  maxModelLen: number | null;
  kvBudget: KvBudget;
  engine: Engine;
  simulated: boolean;
  /** How long this launch took to become ready, per phase its log showed (seconds); empty when attached. */
  startPhases: StartPhase[];
}

export interface ServerFailure {
  message: string;
  advice: string | null;
  /** The log lines that caused it. */
  lines: string[];
}

export interface ServerSnapshot {
  state: ServerState;
  kind: ServerKind | null;
  /** The command line (API key redacted), empty in attach mode. */
  display: string;
  /** The same command for PowerShell where the app runs on Windows (what Copy copies there). */
  powershell?: string | null;
  /** ms since epoch when starting began. */
  startedAt: number | null;
  /** A short line on what startup is waiting for. */
  progress: string | null;
  ready: ServerReadyInfo | null;
  failure: ServerFailure | null;
  /** The sweep variant this server runs ("B: --max-num-seqs=16"): the sweep starts and stops it. */
  sweepVariant?: string | null;
  /** The remote host it runs on (Server view "Remote host (SSH)"); null or absent on this machine. */
  sshHost?: string | null;
  /**
   * Rises with every change of state. An invoke's reply can arrive after a newer event (a
   * start failing at once), so the page keeps whichever snapshot is newest, not whichever came last.
   */
  seq: number;
}

/** A process a crashed server left running (pid, full command line, GPU memory when nvidia-smi tells). */
export interface OrphanProcess {
  pid: number;
  command: string;
  gpuMemoryBytes: number | null;
  /** Left by a server that crashed, or a server an earlier SpeedMatrix launched and was killed before stopping. */
  origin: 'crash' | 'killed-run';
}

/** Sent when a crash leaves processes running (the app asks before ending them), and with [] once they are gone. */
export interface ServerOrphans {
  orphans: OrphanProcess[];
}

export interface CommandPreview {
  display: string;
  argv: string[];
  env: Record<string, string>;
  /** The same command for PowerShell, where the app runs on Windows (what Copy copies there); null elsewhere. */
  powershell: string | null;
  /** Said before anything is launched when this launch cannot work on this OS (e.g. vLLM on Windows); null when it can. */
  platformNote: string | null;
  /** Before launching: flags the chosen vLLM version lacks, sizes spelled out in tokens. */
  warnings?: string[];
}

export type PlanCellStatus = 'run' | PlannedOutStatus;

export interface PlanCell {
  context: number;
  concurrency: number;
  status: PlanCellStatus;
  reason: string | null;
}

export interface PlanView {
  contexts: number[];
  concurrency: number[];
  prefillContexts: number[];
  cells: PlanCell[];
  etaSeconds: number;
  kvBudget: KvBudget | null;
  maxModelLen: number | null;
  /** Whether a server is ready: without one the plan cannot check capacity. */
  notes: string[];
}

export type RunPhase = 'idle' | 'starting' | 'prefill' | 'decode' | 'done' | 'cancelled' | 'failed';

/** What the engine says a decode cell is doing (its 'phase' events), in the order they come. */
export type CellPhase = 'warmup' | 'calibration' | 'idle-gate' | 'readiness' | 'window' | 'cooldown';
/** What the live cell shows: its prefill, its start, one of its phases, then ramping up and measuring. */
export type LiveStage = 'prefill' | 'starting' | CellPhase | 'ramping up' | 'measuring';

export interface LiveCell {
  context: number;
  concurrency: number;
  stage: LiveStage;
  tokensPerSecond: number | null;
  activeRequests: number | null;
  outputTokens: number | null;
  elapsedSeconds: number | null;
}

/** What a run's progress counts: cells, or measurements when each cell is repeated. */
export type ProgressUnit = 'cell' | 'measurement';

export interface RunProgress {
  done: number;
  total: number;
  unit: ProgressUnit;
  etaSeconds: number | null;
  /** When the run's plan arrived (ms since epoch): the time elapsed is shown beside the ETA. */
  startedAtMs?: number;
}

/**
 * Merged run events: main throttles the engine's stream to ~10 messages a second; finished
 * cells and prefill points are never dropped, live samples keep only the latest.
 */
export interface RunUpdate {
  phase: RunPhase;
  plan: PlanView | null;
  live: LiveCell | null;
  /**
   * Cells finished since the last update, as main's open session took them (without per-request
   * samples, as in SessionView), and prefill points measured since. The page applies them to
   * the session it holds; nothing else carries them.
   */
  cells: DecodeCell[];
  prefill: PrefillResult[];
  /** Per-request samples each of `cells` holds in the core, keyed by cellKey (as in SessionView). */
  requestCounts: Record<string, number>;
  /**
   * The session revisions (SessionMeta.revision) these cells and prefill points take the open
   * session from and to: main applies them first, then sends them. Null when there are none.
   */
  revisions: { from: number; to: number } | null;
  progress: RunProgress | null;
  message: string | null;
  /**
   * A run on a remote host: where, and while its link is lost, why (the run carries on there;
   * 'run:reattach' follows it again). Absent for a run on this machine.
   */
  remote?: { host: string; lostLink: string | null } | null;
  /**
   * Which run (rises with each start or resume) and which of its updates (rises with each one
   * sent): an invoke's reply can arrive after a newer event, so the page keeps the newest.
   */
  run: number;
  seq: number;
}

export type LoadPhase = 'idle' | 'starting' | 'running' | 'done' | 'cancelled' | 'failed';

/** The pass a load run measures now, and how far its requests have got. */
export interface LoadPassProgress {
  /** Its name as the load table words it: "2.0 req/s", "synchronous", "throughput". */
  label: string;
  index: number;
  total: number;
  sent: number;
  completed: number;
}

/** A load run as the Run view's Load mode shows it ('load:update'), at most ~5 a second. */
export interface LoadView {
  phase: LoadPhase;
  /** The checked configuration (a sweep's rates filled in once its two passes are done). */
  config: LoadConfig | null;
  current: LoadPassProgress | null;
  /** Every pass measured so far, in order: the live charts and table read these. */
  results: LoadRateResult[];
  /** What the run said (a prompt-size note, a stop), and why it failed. */
  messages: string[];
  error: string | null;
  /** Rises with each start; seq with each update sent, across runs: the page keeps the highest. */
  run: number;
  seq: number;
}

/** What a sweep will do (docs/sweeps.md): the same figures as the CLI's plan line. */
export interface SweepPlanFigures {
  variants: number;
  /** Variants not done yet; each gets its own server start. */
  toRun: number;
  serverStarts: number;
  /** Cells each variant runs at most: Over capacity is known only once its server is up. */
  cellsPerVariant: number;
  cells: number;
  /** Cells planned as Requests queued: above their variant's running-request cap (--max-num-seqs). */
  queuedCells: number;
  secondsPerVariant: number;
  /** Measuring time of the variants to run, server starts left out. */
  measuringSeconds: number;
  /** Time the server starts of the variants to run take, where their commands say (the simulator's); else null. */
  serverStartSeconds: number | null;
}

/** One variant of the sweep the Server view holds: its letter, settings and the command it launches. */
export interface SweepVariantPreview {
  letter: string;
  label: string;
  display: string;
}

/** The Server view's variants checked: each wrong field with its reason, or the variants and the plan. */
export interface SweepPlanView {
  problems: { axis: number; field: 'flag' | 'values'; message: string }[];
  /** Why no sweep can run with this form (attach mode, a form that does not launch), or null. */
  blocked: string | null;
  variants: SweepVariantPreview[];
  plan: SweepPlanFigures | null;
  /** The plan in one line, as the CLI prints it. */
  line: string | null;
}

/** Where one variant of a running sweep stands. */
export type SweepVariantState = 'waiting' | 'starting' | 'running' | 'done' | 'failed' | 'cancelled';

export interface SweepVariantView {
  letter: string;
  label: string;
  /** Its session file's name in the sweep folder. */
  file: string;
  state: SweepVariantState;
  /** Why it failed: the server's root cause. */
  failure: string | null;
  /** Cells measured of those it runs, once its run has a plan. */
  cells: { done: number; total: number } | null;
}

export type SweepPhase = 'idle' | 'running' | 'stopping' | 'done' | 'cancelled' | 'failed';

/** A sweep as the Run view shows it ('sweep:update'); the current variant's matrix comes as run updates. */
export interface SweepView {
  phase: SweepPhase;
  dir: string | null;
  plan: SweepPlanFigures | null;
  variants: SweepVariantView[];
  /** The variant being started or measured. */
  current: number | null;
  /** Seconds left, and whether that includes server starts (known once a variant has finished here). */
  eta: { seconds: number; withServerStarts: boolean } | null;
  message: string | null;
  /** Rises with every change: the page keeps the newest. */
  seq: number;
}

export interface TelemetrySample {
  /** ms since epoch. */
  at: number;
  gpu: number;
  utilization: number | null;
  memoryUsedBytes: number | null;
  memoryTotalBytes: number | null;
  powerWatts: number | null;
  temperatureC: number | null;
}

export interface SessionMeta {
  file: string | null;
  /** Where it came from when there is no file to save to (a dropped or imported file's name). */
  sourceName: string | null;
  dirty: boolean;
  /** Bumped on every change of the session's content (a save changes only this meta). */
  revision: number;
  /**
   * The revision at which the session was last replaced as a whole: opened, imported, or written
   * by a run's start or end. Every change after it is a finished cell or prefill point, which
   * reaches the page as a run update; the page asks for the session ('session:get') only when
   * this is newer than the revision it holds.
   */
  replaced: number;
  /** The run (RunUpdate.run) measuring into this session, or that last did; null for a session opened from a file. */
  run: number | null;
  /** The last save failure, if any (the data stays in memory). */
  saveError: string | null;
  hasSession: boolean;
}

/** One cell's per-request samples: `requests`, and a repeated cell's other repetitions' (docs/session-format.md). */
export type CellSamples = Pick<DecodeCell, 'requests' | 'repetitionRequests'>;

export interface SessionView {
  meta: SessionMeta;
  /**
   * The open session without per-request samples: every cell's `requests` is null (and its `repetitionRequests`
   * absent), and
   * `requestCounts` says how many each cell holds. One cell's samples come from
   * 'session:cell-requests' when the page needs them (a 100,000-sample session is 7 MB).
   */
  session: Session | null;
  /** Per-request samples each cell holds in the core, keyed by cellKey(context, concurrency). */
  requestCounts: Record<string, number>;
}

/** Which decode cell: its context length and concurrency. */
export const CellRefSchema = z.object({ context: tokens, concurrency: z.number().int().positive() });
export type CellRef = z.infer<typeof CellRefSchema>;

export interface Notice {
  level: 'info' | 'warn' | 'error';
  message: string;
  /** Field path for a bad session file, when there is one. */
  detail?: string | null;
}

/** One variant (or file) of a comparison, as the comparison view lists it. */
export interface ComparisonEntryView {
  /** Its letter in the comparison: A, B, … */
  label: string;
  /** The variant's settings ("--max-num-seqs=64"), or the file's name. */
  name: string;
  /** The session file, when it was read: it opens in Results as an ordinary session. */
  file: string | null;
  /** A sweep variant's state; 'unusable' when the sweep says it ran but its file cannot be read. */
  state: 'done' | 'partial' | 'pending' | 'failed' | 'unusable';
  /** Why it has no results: the server's root cause, or what is wrong with its file. */
  problem: string | null;
  /** A Slurm sweep's variant: its job as the scheduler and the job's outcome say (docs/sweeps.md). */
  job?: SweepJobView;
}

/** A variant's Slurm job: waiting, running, done or failed, and for a failed one why and its log's last lines. */
export interface SweepJobView {
  id: string | null;
  state: 'pending' | 'running' | 'done' | 'failed';
  reason: string | null;
  node: string | null;
  logTail: string[];
}

/** A sweep folder or a set of session files, compared: the same models the sweep and compare reports print. */
export interface ComparisonView {
  source: 'sweep' | 'sessions';
  /** The sweep folder; null for files compared. */
  dir: string | null;
  title: string;
  entries: ComparisonEntryView[];
  sweep: SweepModel;
  /** The entries that ran, compared (each keeps its letter); null when fewer than two ran. */
  comparison: ComparisonModel | null;
  /** A Slurm sweep whose jobs' states could not be asked (no squeue here, controller down): why. */
  jobsProblem?: string | null;
}

/** A results site built by File > Publish Site… (docs/site.md). */
export interface PublishedSite {
  /** The site folder, and its index page to open. */
  dir: string;
  index: string;
  runs: number;
  /** Runs listed with an error because their file could not be read. */
  unreadable: number;
  written: number;
  kept: number;
  removed: number;
}

export type MenuCommand =
  | 'open'
  | 'open-sweep'
  | 'compare-sessions'
  | 'publish-site'
  | 'save'
  | 'save-as'
  | 'export-markdown'
  | 'export-pdf'
  | 'export-html'
  | 'export-csv'
  | 'export-jsonl'
  | 'view-hardware'
  | 'view-server'
  | 'view-run'
  | 'view-results';

// ---------- the channel maps ----------

/** Invoke channels: argument schema (validated in main) and result type. */
export const invokeArgs = {
  'app:info': z.tuple([]),
  'hardware:detect': z.tuple([]),
  'hardware:remote': z.tuple([RemoteHostSchema]),
  'server:defaults': z.tuple([]),
  'server:preview': z.tuple([ServerFormSchema]),
  'server:start': z.tuple([ServerFormSchema]),
  'server:stop': z.tuple([]),
  'server:snapshot': z.tuple([]),
  'server:log': z.tuple([]),
  /** End the processes a crash left running: all of them, or only these pids (others are ignored). */
  'server:end-orphans': z.tuple([z.array(z.number().int().positive()).max(1000).optional()]),
  'server:leftovers': z.tuple([]),
  'run:plan': z.tuple([RunFormSchema]),
  'run:start': z.tuple([RunFormSchema]),
  'run:stop': z.tuple([]),
  'run:resume': z.tuple([optionalPath]),
  'run:snapshot': z.tuple([]),
  'run:reattach': z.tuple([]),
  'session:get': z.tuple([]),
  /** One cell's per-request samples (null when it has none, or there is no such cell). */
  'session:cell-requests': z.tuple([CellRefSchema]),
  'session:open': z.tuple([optionalPath]),
  'session:open-data': z.tuple([z.object({ name: z.string().max(1000), text: z.string() })]),
  'session:save': z.tuple([optionalPath]),
  'session:save-as': z.tuple([optionalPath]),
  'session:recent': z.tuple([]),
  /** The path may be null when a view follows it: JSON (the WebSocket bridge) turns an array's undefined into null. */
  'report:export': z.tuple([ExportFormatSchema, optionalPath.nullable(), ReportViewSchema.optional()]),
  /** The Server view's variants checked, with the plan of a sweep of them over this matrix. */
  'sweep:plan': z.tuple([ServerFormSchema, SweepAxesSchema, RunFormSchema]),
  /** A folder for a sweep, from the folder dialog. */
  'sweep:choose-dir': z.tuple([]),
  'sweep:start': z.tuple([SweepStartSchema]),
  'sweep:stop': z.tuple([]),
  /** Finish a stopped sweep: this folder (or the last one), with the API key when its command had one. */
  'sweep:resume': z.tuple([optionalPath, z.string().max(500).optional()]),
  'sweep:snapshot': z.tuple([]),
  /** A load run (the Run view's Load mode) against the ready server: the CLI's `load` on the same engine. */
  'load:start': z.tuple([LoadFormSchema]),
  'load:stop': z.tuple([]),
  'load:snapshot': z.tuple([]),
  /** A sweep folder (or its sweep.json) to compare; a folder dialog when absent. */
  'compare:open-sweep': z.tuple([optionalPath]),
  /** Two or more session files to compare, the first the baseline; a file dialog when absent. */
  'compare:open-sessions': z.tuple([z.array(z.string().min(1).max(4096)).min(2).max(26).optional()]),
  /** The open comparison, or null. */
  'compare:get': z.tuple([]),
  'compare:export': z.tuple([ComparisonFormatSchema, optionalPath]),
  /** Cancel the open Slurm sweep's jobs that wait or run (scancel); the page asks the person first. */
  'compare:cancel-jobs': z.tuple([]),
  /** Build a results site from the runs under a folder into a site folder; folder dialogs ask for those absent. */
  'site:publish': z.tuple([optionalPath, optionalPath]),
  'shell:open-external': z.tuple([z.string().url().max(2000)]),
  /** Text for the system clipboard, written by main (the page holds no clipboard permission). */
  'clipboard:write-text': z.tuple([z.string().max(100_000)]),
} as const;

export type InvokeChannel = keyof typeof invokeArgs;

export interface InvokeResults {
  'app:info': AppInfo;
  'hardware:detect': Hardware;
  'hardware:remote': RemoteHardware;
  'server:defaults': ServerForm;
  'server:preview': CommandPreview;
  'server:start': ServerSnapshot;
  'server:stop': ServerSnapshot;
  'server:snapshot': ServerSnapshot;
  'server:log': string[];
  /** What was ended. */
  'server:end-orphans': OrphanProcess[];
  /** Servers an earlier SpeedMatrix launched and was killed before stopping, still running: shown like a crash's leftovers. */
  'server:leftovers': OrphanProcess[];
  'run:plan': PlanView;
  'run:start': RunUpdate;
  'run:stop': RunUpdate;
  'run:resume': RunUpdate;
  'run:snapshot': RunUpdate;
  'run:reattach': RunUpdate;
  'session:get': SessionView;
  'session:cell-requests': CellSamples | null;
  'session:open': SessionMeta;
  'session:open-data': SessionMeta;
  'session:save': SessionMeta;
  'session:save-as': SessionMeta;
  'session:recent': string[];
  'report:export': { file: string };
  'sweep:plan': SweepPlanView;
  'sweep:choose-dir': string;
  'sweep:start': SweepView;
  'sweep:stop': SweepView;
  'sweep:resume': SweepView;
  'sweep:snapshot': SweepView;
  'load:start': LoadView;
  'load:stop': LoadView;
  'load:snapshot': LoadView;
  'compare:open-sweep': ComparisonView;
  'compare:open-sessions': ComparisonView;
  'compare:get': ComparisonView | null;
  'compare:export': { file: string };
  'compare:cancel-jobs': ComparisonView;
  'site:publish': PublishedSite;
  'shell:open-external': true;
  'clipboard:write-text': true;
}

export type InvokeArgs<C extends InvokeChannel> = z.input<(typeof invokeArgs)[C]>;
/** A channel's arguments after validation (defaults filled in): what its handler receives. */
export type InvokeParsedArgs<C extends InvokeChannel> = z.output<(typeof invokeArgs)[C]>;

/** Why an invoke failed, for the cases the page acts on rather than shows. */
export type InvokeErrorCode = 'cancelled';
/** {ok, data} or {ok, error}; `code` says "the person cancelled a dialog" without comparing text. */
export type Invoked<T> = { ok: true; data: T } | { ok: false; error: string; code?: InvokeErrorCode };
export type InvokeResult<C extends InvokeChannel> = Invoked<InvokeResults[C]>;

/** The core's side of the contract: one handler per channel, typed by that channel. */
export type InvokeHandlers = { [C in InvokeChannel]: (...args: InvokeParsedArgs<C>) => Promise<InvokeResults[C]> };

/** Main -> renderer event channels and their payloads. */
export interface EventPayloads {
  'server:state': ServerSnapshot;
  'server:log': string[];
  'server:orphans': ServerOrphans;
  'run:update': RunUpdate;
  'sweep:update': SweepView;
  'load:update': LoadView;
  telemetry: TelemetrySample[];
  'session:meta': SessionMeta;
  notice: Notice;
  menu: MenuCommand;
}
export type EventChannel = keyof EventPayloads;

/** Parse untrusted arguments for a channel; the error names the channel and the field. */
export function parseArgs<C extends InvokeChannel>(
  channel: C,
  args: unknown,
): Result<z.output<(typeof invokeArgs)[C]>> {
  const schema = invokeArgs[channel];
  if (!schema) return { ok: false, error: `Unknown channel ${String(channel)}.` };
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true, data: parsed.data as z.output<(typeof invokeArgs)[C]> };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    error: `Bad arguments for ${channel}: ${issue.path.join('.') || '(arguments)'}: ${issue.message}.`,
  };
}

/** The error text when the person closed a file dialog: nothing to report. */
export const CANCELLED = 'Cancelled.';

export type { CellStatus };
