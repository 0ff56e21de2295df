/**
 * The server supervisor: starts an inference server from launch options, watches its log and
 * readiness, and stops it so that nothing is left holding the GPU. A small state machine
 * (TRANSITIONS in supervisor-types.ts) that emits events; the UI and CLI render its state, they never guess it.
 * Processes are listed, stopped and ended through ProcessControl, so the same code serves
 * POSIX process groups and Windows process trees.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { fail, ok, type Result } from '#shared/result';
import { redactText } from '#shared/session/secrets';
import {
  noCommand,
  portBusy,
  readyTimeout,
  recognizeStartupFailure,
  spawnFailure,
  stoppedBeforeReady,
  type StartupFailure,
} from './failures';
import { buildLaunch, connectHost, LAUNCH_DEFAULTS, type BuiltLaunch, type LaunchOptions } from './launch';
import { applyLogLine, emptyLogFacts, stripAnsi, type LogFacts } from './log-parse';
import { batchFileMessage, resolveCommand } from '../../platform/processes/command-lookup';
import {
  endLeftovers,
  findLeftovers,
  processTree,
  removeLeftContainer,
  type LeftoverCheck,
  type LeftoverProcess,
} from './orphans';
import { isPortFree } from './port';
import { CrashLeftovers } from './crash-leftovers';
import { StartPhaseClock } from './start-phases';
import { probeLaunched } from './ready-probe';
import { processControl, type ProcessControl } from '../../platform/processes/process-control';
import type { ServerTarget } from './target';
import type { NodeChild, NodeSpawner } from '../../platform/runtime/node-spawner';
import { stopSummary } from './stop-summary';
import {
  TRANSITIONS,
  type StopReport,
  type SupervisorConfig,
  type SupervisorEvents,
  type SupervisorState,
} from './supervisor-types';

const POLL_MS = 500;
/** Consecutive failed probes of a healthy server before giving up (about 10 s). */
const PROBE_ATTEMPTS = 20;

/** Supervises one server at a time. */
export class Supervisor extends EventEmitter<SupervisorEvents> {
  private _state: SupervisorState = 'idle';
  private child: NodeChild | null = null;
  /**
   * Whether the server leads a process group (POSIX, spawned detached) that is signalled as one.
   * A program started through the host's NodeSpawner (the app's utility process) does not.
   */
  private ownGroup = true;
  private opts: LaunchOptions | null = null;
  private cfg: SupervisorConfig = {};
  private built: BuiltLaunch | null = null;
  private ring: string[] = [];
  private facts: LogFacts = emptyLogFacts();
  private startClock = new StartPhaseClock();
  private logStream: WriteStream | null = null;
  private timers: NodeJS.Timeout[] = [];
  private startedAt = 0;
  private settleStart: ((r: Result<ServerTarget, StartupFailure>) => void) | null = null;
  private exitWaiters: Array<() => void> = [];
  private exitInfo: { exitCode: number | null; signal: string | null } | null = null;
  private readonly leftovers = new CrashLeftovers(
    () => this.leftoverOpts,
    (line) => this.onLine(line),
  );
  private stopping: Promise<StopReport> | null = null;
  private target: ServerTarget | null = null;
  private readonly killOnExit = () => {
    if (!this.child || this.exitInfo) return;
    if (!this.ownGroup) askProgramToStop(this.child);
    else if (this.child.pid) this.control.killGroupSync(this.child.pid);
  };

  /**
   * `spawnNode`: how the host starts SpeedMatrix's own Node programs (the simulator). Without it
   * they are spawned as commands, which only plain Node can run (node-spawner.ts).
   */
  constructor(private readonly deps: { spawnNode?: NodeSpawner } = {}) {
    super();
  }

  private get control(): ProcessControl {
    return this.cfg.control ?? processControl();
  }

  private get leftoverOpts() {
    return { nvidiaSmi: this.cfg.nvidiaSmi, control: this.control };
  }

  get state(): SupervisorState {
    return this._state;
  }

  /** The ready server, once ready. */
  get readyTarget(): ServerTarget | null {
    return this.target;
  }

  /** What the log has said so far (version, KV line, last stats line...). */
  get logFacts(): LogFacts {
    return this.facts;
  }

  /** The launch as built (argv/env/display), once started. */
  get launch(): BuiltLaunch | null {
    return this.built;
  }

  /**
   * Process id of the server's leader, also its process group id. Null for a program the host's
   * NodeSpawner started (the app's simulator): it leads no group, and ends with the app.
   */
  get pid(): number | null {
    return this.ownGroup ? (this.child?.pid ?? null) : null;
  }

  /** Processes a crashed leader left running that are not ended yet (orphanPolicy 'report'). */
  get orphansLeftRunning(): LeftoverProcess[] {
    return [...this.leftovers.live];
  }

  /** The last n log lines (ANSI stripped, API key redacted). */
  logTail(n = 50): string[] {
    return this.ring.slice(-n);
  }

  private setState(s: SupervisorState): void {
    if (this._state === s) return;
    if (!TRANSITIONS[this._state].includes(s)) throw new Error(`supervisor: no transition from ${this._state} to ${s}`);
    this._state = s;
    this.emit('state', s);
  }

  /**
   * Launch and wait until ready. Resolves with the ready target, or with a StartupFailure a
   * person can act on (the same object the 'failed' event carries).
   */
  async start(opts: LaunchOptions, cfg: SupervisorConfig = {}): Promise<Result<ServerTarget, StartupFailure>> {
    if (this._state === 'starting' || this._state === 'ready' || this._state === 'stopping') {
      throw new Error(`the supervisor is ${this._state}; stop it before starting another server`);
    }
    this.reset(opts, cfg);
    this.setState('starting');
    const settled = new Promise<Result<ServerTarget, StartupFailure>>((resolve) => (this.settleStart = resolve));

    let built: BuiltLaunch;
    try {
      built = buildLaunch(opts);
    } catch (e) {
      this.failStart(noCommand((e as Error).message));
      return settled;
    }
    this.built = built;
    if (!(await isPortFree(opts.host, opts.port))) {
      this.failStart(portBusy(opts.host, opts.port));
      return settled;
    }
    // Stopped while the port was being checked: start nothing.
    if (this.state !== 'starting') return settled;
    if (cfg.logFile) this.openLogFile(cfg.logFile);
    if (!this.spawnServer(built)) {
      this.logStream?.end();
      this.logStream = null;
      return settled;
    }
    this.startedAt = Date.now();
    this.emitProgress();
    this.every(1000, () => this.emitProgress());
    this.timers.push(setTimeout(() => void this.onDeadline(), cfg.readyTimeoutMs ?? LAUNCH_DEFAULTS.readyTimeoutMs));
    this.pollReady();
    return settled;
  }

  /** A log file that cannot be written must not stop the server: say so in the log and carry on. */
  private openLogFile(file: string): void {
    const note = (e: Error) => {
      this.logStream = null;
      this.onLine(`[speedmatrix] cannot write the log file ${file}: ${e.message}`);
    };
    try {
      mkdirSync(dirname(file), { recursive: true });
      this.logStream = createWriteStream(file, { flags: 'a' }).on('error', note);
    } catch (e) {
      note(e as Error);
    }
  }

  private reset(opts: LaunchOptions, cfg: SupervisorConfig): void {
    this.opts = opts;
    this.cfg = cfg;
    this.ring = [];
    this.facts = emptyLogFacts();
    this.startClock = new StartPhaseClock();
    this.exitInfo = null;
    this.leftovers.reset();
    this.stopping = null;
    this.target = null;
    this.child = null;
    this.exitWaiters = [];
  }

  private spawnServer(built: BuiltLaunch): boolean {
    const env = { ...process.env, PYTHONUNBUFFERED: '1', ...built.env };
    const program = this.deps.spawnNode && built.program;
    if (program) {
      this.ownGroup = false;
      const serviceName = 'SpeedMatrix simulated vLLM server';
      return this.watchChild(
        this.deps.spawnNode!(program.name, program.args, { env, stdio: 'pipe', serviceName }),
        'sim',
      );
    }
    this.ownGroup = true;
    const [command, ...args] = built.argv;
    const control = this.control;
    const found = resolveCommand(command, { platform: control.platform, env });
    if (found.batch) {
      this.failStart({
        kind: 'executable-not-found',
        ...batchFileMessage(command, found.path ?? command),
        rootCauseLines: [],
        logTail: [],
      });
      return false;
    }
    let child: NodeChild;
    try {
      // POSIX: own process group so the whole tree can be signalled. Never through a shell.
      child = spawn(found.path ?? command, args, { ...control.spawnOptions(), stdio: ['ignore', 'pipe', 'pipe'], env });
    } catch (e) {
      // Node throws at once (EINVAL for a batch file on Windows, bad arguments) instead of emitting 'error'.
      this.failStart(spawnFailure(command, e as NodeJS.ErrnoException, this.opts?.engineKind, this.control.isWindows));
      return false;
    }
    // Which file a bare name started (a macOS app's PATH comes from the login shell): said in the log.
    if (found.path && found.path !== command) this.onLine(`[SpeedMatrix] "${command}" is ${found.path}`);
    return this.watchChild(child, command);
  }

  /** Follow a started server: its output line by line, its failure to start, its exit. */
  private watchChild(child: NodeChild, command: string): boolean {
    this.child = child;
    process.on('exit', this.killOnExit);
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (partial + chunk).split(/\r\n|\n|\r/);
        partial = parts.pop() ?? '';
        for (const p of parts) this.onLine(p);
      });
      stream?.on('end', () => {
        if (partial) this.onLine(partial);
        partial = '';
      });
    }
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (this._state === 'starting')
        this.failStart(spawnFailure(command, e, this.opts?.engineKind, this.control.isWindows));
    });
    child.on('exit', (code, signal) => void this.onExit(code, signal));
    return true;
  }

  private onLine(raw: string): void {
    const line = redactText(stripAnsi(raw), [this.opts?.apiKey]);
    if (line.trim() === '') return;
    this.ring.push(line);
    if (this.ring.length > (this.cfg.ringSize ?? 5000))
      this.ring.splice(0, this.ring.length - (this.cfg.ringSize ?? 5000));
    this.logStream?.write(`${line}\n`);
    const before = { phase: this.facts.phase, stats: this.facts.lastStats };
    this.facts = applyLogLine(this.facts, line);
    if (this._state === 'starting') this.startClock.line(line, Date.now() - this.startedAt);
    this.emit('log', line);
    if (this.facts.lastStats !== before.stats) this.emit('stats', this.facts.lastStats!);
    if (this._state === 'starting' && this.facts.phase !== before.phase) this.emitProgress();
  }

  private emitProgress(): void {
    if (this._state === 'starting')
      this.emit('progress', { elapsedMs: Date.now() - this.startedAt, phase: this.facts.phase });
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  /** Poll /health (self-rescheduling, never overlapping); on 200, probe the server. */
  private pollReady(): void {
    const opts = this.opts!;
    const baseUrl = `http://${connectHost(opts.host)}:${opts.port}`;
    let probeFailures = 0;
    const tick = async () => {
      if (this._state !== 'starting') return;
      let healthy = false;
      try {
        const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(3000) });
        await res.arrayBuffer();
        healthy = res.status === 200;
      } catch {
        // Connection refused while loading: expected.
      }
      if (healthy && this._state === 'starting') {
        const probed = await probeLaunched(baseUrl, opts, this.built!, this.facts, this.cfg);
        if (probed.ok && this._state === 'starting') {
          this.clearTimers();
          const startPhases = this.startClock.phases(Date.now() - this.startedAt);
          const target = { ...probed.data, launch: { ...probed.data.launch, startPhases } };
          this.target = target;
          this.setState('ready');
          this.emit('ready', target);
          this.settle(ok(target));
          return;
        }
        if (!probed.ok) {
          this.facts = { ...this.facts, phase: `probing: ${probed.error}` };
          // Healthy yet unusable for this long is not a slow start (e.g. another model is served).
          if (++probeFailures >= PROBE_ATTEMPTS && this._state === 'starting') {
            this.clearTimers();
            this.setState('stopping');
            await this.terminate(Math.min(this.cfg.stopTimeoutMs ?? LAUNCH_DEFAULTS.stopTimeoutMs, 10_000));
            this.failStart({
              kind: 'probe-failed',
              message: `The server answers /health but cannot be used: ${probed.error}`,
              advice: 'Check the served model name and the API key given to SpeedMatrix against the command line.',
              rootCauseLines: [],
              logTail: this.logTail(40),
            });
            return;
          }
        }
      }
      if (this._state === 'starting') this.timers.push(setTimeout(() => void tick(), POLL_MS));
    };
    void tick();
  }

  private settle(r: Result<ServerTarget, StartupFailure>): void {
    const s = this.settleStart;
    this.settleStart = null;
    s?.(r);
  }

  private failStart(f: StartupFailure): void {
    this.clearTimers();
    this.setState('failed');
    this.emit('failed', f);
    this.settle(fail(f));
  }

  private async onDeadline(): Promise<void> {
    if (this._state !== 'starting') return;
    const f = readyTimeout(
      this.cfg.readyTimeoutMs ?? LAUNCH_DEFAULTS.readyTimeoutMs,
      this.facts.phase,
      this.logTail(40),
    );
    this.clearTimers();
    this.setState('stopping');
    await this.terminate(Math.min(this.cfg.stopTimeoutMs ?? LAUNCH_DEFAULTS.stopTimeoutMs, 10_000));
    this.failStart(f);
  }

  private async onExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    this.exitInfo = { exitCode: code, signal };
    process.off('exit', this.killOnExit);
    const pgid = this.child?.pid;
    // Let the pipes drain so the last (root-cause) lines are in the ring.
    await new Promise((r) => setTimeout(r, 50));
    if (this._state === 'starting') {
      this.clearTimers();
      if (pgid) this.leftovers.ended = await this.leftovers.reap(pgid);
      this.failStart(
        recognizeStartupFailure(this.ring, {
          exitCode: code,
          signal,
          port: this.opts?.port,
          gpuMemoryUtilization: this.opts?.gpuMemoryUtilization,
          model: this.opts?.model,
          engineKind: this.opts?.engineKind,
        }),
      );
    } else if (this._state === 'ready') {
      const report = this.cfg.orphanPolicy === 'report';
      const orphans = !pgid ? [] : report ? await this.leftovers.lookFor(pgid) : await this.leftovers.reap(pgid);
      if (report) this.leftovers.live = orphans;
      else this.leftovers.ended = orphans;
      this.setState('failed');
      this.emit('crashed', {
        exitCode: code,
        signal,
        lastLines: this.logTail(40),
        orphans,
        orphansAlive: report && orphans.length > 0,
      });
    }
    this.logStream?.end();
    this.logStream = null;
    this.emit('exited', { exitCode: code, signal });
    for (const w of this.exitWaiters.splice(0)) w();
  }

  /**
   * End the orphans a crash left running (all, or those named in `pids`; other pids are
   * ignored, so a caller can never have an unrelated process killed). Returns what was ended.
   */
  endOrphans(pids?: number[]): Promise<LeftoverProcess[]> {
    return this.leftovers.end(this.child?.pid, pids);
  }

  /** The leader's exit signal (a method so TypeScript does not narrow it across awaits). */
  private exitSignal(): string | null {
    return this.exitInfo?.signal ?? null;
  }

  private waitExit(ms: number): Promise<boolean> {
    if (this.exitInfo || !this.child) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      this.exitWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /**
   * Ask the leader to stop (SIGTERM; Windows: taskkill /T), wait, then force the whole group or
   * tree. Returns whether the leader went when asked, and why leftovers could not be checked.
   */
  private async terminate(
    stopTimeoutMs: number,
  ): Promise<{ graceful: boolean; treePids: number[]; survivors: LeftoverProcess[]; unchecked: string | null }> {
    if (!this.ownGroup) return this.terminateProgram(stopTimeoutMs);
    const pid = this.child?.pid;
    if (!pid || this.exitInfo) return { graceful: true, treePids: [], survivors: [], unchecked: null };
    // Note every process of the tree now, to find the ones that might leave the group later.
    const treePids = (await processTree(pid, this.control).catch(() => [])).map((p) => p.pid);
    // A request that could not be delivered (Windows console programs refuse taskkill without /F) is not waited on.
    const asked = await this.control.askToStop(pid);
    const exitedInTime = await this.waitExit(asked ? stopTimeoutMs : 0);
    // What outlived the leader (or is still there with it) is about to be ended: say what it was.
    const seen = await findLeftovers(pid, treePids, this.leftoverOpts);
    const survivors = seen.found.filter((p) => p.pid !== pid);
    const left = await endLeftovers(pid, survivors, 3000, this.leftoverOpts, [pid, ...treePids]);
    if (!exitedInTime) await this.waitExit(5000);
    // Killed from elsewhere meanwhile (e.g. a second Ctrl-C) is not a graceful stop.
    const graceful = exitedInTime && this.exitSignal() !== 'SIGKILL';
    return {
      graceful,
      treePids,
      survivors: survivors.filter((s) => !left.found.some((l) => l.pid === s.pid)),
      unchecked: seen.unchecked ?? left.unchecked,
    };
  }

  /**
   * A program the host's NodeSpawner started leads no group: ask it to stop as its host does
   * (utilityProcess's kill(): SIGTERM), wait, then force it by its pid. Its EngineCore process (vLLM's) stops with
   * it (sim/engine-process.ts).
   */
  private async terminateProgram(stopTimeoutMs: number) {
    const child = this.child;
    const pid = child?.pid;
    if (!child || this.exitInfo) return { graceful: true, treePids: [], survivors: [], unchecked: null };
    askProgramToStop(child);
    const exitedInTime = await this.waitExit(stopTimeoutMs);
    if (!exitedInTime && pid) await this.control.killProcess(pid);
    if (!exitedInTime) await this.waitExit(5000);
    return { graceful: exitedInTime, treePids: pid ? [pid] : [], survivors: [], unchecked: null };
  }

  /**
   * Stop the server at once, synchronously, for a host that exits next (a second Ctrl-C): SIGKILL
   * to its whole group, even when the leader has exited, as what it started may still be running.
   * Returns the pid it ended, or null when there was none.
   */
  endNow(): number | null {
    const pid = this.child?.pid;
    if (!pid) return null;
    if (!this.ownGroup) askProgramToStop(this.child!);
    else this.control.killGroupSync(pid);
    return pid;
  }

  /**
   * Stop the server: SIGTERM to the leader, wait (stopTimeoutMs), SIGKILL to the whole group,
   * then look for leftovers (nvidia-smi compute apps, else the process table) and report them.
   */
  stop(): Promise<StopReport> {
    if (!this.stopping) this.stopping = this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<StopReport> {
    const t0 = Date.now();
    const pid = this.child?.pid;
    const wasStarting = this._state === 'starting';
    const alreadyExited = this.exitInfo !== null;
    if (this._state === 'starting' || this._state === 'ready') this.setState('stopping');
    this.clearTimers();
    const {
      graceful,
      treePids,
      survivors,
      unchecked: termUnchecked,
    } = await this.terminate(this.cfg.stopTimeoutMs ?? LAUNCH_DEFAULTS.stopTimeoutMs);
    // Orphans a crash left running (orphanPolicy 'report') end here at the latest.
    const reported = await this.leftovers.stillLive(pid);
    this.leftovers.live = [];
    let orphansKilled = [...this.leftovers.ended, ...survivors];
    let leftBehind: LeftoverProcess[] = [];
    let unchecked: string | null = termUnchecked;
    if (pid) {
      const check: LeftoverCheck = await findLeftovers(
        pid,
        [...treePids, ...reported.map((r) => r.pid)],
        this.leftoverOpts,
      );
      unchecked ??= check.unchecked;
      if (check.found.length > 0) {
        orphansKilled = [...orphansKilled, ...check.found];
        const after = await endLeftovers(pid, check.found, 5000, this.leftoverOpts);
        leftBehind = after.found;
        unchecked ??= after.unchecked;
      }
    }
    const container = this.built ? await removeLeftContainer(this.built.argv) : null;
    if (container) orphansKilled.push(container);
    if (this._state === 'stopping' || this._state === 'ready') this.setState('exited');
    if (wasStarting) {
      const f = stoppedBeforeReady(this.logTail(40));
      this.emit('failed', f);
      this.settle(fail(f));
    }
    const report: StopReport = {
      graceful,
      exitCode: this.exitInfo?.exitCode ?? null,
      signal: this.exitInfo?.signal ?? null,
      durationMs: Date.now() - t0,
      orphansKilled,
      leftBehind,
      unchecked,
      summary: '',
    };
    report.summary = stopSummary(
      report,
      pid === undefined ? 'none' : alreadyExited ? 'exited' : 'running',
      this.control.isWindows ? 'taskkill /T' : 'SIGTERM',
    );
    return report;
  }

  /** Stop, then start again with the same options. */
  async restart(): Promise<Result<ServerTarget, StartupFailure>> {
    if (!this.opts) throw new Error('nothing to restart: start a server first');
    const { opts, cfg } = this;
    await this.stop();
    return this.start(opts, cfg);
  }
}

/**
 * Ask a program the host's NodeSpawner started to stop, only once it has a pid: a Node child
 * whose spawn failed would signal this process's own group instead (platform/processes/signal-child.ts).
 */
function askProgramToStop(child: NodeChild): void {
  // eslint-disable-next-line no-restricted-syntax -- guarded by its pid just here
  if (child.pid !== undefined) child.kill();
}
