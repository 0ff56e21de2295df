/**
 * Runs: plan, start, stop and resume through the benchmark engine. The engine saves each
 * cell to a working file as it finishes (for durability); the open session takes each
 * finished cell from the event stream, once, and the run update that follows carries it to
 * the page, which applies it once too, so Results shows the run as it fills in.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchEvent, type RunConfigInput, type RunHandle, type WorkerLauncher, planRun } from '../../engine/bench';
import { startOrchestratedRun } from '../../workflows/orchestrator/orchestrator';
import type { PlanView, RunUpdate } from '#shared/ipc/contract';
import type { RunForm } from '#shared/ipc/forms';
import type { GpuTelemetry } from '../../platform/hardware';
import type { Hardware } from '#shared/session/schema';
import type { ServerTarget } from '../../engine/server/target';
import type { CoreEvents } from './emitter';
import { RunUpdates, toPlanView } from './run-updates';
import type { SessionControl } from './session-control';
import { UserError, inFieldWords } from './user-error';
import { checkPrefixFits, promptShapeFrom } from '../../workflows/inputs/run-input';
import type { RemoteServing } from './server-control';
import { type RemoteRunHandle, remoteRunArgs, startRemoteRun } from './remote-runs';

interface RunDeps {
  events: CoreEvents;
  sessions: SessionControl;
  /** The ready server, or null. */
  target(): ServerTarget | null;
  /** The ready server on a remote host, or null: a run then happens there, next to it. */
  remoteServing?(): RemoteServing | null;
  hardware(): Promise<Hardware | undefined>;
  serverLogLines(): string[];
  /** Supervised servers restart after a crash; attach mode cannot. */
  restartServer?(message: string): Promise<ServerTarget | null>;
  launcher?: WorkerLauncher;
  /** The live GPU telemetry loop, recorded into the session when the server runs on this machine. */
  telemetry?(): GpuTelemetry | null;
  /** Folder for working session files of runs not yet saved by the person. */
  runsDir: string;
  updateIntervalMs?: number;
}

const NO_SERVER_NOTE = 'No server is ready, so capacity and maximum length are not checked yet: start a server first.';

const PROMPT_SHAPE_LABELS = { '--output-len': 'Output length', '--shared-prefix': 'Shared prefix' };

/** The form's prompt shapes, read by the CLI's own rules (docs/method.md, "Prompt shapes"), said with the form's labels. */
function promptShapeOfForm(form: RunForm, base: RunConfigInput): Partial<RunConfigInput> {
  return inFieldWords(PROMPT_SHAPE_LABELS, () => {
    const shape = promptShapeFrom({
      outputLen: form.outputLen?.trim() || undefined,
      sharedPrefix: form.sharedPrefix ? String(form.sharedPrefix) : undefined,
    });
    checkPrefixFits({ ...base, ...shape });
    return shape;
  });
}

export function toConfig(form: RunForm): RunConfigInput {
  const base = toBaseConfig(form);
  const shape = promptShapeOfForm(form, base);
  // A drawn output length replaces max output (its largest draw is the plan's).
  if (shape.outputLength) delete base.maxOutputTokens;
  return { ...base, ...shape };
}

function toBaseConfig(form: RunForm): RunConfigInput {
  return {
    contexts: form.contexts,
    concurrency: form.concurrency.length ? form.concurrency : undefined,
    prefillContexts: form.prefillContexts.length ? form.prefillContexts : undefined,
    secondsPerMeasurement: form.secondsPerMeasurement,
    maxOutputTokens: form.maxOutputTokens,
    tokenTargeting: form.tokenTargeting,
    repeat: form.repeat,
    ...(form.precisionPercent
      ? {
          precision: form.precisionPercent / 100,
          ...(form.minSecondsPerMeasurement
            ? { minSecondsPerMeasurement: Math.min(form.minSecondsPerMeasurement, form.secondsPerMeasurement) }
            : {}),
        }
      : {}),
  };
}

export class RunControl {
  private handle: RunHandle | null = null;
  /** A run on a remote host, from its start until it ended and its session is here. */
  private remote: RemoteRunHandle | null = null;
  /** The last run on a remote host, with its server there and its working file here: Resume continues it there. */
  private lastRemote: { handle: RemoteRunHandle; server: ServerTarget; file: string } | null = null;
  private workingFile: string | null = null;
  /** Why the page's own runs wait (a sweep runs), or null. */
  private heldBy: string | null = null;
  /** Stops what holds the runs (a sweep, a load run): what Stop (and quitting the app) does while it runs. */
  private stopHeld: (() => Promise<void>) | null = null;
  /** The run going or last run (RunUpdate.run). */
  private run = 0;
  private readonly updates: RunUpdates;

  constructor(private readonly deps: RunDeps) {
    this.updates = new RunUpdates((u) => deps.events.emit('run:update', u), deps.updateIntervalMs ?? 100);
  }

  running(): boolean {
    return this.handle !== null || this.heldBy !== null || this.remote !== null;
  }

  /**
   * A sweep's variant runs are shown as this run's are (live matrix, progress, the open session),
   * and no run of the page's own starts meanwhile. Returns where the sweep sends a variant's events.
   */
  followSweep(
    reason: string,
    stop: () => Promise<void>,
  ): { begin(): void; event(e: BenchEvent): void; noRun(): void; end(): void } {
    const release = this.hold(reason, stop);
    return {
      // Each variant is a run of its own: its session arrives with its first events.
      begin: () => {
        this.run = this.updates.begin('starting');
        this.workingFile = null;
      },
      event: (e) => this.onEvent(e),
      // A variant whose server never became ready measured nothing: no run, not one left starting.
      noRun: () => this.updates.begin('idle'),
      end: release,
    };
  }

  /**
   * Something else measures through the server (a sweep, a load run): the page's own runs wait,
   * no other session opens, and Stop stops it. Returns the release.
   */
  hold(reason: string, stop: () => Promise<void>): () => void {
    this.heldBy = reason;
    this.stopHeld = stop;
    return () => {
      this.heldBy = null;
      this.stopHeld = null;
    };
  }

  snapshot(): RunUpdate {
    return this.updates.snapshot();
  }

  plan(form: RunForm): PlanView {
    const target = this.deps.target();
    if (!target) {
      return toPlanView(
        planRun(toConfig(form), {
          maxModelLen: null,
          kvBudget: { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null },
        }),
        [NO_SERVER_NOTE],
      );
    }
    return toPlanView(planRun(toConfig(form), target));
  }

  async start(form: RunForm): Promise<RunUpdate> {
    const target = this.requireIdleAndServer();
    await mkdir(this.deps.runsDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = join(this.deps.runsDir, `run-${stamp}.speedmatrix.json`);
    const remote = this.deps.remoteServing?.();
    if (remote) return this.launchRemote(remote, form, file);
    return this.launch(target, toConfig(form), file, false);
  }

  /** The run on the server's remote host (remote-runs.ts): its lines feed the same events as a run here. */
  private async launchRemote(serving: RemoteServing, form: RunForm, file: string): Promise<RunUpdate> {
    const ready = serving.ready!;
    this.run = this.updates.begin('starting');
    this.workingFile = file;
    const host = serving.ssh.host;
    this.updates.setRemote({ host, lostLink: null });
    try {
      const handle = await startRemoteRun({
        ssh: serving.ssh,
        launch: remoteRunArgs(form, { ready, simSpeed: serving.simSpeed }),
        server: ready.launch,
        apiKey: serving.apiKey,
        workingFile: file,
        hooks: {
          onEvent: (e) => this.onEvent(e),
          onLink: (lost) => this.updates.setRemote({ host, lostLink: lost }),
          onFail: (message) => this.updates.fail(message),
        },
      });
      this.remote = handle;
      this.lastRemote = { handle, server: ready, file };
      this.untilEnded(handle);
    } catch (e) {
      this.updates.fail((e as Error).message);
    }
    return this.updates.snapshot();
  }

  /** Forgets the remote run once it ended here (not when only its link was lost: it can be reattached). */
  private untilEnded(handle: RemoteRunHandle): void {
    void handle.followed.then((how) => {
      if (how === 'ended' && this.remote === handle) this.remote = null;
    });
  }

  /** Follow the remote run again after its link was lost; it went on there meanwhile. */
  async reattach(): Promise<RunUpdate> {
    const r = this.remote;
    if (!r) throw new UserError('There is no run on a remote host to reattach to.');
    r.reattach();
    this.untilEnded(r);
    return this.updates.snapshot();
  }

  async resume(file?: string): Promise<RunUpdate> {
    const target = this.requireIdleAndServer();
    const from = file ?? this.deps.sessions.meta().file ?? this.workingFile;
    if (this.deps.remoteServing?.()) return this.resumeRemote(target, from);
    if (!from) throw new UserError('There is no saved session to resume: open the session file of the run first.');
    return this.launch(target, {}, from, true);
  }

  /** The last run on the remote host, stopped there, continues there from its journal, against the same server. */
  private async resumeRemote(target: ServerTarget, from: string | null): Promise<RunUpdate> {
    const last = this.lastRemote;
    if (!last || last.file !== from || last.server !== target)
      throw new UserError(
        'The server runs on a remote host: Resume continues only the last run there, against the same server. Stop the server to resume a session on this machine.',
      );
    this.run = this.updates.begin('starting');
    if (this.isOpen(last.file)) this.deps.sessions.adopt(this.run);
    this.remote = last.handle;
    this.updates.setRemote({ host: last.handle.host, lostLink: null });
    try {
      await last.handle.resume();
      this.untilEnded(last.handle);
    } catch (e) {
      this.remote = null;
      this.updates.fail((e as Error).message);
    }
    return this.updates.snapshot();
  }

  async stop(): Promise<RunUpdate> {
    if (this.stopHeld) await this.stopHeld();
    if (this.remote) {
      await this.remote.stop();
      return this.updates.snapshot();
    }
    const h = this.handle;
    if (!h) return this.updates.snapshot();
    await h.stop();
    return this.updates.snapshot();
  }

  private requireIdleAndServer(): ServerTarget {
    if (this.heldBy) throw new UserError(this.heldBy);
    if (this.handle || this.remote) throw new UserError('A run is already going: stop it first.');
    const target = this.deps.target();
    if (!target) throw new UserError('No server is ready: start one (or attach to one) in the Server view first.');
    return target;
  }

  private async launch(
    target: ServerTarget,
    config: RunConfigInput,
    file: string,
    resume: boolean,
  ): Promise<RunUpdate> {
    this.run = this.updates.begin('starting');
    // A resume continues the open session when it is that file: its cells stay in view from the start.
    if (resume && this.isOpen(file)) this.deps.sessions.adopt(this.run);
    this.workingFile = file;
    // The orchestrator decides whose hardware the session records and whether this machine's GPU is sampled.
    const { handle, notes } = await startOrchestratedRun({
      server: { target, restart: this.deps.restartServer, logLines: this.deps.serverLogLines },
      config,
      sessionFile: file,
      resume,
      hardware: { detectLocal: () => this.deps.hardware() },
      localTelemetry: this.deps.telemetry,
      launcher: this.deps.launcher,
      onEvent: (e) => this.onEvent(e),
    });
    this.handle = handle;
    this.updates.addNotes(notes);
    handle.done
      .catch((e: unknown) => this.updates.fail((e as Error).message))
      .finally(() => {
        if (this.handle === handle) this.handle = null;
      });
    return this.updates.snapshot();
  }

  private onEvent(e: BenchEvent): void {
    const sessions = this.deps.sessions;
    // The session owner applies a finished cell first; the update that follows carries it with the revision it made.
    let revision: number | null = null;
    if (e.type === 'session')
      sessions.set(e.session, { file: this.userFileFor(this.workingFile), dirty: true, run: this.run });
    else if (e.type === 'cell-done') revision = sessions.applyCell(e.cell);
    else if (e.type === 'prefill-done') revision = sessions.applyPrefill(e.result);
    else if (e.type === 'saved') this.workingFile = e.file;
    else if (e.type === 'run-done') {
      // The final session, exactly as saved; the person still has to Save it somewhere.
      this.workingFile = e.sessionFile ?? this.workingFile;
      sessions.set(e.session, {
        file: this.userFileFor(e.sessionFile),
        dirty: this.userFileFor(e.sessionFile) === null,
        run: this.run,
      });
    }
    this.updates.push(e, revision);
  }

  /** Whether `file` is what the open session was read from or, unsaved, the working file of its run. */
  private isOpen(file: string): boolean {
    const meta = this.deps.sessions.meta();
    return meta.file === file || (meta.file === null && meta.run !== null && file === this.workingFile);
  }

  /** A resumed user file stays the user's file; a working file in runsDir is not "saved". */
  private userFileFor(file: string | null): string | null {
    return file && !file.startsWith(this.deps.runsDir) ? file : null;
  }

  async dispose(): Promise<void> {
    if (this.handle) await this.handle.stop().catch(() => undefined);
    // Quitting stops a run on a remote host too (it saves there), as it stops one here: its server is stopped next.
    if (this.remote) await this.remote.stop().catch(() => undefined);
    this.updates.dispose();
  }
}
