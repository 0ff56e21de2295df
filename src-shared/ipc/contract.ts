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
import type { ServerState } from '../server-state';
import type { ProgressUnit, RunPhase } from '../run-progress';
import type { SweepPlanFigures } from '../sweep/plan-words';
import {
  CellRefSchema,
  ComparisonFormatSchema,
  ExportFormatSchema,
  LoadFormSchema,
  RemoteHostSchema,
  ReportViewSchema,
  RunFormSchema,
  ServerFormSchema,
  SweepAxesSchema,
  SweepStartSchema,
  optionalPath,
  type ServerForm,
} from './forms';

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

/** A trace file picked for replay: where it is, its name, how many requests over how long (seconds, at speed 1). */
export interface TraceChoice {
  file: string;
  name: string;
  requests: number;
  spanSeconds: number;
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
  /** A trace file to replay, from the file dialog: read and checked at once. */
  'load:choose-trace': z.tuple([]),
  /** A sweep folder (or its sweep.json) to compare; a folder dialog when absent. */
  'compare:open-sweep': z.tuple([optionalPath]),
  /** Two or more session files to compare, the first the baseline; a file dialog when absent. */
  'compare:open-sessions': z.tuple([z.array(z.string().min(1).max(4096)).min(2).max(26).optional()]),
  /** The open comparison, or null. */
  'compare:get': z.tuple([]),
  /** The view carries the GPU price the person gave, for the overlay's per-price lines (null path: the dialog). */
  'compare:export': z.tuple([ComparisonFormatSchema, optionalPath.nullable(), ReportViewSchema.optional()]),
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
  'load:choose-trace': TraceChoice;
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
