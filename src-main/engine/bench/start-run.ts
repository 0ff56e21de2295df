/**
 * The parent side of a run: builds (or resumes) the session, starts the worker process,
 * forwards its events, and saves everything measured the moment it arrives: each finished
 * cell goes to the journal at once and the session file is rewritten atomically. When the
 * disk refuses, results stay in memory and go to a fallback file in the OS temp folder.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { APP_NAME, APP_VERSION } from '../../platform/runtime/app-version';
import {
  appendTelemetrySeries,
  type GpuTelemetry,
  summarizeCellTelemetry,
  toTelemetrySeries,
} from '../../platform/hardware/telemetry';
import { countByStatus } from '../../platform/session/summary';
import { createSession } from '../../platform/session/create';
import { Journal, journalPathFor, recoverFromJournal } from '../../platform/session/journal';
import { readSessionFile } from '../../platform/session/read';
import type { DecodeCell, Hardware, PrefillResult, Session, SessionEvent } from '#shared/session/schema';
import { isDoneForResume } from '#shared/session/status-words';
import { writeSessionFile } from '../../platform/session/write';
import { type ServerTarget, sessionServerOf } from '../server/target';
import { unmeasuredCell, unmeasuredPrefill } from './cells';
import { cellKey } from '#shared/cell-key';
import { type PlanTarget, pendingSteps, planRun } from './plan';
import { doneMeasurements, foldRepetition, repetitionKey } from './repetitions';
import type { BenchEvent, RunConfigInput, RunOutcome, RunPlan } from './types';
import type { WorkerMessage } from './worker-protocol';
import { forkLauncher, type WorkerLauncher } from './worker-transport';
import { hasExtension } from '../../platform/runtime/text';

export interface StartRunOptions {
  /** The server to measure (from probeServer in attach mode, or the supervisor's 'ready'). */
  target: ServerTarget;
  config: RunConfigInput;
  /** Where the session is saved (a journal `<file>.journal` sits beside it during the run). */
  sessionFile: string;
  /** The machine's hardware block for the session (detectHardware()). */
  hardware?: Hardware;
  /** How to start the worker process; default a plain Node child process. */
  launcher?: WorkerLauncher;
  onEvent: (e: BenchEvent) => void;
  /** Continue the session in `sessionFile` (plus its journal): same plan, only cells not done. */
  resume?: boolean;
  /**
   * Called when the server dies mid-run. A supervisor restarts it and resolves with the new
   * target (the run then continues); resolve null when it cannot (remaining cells get Error).
   */
  onServerCrash?: (message: string) => Promise<ServerTarget | null>;
  /** Server log lines to keep in the session at the end (supervised runs). */
  serverLogLines?: () => string[];
  /**
   * GPU telemetry running during the run (started by the caller): each cell gets its window's
   * averages, the session the whole series. Left out for simulated servers.
   */
  telemetry?: GpuTelemetry;
  /** Extra fields for a new session (e.g. simulated labels). */
  sessionExtras?: { events?: SessionEvent[] };
}

export interface RunHandle {
  /** Cancel in-flight requests, mark the current cell Cancelled, save. Resolves when saved. */
  stop(): Promise<void>;
  /** Resolves with the final session once the run has ended and been saved. */
  done: Promise<Session>;
  /** The plan being run (on resume: the session's plan, once loaded). */
  readonly plan: RunPlan;
  /** Where the session ends up (changes to a fallback path when the disk refuses). */
  sessionFile(): string;
  outcome(): RunOutcome | null;
}

/** How many of the server's last log lines a cell keeps when the server dies during it. */
const CRASH_LOG_LINES = 20;
const now = () => new Date().toISOString();

/** Load a session to resume: the journal holds the newest state, the file the last full save. */
export async function loadForResume(
  sessionFile: string,
): Promise<{ ok: true; session: Session } | { ok: false; error: string }> {
  const fromJournal = recoverFromJournal(journalPathFor(sessionFile));
  if (fromJournal) return { ok: true, session: fromJournal };
  if (!existsSync(sessionFile)) return { ok: false, error: `Cannot resume: ${sessionFile} does not exist.` };
  const read = await readSessionFile(sessionFile);
  if (!read.ok) return { ok: false, error: `Cannot resume: ${read.error.message}` };
  return { ok: true, session: read.data };
}

/** The plan of a resumed session: its own configuration and KV budget, the cells it skipped. */
export function planForResume(session: Session, target: PlanTarget, input: RunConfigInput): RunPlan {
  const rc = session.runConfig;
  return planRun(
    {
      contexts: rc.contexts,
      concurrency: rc.concurrency,
      prefillContexts: rc.prefillContexts,
      secondsPerMeasurement: rc.secondsPerMeasurement,
      maxOutputTokens: rc.maxOutputTokens,
      tokenTargeting: rc.tokenTargeting,
      runTag: rc.runTag,
      skip: session.cells.filter((c) => c.status === 'skipped'),
      kvBudgetTokens:
        session.kvBudget.source === 'user' && session.kvBudget.tokens !== null ? session.kvBudget.tokens : undefined,
      simSpeed: input.simSpeed,
      warmup: input.warmup,
      stallSeconds: input.stallSeconds,
      scoutDeadline: input.scoutDeadline,
      repeat: rc.repeat,
      precision: rc.precision ?? undefined,
      minSecondsPerMeasurement: rc.minSecondsPerMeasurement,
      outputLength: rc.outputLength,
      sharedPrefixTokens: rc.sharedPrefixTokens,
    },
    { ...target, maxModelLen: session.server.maxModelLen ?? target.maxModelLen, kvBudget: session.kvBudget },
  );
}

/**
 * Whether a resumed session has nothing left to measure, judged from the session alone (its own
 * max_model_len and KV budget), so a finished run is said to be finished before a server starts.
 */
export function nothingLeftToResume(session: Session): boolean {
  const plan = planForResume(session, { maxModelLen: session.server.maxModelLen, kvBudget: session.kvBudget }, {});
  const doneCells = new Set(doneMeasurements(session.cells));
  const donePrefill = new Set(session.prefill.filter((p) => isDoneForResume(p.status)).map((p) => p.context));
  return !pendingSteps(plan.steps, doneCells, donePrefill).some((s) => s.kind === 'decode' || s.kind === 'prefill');
}

export function startRun(opts: StartRunOptions): RunHandle {
  return new BenchRun(opts);
}

type Channel = ReturnType<WorkerLauncher['launch']>;
type Finished = Extract<WorkerMessage, { type: 'finished' }>;

/**
 * One run: the session it fills, where it saves, and the worker measuring it. Each finished
 * cell goes to the journal at once and the session file is rewritten atomically.
 */
class BenchRun implements RunHandle {
  readonly done: Promise<Session>;
  private currentPlan: RunPlan;
  private file: string;
  private result: RunOutcome | null = null;
  private stopRequested = false;
  private channel: Channel | null = null;
  private readonly stopped: Promise<void>;
  private resolveStopped: () => void = () => undefined;
  private session!: Session;
  private cells = new Map<string, DecodeCell>();
  private prefill = new Map<number, PrefillResult>();
  private journal: Journal | null = null;
  private saving: Promise<unknown> = Promise.resolve();
  private currentCell: { context: number; concurrency: number; repetition: number } | null = null;
  /** The server's last log lines when it went down, for the cell that was running then. */
  private crashLog: string[] | null = null;
  private finished: Finished | null = null;
  private fatal: string | null = null;
  private stderrTail = '';

  constructor(private readonly opts: StartRunOptions) {
    this.file = opts.sessionFile;
    // Planned synchronously so the handle can show it; resume re-plans from the session.
    this.currentPlan = planRun(opts.config, opts.target);
    this.stopped = new Promise<void>((r) => (this.resolveStopped = r));
    this.done = this.run();
    this.done.catch(() => this.resolveStopped());
  }

  get plan(): RunPlan {
    return this.currentPlan;
  }

  sessionFile(): string {
    return this.file;
  }

  outcome(): RunOutcome | null {
    return this.result;
  }

  async stop(): Promise<void> {
    if (!this.stopRequested) {
      this.stopRequested = true;
      this.channel?.send({ type: 'stop' });
      // A worker that does not answer within 15 s is killed; its current cell becomes Cancelled.
      // The transport's own kill() (worker-transport.ts) signals through signalChild.
      // eslint-disable-next-line no-restricted-syntax
      const timer = setTimeout(() => this.channel?.kill(), 15_000);
      timer.unref();
      void this.stopped.finally(() => clearTimeout(timer));
    }
    await this.stopped;
  }

  private async run(): Promise<Session> {
    const { doneCells, donePrefill } = await this.open();
    const runnable = new Set(
      this.currentPlan.steps.flatMap((s) => (s.kind === 'decode' ? [repetitionKey(s, s.repetition)] : [])),
    );
    this.opts.onEvent({
      type: 'plan',
      plan: this.currentPlan,
      alreadyDone: doneCells.filter((k) => runnable.has(k)).length,
      doneCells,
      donePrefill,
    });
    this.sync();
    this.opts.onEvent({ type: 'session', session: structuredClone(this.session) });
    this.journal = new Journal(journalPathFor(this.file));
    // A new run starts a fresh journal; a resumed one keeps its journal, or starts one from the loaded session.
    if (!this.opts.resume) removeQuietly(this.journal);
    if (!existsSync(this.journal.path)) this.journalAppend({ kind: 'start', session: this.session });
    await this.save();
    await this.measure(doneCells, donePrefill);
    await this.saving;
    const outcome = this.conclude();
    this.result = outcome;
    this.sync();
    this.recordServerSide();
    // The journal is only needed until the full file is safely on disk.
    if ((await this.save()) && this.journal) removeQuietly(this.journal);
    this.resolveStopped();
    this.opts.onEvent({
      type: 'run-done',
      outcome,
      session: this.session,
      sessionFile: this.file,
      counts: countByStatus(this.session),
    });
    return this.session;
  }

  /** The session to fill: a new one, or the resumed one with the cells it already has. */
  private async open(): Promise<{ doneCells: string[]; donePrefill: number[] }> {
    let doneCells: string[] = [];
    let donePrefill: number[] = [];
    if (this.opts.resume) {
      const loaded = await loadForResume(this.opts.sessionFile);
      if (!loaded.ok) throw new Error(loaded.error);
      this.session = loaded.session;
      this.currentPlan = planForResume(this.session, this.opts.target, this.opts.config);
      doneCells = doneMeasurements(this.session.cells);
      donePrefill = this.session.prefill.filter((p) => isDoneForResume(p.status)).map((p) => p.context);
      const what = this.currentPlan.config.repeat > 1 ? 'measurements' : 'cells';
      this.session.events.push({
        at: now(),
        level: 'info',
        message: `Resumed: ${doneCells.length} ${what} already done.`,
      });
    } else {
      this.session = newSession(this.opts, this.currentPlan);
    }
    this.cells = new Map(this.session.cells.map((c) => [cellKey(c), c] as const));
    this.prefill = new Map(this.session.prefill.map((p) => [p.context, p] as const));
    return { doneCells, donePrefill };
  }

  private sync(): void {
    this.session.cells = orderCells(this.currentPlan, this.cells);
    this.session.prefill = [...this.prefill.values()].sort((a, b) => a.context - b.context);
  }

  private event(level: SessionEvent['level'], message: string): void {
    const ev = { at: now(), level, message };
    this.session.events.push(ev);
    this.journalAppend({ kind: 'event', event: ev });
  }

  private journalAppend(rec: Parameters<Journal['append']>[0]): void {
    if (!this.journal) return;
    try {
      this.journal.append(rec);
    } catch (e) {
      this.journal = null;
      this.opts.onEvent({
        type: 'log',
        level: 'warn',
        message: `Could not write the journal beside ${this.file}: ${(e as Error).message}. Results are kept in memory.`,
      });
    }
  }

  private queueSave(): void {
    this.saving = this.saving.then(() => this.save());
  }

  /** Saves the whole session atomically; true when it is on disk (maybe at the fallback path). */
  private async save(): Promise<boolean> {
    this.session.updatedAt = now();
    const res = await writeSessionFile(this.file, this.session);
    if (res.ok) {
      this.opts.onEvent({ type: 'saved', file: this.file });
      return true;
    }
    const name = basename(this.file);
    const fallback = join(tmpdir(), hasExtension(this.file, '.json') ? name : `${name}.speedmatrix.json`);
    if (fallback === this.file) {
      this.opts.onEvent({ type: 'error', message: `${res.error} Results are kept in memory.` });
      return false;
    }
    this.opts.onEvent({
      type: 'log',
      level: 'warn',
      message: `${res.error} Saving to ${fallback} instead; nothing measured is lost.`,
    });
    this.file = fallback;
    this.journal = new Journal(journalPathFor(this.file));
    const again = await writeSessionFile(this.file, this.session);
    if (again.ok) {
      this.journalAppend({ kind: 'start', session: this.session });
      this.opts.onEvent({ type: 'saved', file: this.file });
      return true;
    }
    this.opts.onEvent({ type: 'error', message: `${again.error} Results are kept in memory only.` });
    return false;
  }

  /** Runs the worker to its end. */
  private measure(doneCells: string[], donePrefill: number[]): Promise<void> {
    const launcher = this.opts.launcher ?? forkLauncher;
    return new Promise<void>((resolveExit) => {
      const ch = launcher.launch();
      this.channel = ch;
      ch.onStderr?.((t) => {
        this.stderrTail = (this.stderrTail + t).slice(-2000);
      });
      ch.onExit(() => {
        this.channel = null;
        resolveExit();
      });
      ch.onMessage((msg) => this.onWorkerMessage(ch, msg));
      ch.send({ type: 'start', target: this.opts.target, plan: this.currentPlan, doneCells, donePrefill });
      if (this.stopRequested) ch.send({ type: 'stop' });
    });
  }

  private onWorkerMessage(ch: Channel, msg: WorkerMessage): void {
    if (msg.type === 'event') this.onBenchEvent(msg.event);
    else if (msg.type === 'server-down') this.onServerDown(ch, msg.message);
    else if (msg.type === 'finished') this.finished = msg;
    else if (msg.type === 'fatal') this.fatal = msg.message;
  }

  private onBenchEvent(e: BenchEvent): void {
    if (e.type === 'cell-start')
      this.currentCell = { context: e.context, concurrency: e.concurrency, repetition: e.repetition ?? 1 };
    if (e.type === 'cell-done') {
      this.currentCell = null;
      // The cell the server died in keeps the server's last log lines as evidence.
      if (this.crashLog && e.cell.status === 'error') {
        e.cell.evidence = {
          loopExcerpt: null,
          loopPeriodChars: null,
          loopStream: null,
          ...e.cell.evidence,
          logLines: this.crashLog,
        };
        this.crashLog = null;
      }
      const samples = this.opts.telemetry?.samples ?? [];
      const w = e.window;
      if (w && samples.some((s) => s.t >= w.startMs && s.t <= w.endMs))
        e.cell.telemetry = summarizeCellTelemetry(samples, w.startMs, w.endMs, e.cell.outputTokens ?? 0);
      // A later repetition folds into the cell; listeners get the folded cell, as the session holds it.
      const key = cellKey(e.cell);
      const cell = foldRepetition(this.cells.get(key), e.cell, e.repetition ?? 1, this.currentPlan.config.repeat);
      this.cells.set(key, cell);
      this.sync();
      this.journalAppend({ kind: 'cell', cell });
      this.queueSave();
      this.opts.onEvent({ ...e, cell });
      return;
    } else if (e.type === 'prefill-done') {
      this.prefill.set(e.result.context, e.result);
      this.sync();
      this.journalAppend({ kind: 'prefill', result: e.result });
      this.queueSave();
    } else if (e.type === 'log' && e.level !== 'info') this.event(e.level, e.message);
    else if (e.type === 'error') this.event('error', e.message);
    this.opts.onEvent(e);
  }

  private onServerDown(ch: Channel, message: string): void {
    const tail = this.opts.serverLogLines?.().slice(-CRASH_LOG_LINES) ?? [];
    this.crashLog = tail.length ? tail : null;
    this.event('error', message);
    this.opts.onEvent({ type: 'server-down', message });
    const restart =
      this.opts.onServerCrash && !this.stopRequested ? this.opts.onServerCrash(message) : Promise.resolve(null);
    void restart
      .catch(() => null)
      .then((target) => {
        if (target) this.event('info', 'The server was restarted; the run continues.');
        ch.send({ type: 'server-restarted', target });
      });
  }

  /** The outcome, from the worker's last word (or its absence). */
  private conclude(): RunOutcome {
    const fin = this.finished;
    if (fin) {
      this.session.checksUnavailable = [...new Set([...this.session.checksUnavailable, ...fin.checksUnavailable])];
      for (const n of fin.notes) if (!this.session.events.some((e) => e.message === n)) this.event('info', n);
      if (fin.serverLost && !fin.cancelled) {
        const why = `The run stopped: the server went down and was not restarted. Every finished cell is saved; resume the run once the server is back.`;
        this.event('error', why);
        this.opts.onEvent({ type: 'error', message: why });
      }
      return fin.cancelled ? 'cancelled' : fin.serverLost ? 'failed' : 'completed';
    }
    // No last word: the worker was ended by the stop (after its grace time), or died.
    const why = this.stopRequested
      ? 'The run was stopped before this measurement finished.'
      : (this.fatal ??
        `the benchmark worker stopped unexpectedly${this.stderrTail ? `: ${this.stderrTail.trim().split('\n').slice(-3).join(' ')}` : ''}`);
    const cur = this.currentCell;
    if (cur) {
      const measured = unmeasuredCell(cur.context, cur.concurrency, this.stopRequested ? 'cancelled' : 'error', why);
      const cell = foldRepetition(
        this.cells.get(cellKey(measured)),
        measured,
        cur.repetition,
        this.currentPlan.config.repeat,
      );
      this.cells.set(cellKey(cell), cell);
      this.journalAppend({ kind: 'cell', cell });
    }
    this.event(this.stopRequested ? 'info' : 'error', why);
    if (!this.stopRequested) this.opts.onEvent({ type: 'error', message: why });
    return this.stopRequested ? 'cancelled' : 'failed';
  }

  /** What the server side gave during the run: GPU telemetry and the server's log. */
  private recordServerSide(): void {
    const t = this.opts.telemetry;
    if (t?.samples.length) {
      const series = toTelemetrySeries(t.samples, { originMs: Date.parse(this.session.createdAt) });
      this.session.telemetry = appendTelemetrySeries(this.session.telemetry, series);
    } else if (t?.unavailableReason) this.session.checksUnavailable.push(`GPU telemetry: ${t.unavailableReason}`);
    const logLines = this.opts.serverLogLines?.();
    if (logLines?.length) this.session.serverLog = { lines: logLines.slice(-2000), truncated: logLines.length > 2000 };
  }
}

/** A journal that cannot be removed is harmless: the session file next to it is newer and complete. */
function removeQuietly(journal: Journal): void {
  try {
    journal.remove();
  } catch {
    // left behind; recoverFromJournal would only replay what the file already holds
  }
}

function newSession(opts: StartRunOptions, plan: RunPlan): Session {
  const t = opts.target;
  const c = plan.config;
  const cells: DecodeCell[] = plan.cells
    .filter((p) => p.action !== 'run')
    .map((p) => unmeasuredCell(p.context, p.concurrency, p.action as DecodeCell['status'], p.reason));
  const prefill: PrefillResult[] = plan.prefill
    .filter((p) => p.action !== 'run')
    .map((p) => unmeasuredPrefill(p.context, p.action as PrefillResult['status'], p.reason));
  const events: SessionEvent[] = [...(opts.sessionExtras?.events ?? [])];
  if (c.simSpeed !== 1)
    events.push({
      at: now(),
      level: 'info',
      message: `Simulated server at --sim-speed ${c.simSpeed}: every time and rate is in simulated seconds, so figures read as at speed 1.`,
    });
  for (const w of plan.warnings) events.push({ at: now(), level: 'warn', message: w });
  return createSession({
    simulated: t.simulated,
    ...(opts.hardware ? { hardware: opts.hardware } : {}),
    engine: t.engine,
    server: sessionServerOf(t),
    runConfig: {
      contexts: c.contexts,
      concurrency: c.concurrency,
      prefillContexts: c.prefillContexts,
      secondsPerMeasurement: c.secondsPerMeasurement,
      maxOutputTokens: c.maxOutputTokens,
      decodeTestMode: 'fixed-duration',
      prefillMode: 'during-decode-warmup',
      tokenTargeting: c.tokenTargeting,
      benchmarkTool: `${APP_NAME} ${APP_VERSION}`,
      runTag: c.runTag,
      repeat: c.repeat,
      ...(c.precision !== null ? { precision: c.precision, minSecondsPerMeasurement: c.minSecondsPerMeasurement } : {}),
      ...(c.outputLength ? { outputLength: c.outputLength } : {}),
      ...(c.sharedPrefixTokens > 0 ? { sharedPrefixTokens: c.sharedPrefixTokens } : {}),
    },
    kvBudget: c.kvBudget,
    cells,
    prefill,
    events,
  });
}

/** Cells in plan order (row by row), any extra ones after. */
function orderCells(plan: RunPlan, cells: Map<string, DecodeCell>): DecodeCell[] {
  const out: DecodeCell[] = [];
  const seen = new Set<string>();
  for (const p of plan.cells) {
    const c = cells.get(cellKey(p));
    if (c) {
      out.push(c);
      seen.add(cellKey(p));
    }
  }
  for (const [k, c] of cells) if (!seen.has(k)) out.push(c);
  return out;
}
