/**
 * The parent side of a run: builds (or resumes) the session, starts the worker process,
 * forwards its events, and saves everything measured the moment it arrives: each finished
 * cell goes to the journal at once and the session file is rewritten atomically. When the
 * disk refuses, results stay in memory and go to a fallback file in the OS temp folder.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { APP_NAME, APP_VERSION } from '../runtime/app-version';
import { type GpuTelemetry, summarizeCellTelemetry, toTelemetrySeries } from '../hardware/telemetry';
import { countByStatus } from '../session/summary';
import { createSession } from '../session/create';
import { Journal, journalPathFor, recoverFromJournal } from '../session/journal';
import { readSessionFile } from '../session/read';
import type { DecodeCell, Hardware, PrefillResult, Session, SessionEvent } from '../../src-shared/session/schema';
import { writeSessionFile } from '../session/write';
import type { ServerTarget } from '../server/target';
import { unmeasuredCell, unmeasuredPrefill } from './cells';
import { cellKey } from '../../src-shared/cell-key';
import { planRun } from './plan';
import type { BenchEvent, RunConfigInput, RunOutcome, RunPlan } from './types';
import type { WorkerMessage } from './worker-protocol';
import { forkLauncher, type WorkerLauncher } from './worker-transport';
import { hasExtension } from '../runtime/text';

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
const DONE_STATUSES = new Set(['valid', 'queued', 'looped', 'error', 'over-capacity', 'too-long', 'skipped']);
const now = () => new Date().toISOString();

/** Load a session to resume: the journal holds the newest state, the file the last full save. */
export async function loadForResume(sessionFile: string): Promise<{ ok: true; session: Session } | { ok: false; error: string }> {
  const fromJournal = recoverFromJournal(journalPathFor(sessionFile));
  if (fromJournal) return { ok: true, session: fromJournal };
  if (!existsSync(sessionFile)) return { ok: false, error: `Cannot resume: ${sessionFile} does not exist.` };
  const read = await readSessionFile(sessionFile);
  if (!read.ok) return { ok: false, error: `Cannot resume: ${read.error.message}` };
  return { ok: true, session: read.data };
}

/** The plan of a resumed session: its own configuration and KV budget, the cells it skipped. */
export function planForResume(session: Session, target: ServerTarget, input: RunConfigInput): RunPlan {
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
      kvBudgetTokens: session.kvBudget.source === 'user' && session.kvBudget.tokens !== null ? session.kvBudget.tokens : undefined,
      simSpeed: input.simSpeed,
      warmup: input.warmup,
      stallSeconds: input.stallSeconds,
      scoutDeadline: input.scoutDeadline,
    },
    { ...target, maxModelLen: session.server.maxModelLen ?? target.maxModelLen, kvBudget: session.kvBudget },
  );
}

export function startRun(opts: StartRunOptions): RunHandle {
  const launcher = opts.launcher ?? forkLauncher;
  let sessionFile = opts.sessionFile;
  let outcome: RunOutcome | null = null;
  let stopRequested = false;
  let channel: ReturnType<WorkerLauncher['launch']> | null = null;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (resolveStopped = r));

  // Planned synchronously so the handle can show it; resume re-plans from the session below.
  let plan = planRun(opts.config, opts.target);

  const done = (async (): Promise<Session> => {
    let session: Session;
    let doneCells: string[] = [];
    let donePrefill: number[] = [];
    if (opts.resume) {
      const loaded = await loadForResume(opts.sessionFile);
      if (!loaded.ok) throw new Error(loaded.error);
      session = loaded.session;
      plan = planForResume(session, opts.target, opts.config);
      doneCells = session.cells.filter((c) => DONE_STATUSES.has(c.status)).map(cellKey);
      donePrefill = session.prefill.filter((p) => DONE_STATUSES.has(p.status)).map((p) => p.context);
      session.events.push({ at: now(), level: 'info', message: `Resumed: ${doneCells.length} cells already done.` });
    } else {
      session = newSession(opts, plan);
    }
    const runnable = new Set(plan.cells.filter((c) => c.action === 'run').map(cellKey));
    opts.onEvent({ type: 'plan', plan, alreadyDone: doneCells.filter((k) => runnable.has(k)).length, doneCells, donePrefill });
    const cells = new Map(session.cells.map((c) => [cellKey(c), c] as const));
    const prefill = new Map(session.prefill.map((p) => [p.context, p] as const));
    const sync = () => {
      session.cells = orderCells(plan, cells);
      session.prefill = [...prefill.values()].sort((a, b) => a.context - b.context);
    };
    sync();
    opts.onEvent({ type: 'session', session: structuredClone(session) });

    // Saving: journal first (append, cheap, survives a crash), then the atomic full file.
    let journal: Journal | null = new Journal(journalPathFor(sessionFile));
    const event = (level: SessionEvent['level'], message: string) => {
      const ev = { at: now(), level, message };
      session.events.push(ev);
      journalAppend({ kind: 'event', event: ev });
    };
    const journalAppend = (rec: Parameters<Journal['append']>[0]) => {
      if (!journal) return;
      try {
        journal.append(rec);
      } catch (e) {
        journal = null;
        opts.onEvent({ type: 'log', level: 'warn', message: `Could not write the journal beside ${sessionFile}: ${(e as Error).message}. Results are kept in memory.` });
      }
    };
    /** Saves the whole session atomically; true when it is on disk (maybe at the fallback path). */
    const save = async (): Promise<boolean> => {
      session.updatedAt = now();
      const res = await writeSessionFile(sessionFile, session);
      if (res.ok) {
        opts.onEvent({ type: 'saved', file: sessionFile });
        return true;
      }
      const fallback = join(tmpdir(), hasExtension(sessionFile, '.json') ? basename(sessionFile) : `${basename(sessionFile)}.speedmatrix.json`);
      if (fallback === sessionFile) {
        opts.onEvent({ type: 'error', message: `${res.error} Results are kept in memory.` });
        return false;
      }
      opts.onEvent({ type: 'log', level: 'warn', message: `${res.error} Saving to ${fallback} instead; nothing measured is lost.` });
      sessionFile = fallback;
      journal = new Journal(journalPathFor(sessionFile));
      const again = await writeSessionFile(sessionFile, session);
      if (again.ok) {
        journalAppend({ kind: 'start', session });
        opts.onEvent({ type: 'saved', file: sessionFile });
        return true;
      }
      opts.onEvent({ type: 'error', message: `${again.error} Results are kept in memory only.` });
      return false;
    };

    // A new run starts a fresh journal; a resumed one keeps its journal, or starts one from the loaded session.
    if (!opts.resume) removeQuietly(journal as Journal);
    if (!existsSync((journal as Journal).path)) journalAppend({ kind: 'start', session });
    await save();
    let saving: Promise<unknown> = Promise.resolve();
    const queueSave = () => {
      saving = saving.then(save);
    };

    let currentCell: { context: number; concurrency: number } | null = null;
    /** The server's last log lines when it went down, for the cell that was running then. */
    let crashLog: string[] | null = null;
    let finished: Extract<WorkerMessage, { type: 'finished' }> | null = null;
    let fatal: string | null = null;
    let stderrTail = '';

    const exited = new Promise<void>((resolveExit) => {
      const ch = launcher.launch();
      channel = ch;
      ch.onStderr?.((t) => {
        stderrTail = (stderrTail + t).slice(-2000);
      });
      ch.onExit(() => resolveExit());
      ch.onMessage((msg) => {
        if (msg.type === 'event') {
          const e = msg.event;
          if (e.type === 'cell-start') currentCell = { context: e.context, concurrency: e.concurrency };
          if (e.type === 'cell-done') {
            currentCell = null;
            // The cell the server died in keeps the server's last log lines as evidence.
            if (crashLog && e.cell.status === 'error') {
              e.cell.evidence = { loopExcerpt: null, loopPeriodChars: null, loopStream: null, ...e.cell.evidence, logLines: crashLog };
              crashLog = null;
            }
            const samples = opts.telemetry?.samples ?? [];
            if (e.window && samples.some((s) => s.t >= (e.window as { startMs: number }).startMs && s.t <= (e.window as { endMs: number }).endMs))
              e.cell.telemetry = summarizeCellTelemetry(samples, e.window.startMs, e.window.endMs, e.cell.outputTokens ?? 0);
            cells.set(cellKey(e.cell), e.cell);
            sync();
            journalAppend({ kind: 'cell', cell: e.cell });
            queueSave();
          } else if (e.type === 'prefill-done') {
            prefill.set(e.result.context, e.result);
            sync();
            journalAppend({ kind: 'prefill', result: e.result });
            queueSave();
          } else if (e.type === 'log' && e.level !== 'info') event(e.level, e.message);
          else if (e.type === 'error') event('error', e.message);
          opts.onEvent(e);
        } else if (msg.type === 'server-down') {
          const tail = opts.serverLogLines?.().slice(-CRASH_LOG_LINES) ?? [];
          crashLog = tail.length ? tail : null;
          event('error', msg.message);
          opts.onEvent({ type: 'server-down', message: msg.message });
          const restart = opts.onServerCrash && !stopRequested ? opts.onServerCrash(msg.message) : Promise.resolve(null);
          restart
            .catch(() => null)
            .then((target) => {
              if (target) event('info', 'The server was restarted; the run continues.');
              ch.send({ type: 'server-restarted', target });
            });
        } else if (msg.type === 'finished') {
          finished = msg;
        } else if (msg.type === 'fatal') {
          fatal = msg.message;
        }
      });
      ch.send({ type: 'start', target: opts.target, plan, doneCells, donePrefill });
      if (stopRequested) ch.send({ type: 'stop' });
    });
    await exited;
    channel = null;
    await saving;

    const fin = finished as Extract<WorkerMessage, { type: 'finished' }> | null;
    if (fin) {
      session.checksUnavailable = [...new Set([...session.checksUnavailable, ...fin.checksUnavailable])];
      for (const n of fin.notes) if (!session.events.some((e) => e.message === n)) event('info', n);
      outcome = fin.cancelled ? 'cancelled' : fin.serverLost ? 'failed' : 'completed';
      if (fin.serverLost && !fin.cancelled) {
        const why = `The run stopped: the server went down and was not restarted. Every finished cell is saved; resume the run once the server is back.`;
        event('error', why);
        opts.onEvent({ type: 'error', message: why });
      }
    } else {
      const why = fatal ?? `the benchmark worker stopped unexpectedly${stderrTail ? `: ${stderrTail.trim().split('\n').slice(-3).join(' ')}` : ''}`;
      const cur = currentCell as { context: number; concurrency: number } | null;
      if (cur) {
        const cell = unmeasuredCell(cur.context, cur.concurrency, stopRequested ? 'cancelled' : 'error', why);
        cells.set(cellKey(cell), cell);
        journalAppend({ kind: 'cell', cell });
      }
      event('error', why);
      opts.onEvent({ type: 'error', message: why });
      outcome = stopRequested ? 'cancelled' : 'failed';
    }
    sync();
    if (opts.telemetry?.samples.length) session.telemetry = toTelemetrySeries(opts.telemetry.samples, { originMs: Date.parse(session.createdAt) });
    else if (opts.telemetry?.unavailableReason) session.checksUnavailable.push(`GPU telemetry: ${opts.telemetry.unavailableReason}`);
    const logLines = opts.serverLogLines?.();
    if (logLines?.length) session.serverLog = { lines: logLines.slice(-2000), truncated: logLines.length > 2000 };
    // The journal is only needed until the full file is safely on disk.
    if ((await save()) && journal) removeQuietly(journal as Journal);
    resolveStopped();
    opts.onEvent({ type: 'run-done', outcome, session, sessionFile, counts: countByStatus(session) });
    return session;
  })();
  done.catch(() => resolveStopped());

  return {
    get plan() {
      return plan;
    },
    done,
    sessionFile: () => sessionFile,
    outcome: () => outcome,
    stop: async () => {
      if (!stopRequested) {
        stopRequested = true;
        const ch = channel as ReturnType<WorkerLauncher['launch']> | null;
        ch?.send({ type: 'stop' });
        // A worker that does not answer within 15 s is killed; its current cell becomes Cancelled.
        const timer = setTimeout(() => (channel as ReturnType<WorkerLauncher['launch']> | null)?.kill(), 15_000);
        timer.unref();
        stopped.finally(() => clearTimeout(timer));
      }
      await stopped;
    },
  };
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
  const prefill: PrefillResult[] = plan.prefill.filter((p) => p.action !== 'run').map((p) => unmeasuredPrefill(p.context, p.action as PrefillResult["status"], p.reason));
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
    server: { ...t.launch, url: t.launch.url ?? t.baseUrl, servedModel: t.launch.servedModel ?? t.model, maxModelLen: t.launch.maxModelLen ?? t.maxModelLen },
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
