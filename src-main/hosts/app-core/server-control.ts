/**
 * The server side of the app: one Supervisor (or an attached URL) at a time. Supervisor
 * events become ServerSnapshots and batched log lines for the renderer; the supervisor stays
 * the source of truth, this only translates.
 */
import type { CommandPreview, OrphanProcess, ServerSnapshot } from '#shared/ipc/contract';
import type { ServerForm } from '#shared/ipc/forms';
import type { ServerKind } from '#shared/session/schema';
import type { LaunchOptions } from '../../engine/server/launch';
import { IDLE_SERVER } from '#shared/ipc/idle-server';
import {
  LAUNCH_DEFAULTS,
  Supervisor,
  buildLaunch,
  describeProcesses,
  probeServer,
  type LeftoverProcess,
  type ServerTarget,
  type StartupFailure,
} from '../../engine/server';
import { isPortFree } from '../../engine/server/port';
import type { CoreEvents } from './emitter';
import { copiesAsPowerShell, localLaunchNote } from '../../engine/server/platform-support';
import { displayAsPowerShell } from '../../engine/server/powershell';
import { formToLaunch, formWarnings } from './server-form';
import { type CommandGate, commandToConfirm } from './command-gate';
import type { NodeSpawner } from '../../platform/runtime/node-spawner';
import { UserError } from './user-error';
import { freePort } from '../../engine/server/port';
import { type LaunchedRegistry, type LaunchedServer, describeLaunched } from '../../engine/server/launched-registry';
import { type RemoteServer, checkPageSshOptions, remoteHostOf, serveOn, sshTargetOf } from './remote-host';
import type { SshTarget } from '../../workflows/remote/ssh';
import { shellLine, shellQuote } from '#shared/shell-quote';

const LOG_FLUSH_MS = 100;

/** A server on a remote host, and what a run there needs to measure it next to it. */
export interface RemoteServing {
  ssh: SshTarget;
  server: RemoteServer | null;
  /** Its ready facts as the host sees them (URL on the host), once ready. */
  ready: ServerTarget | null;
  /** The simulator's clock speed-up, which the run there must be told; null for a real server. */
  simSpeed: number | null;
  apiKey?: string;
}

/** The remote command of a form: the server command as typed (the simulator as `speedmatrix sim serve`), env first. */
function remoteCommand(built: ReturnType<typeof buildLaunch>): string[] {
  const { argv, env } = built.given ?? built;
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return vars.length ? ['env', ...vars, ...argv] : argv;
}

/** The launch a form asks for and its command line; a form or command that cannot launch is the user's to fix. */
function launchOf(form: ServerForm, port: number): { launch: LaunchOptions; built: ReturnType<typeof buildLaunch> } {
  const launch = formToLaunch(form, port);
  if (!launch.ok) throw new UserError(launch.error);
  try {
    return { launch: launch.data, built: buildLaunch(launch.data) };
  } catch (e) {
    throw new UserError((e as Error).message);
  }
}

/** How many lines of a server's log are kept (the Server log, the session's server log). */
const LOG_KEPT = 5000;

export class ServerControl {
  private supervisor: Supervisor | null = null;
  /** Earlier supervisors whose crash left processes the person chose to leave running: ended on dispose at the latest. */
  private retired: Supervisor[] = [];
  private attached: ServerTarget | null = null;
  private remote: RemoteServing | null = null;
  private snap: ServerSnapshot = IDLE_SERVER;
  private pendingLog: string[] = [];
  private logTimer: ReturnType<typeof setTimeout> | null = null;
  private attachLog: string[] = [];
  private auto: { host: string; port: number } | null = null;
  /** Servers an earlier SpeedMatrix launched and was killed before stopping (found at start-up): the person decides. */
  private leftoverServers: LaunchedServer[] = [];
  /** Why the page may not start or stop a server now (a sweep runs them), or null. */
  private heldBy: string | null = null;

  constructor(
    private readonly events: CoreEvents,
    private readonly opts: {
      readyTimeoutMs?: number;
      stopTimeoutMs?: number;
      onStarting?: () => void;
      onStopped?: () => void;
      platform?: NodeJS.Platform;
      registry?: LaunchedRegistry;
      /** Asks the person before a command line the page wrote is spawned (the app; see command-gate.ts). */
      gate?: CommandGate;
      /** How SpeedMatrix's own Node programs (the simulator) start (the app: utilityProcess). */
      spawnNode?: NodeSpawner;
    } = {},
  ) {}

  /** A supervisor for a server started here or by a sweep: with the host's way to start the simulator. */
  newSupervisor(): Supervisor {
    return new Supervisor({ spawnNode: this.opts.spawnNode });
  }

  snapshot(): ServerSnapshot {
    return this.snap;
  }

  target(): ServerTarget | null {
    return this.attached ?? this.remote?.ready ?? this.supervisor?.readyTarget ?? null;
  }

  /** The server on a remote host, when that is the one shown and it is ready: runs then happen there. */
  remoteServing(): RemoteServing | null {
    return this.remote?.ready && this.snap.state === 'ready' ? this.remote : null;
  }

  logLines(): string[] {
    return this.supervisor ? this.supervisor.logTail(LOG_KEPT) : [...this.attachLog];
  }

  async preview(form: ServerForm): Promise<CommandPreview> {
    if (form.kind === 'attach')
      return { display: `attach ${form.url || '<url>'}`, argv: [], env: {}, powershell: null, platformNote: null };
    if (form.where === 'ssh') {
      checkPageSshOptions(remoteHostOf(form).options);
      const { built } = launchOf(form, form.port ?? LAUNCH_DEFAULTS.port);
      // A host typed is checked as ssh would take it ("gpu box" is not one): the error goes to its field.
      if (form.sshHost.trim()) sshTargetOf({ host: form.sshHost, options: [] });
      // Quoted as the rest of the line is: pasted into a shell, it reaches that host and runs nothing else.
      const host = form.sshHost.trim() ? shellQuote(form.sshHost.trim()) : '<host>';
      return {
        display: `ssh ${host} speedmatrix serve -- ${shellLine(remoteCommand(built))}`,
        argv: [],
        env: {},
        warnings: formWarnings(form),
        powershell: null,
        platformNote: null,
      };
    }
    const platform = this.opts.platform ?? process.platform;
    const platformNote = localLaunchNote(form.kind, platform);
    const { launch, built } = launchOf(form, form.port ?? (await this.portFor(form.host)));
    const shown = commandToConfirm(form.kind, built, launch.apiKey);
    return {
      display: built.display,
      argv: shown.argv,
      env: shown.env,
      warnings: formWarnings(form),
      powershell: copiesAsPowerShell(platform) ? displayAsPowerShell(built.display) : null,
      platformNote,
    };
  }

  async start(form: ServerForm): Promise<ServerSnapshot> {
    if (this.heldBy) throw new UserError(this.heldBy);
    const busy = this.snap.state === 'starting' || this.snap.state === 'ready' || this.snap.state === 'stopping';
    if (busy) throw new UserError('A server is already running: stop it first.');
    if (form.where === 'ssh') return this.launchRemote(form);
    return form.kind === 'attach' ? this.attach(form) : this.launch(form);
  }

  /**
   * The server on the remote host (remote-host.ts): started there by its own speedmatrix, on the
   * form's port or 8000 (a free port here says nothing about the host's); no telemetry here.
   */
  private async launchRemote(form: ServerForm): Promise<ServerSnapshot> {
    if (form.kind === 'attach')
      throw new UserError('Attach to URL measures from this machine: choose how to launch the server on the host.');
    const ssh = sshTargetOf(remoteHostOf(form));
    const { launch, built } = launchOf(form, form.port ?? LAUNCH_DEFAULTS.port);
    const argv = remoteCommand(built);
    if (launch.engineKind !== 'simulator')
      await this.opts.gate?.check(`Start this server on ${ssh.host}?`, [
        commandToConfirm(`${form.kind} on ${ssh.host}`, { argv, env: {} }, launch.apiKey),
      ]);
    this.supervisor?.removeAllListeners();
    this.supervisor = null;
    this.attached = null;
    const me: RemoteServing = {
      ssh,
      server: null,
      ready: null,
      simSpeed: form.kind === 'simulator' ? form.simSpeed : null,
      apiKey: launch.apiKey,
    };
    this.remote = me;
    this.attachLog = [];
    const mine = () => this.remote === me;
    const say = (t: string) => {
      if (!mine()) return;
      this.attachLog.push(t);
      // The remote server's own log arrives here too: keep its tail, as a supervisor here does.
      if (this.attachLog.length > LOG_KEPT) this.attachLog.splice(0, this.attachLog.length - LOG_KEPT);
      this.log([t]);
    };
    this.set({
      ...IDLE_SERVER,
      state: 'starting',
      kind: launch.engineKind,
      display: built.display,
      startedAt: Date.now(),
      progress: `connecting to ${ssh.host}`,
      sshHost: ssh.host,
    });
    const fail = (failure: NonNullable<ServerSnapshot['failure']>) =>
      mine() && this.set({ ...this.snap, state: 'failed', progress: null, ready: null, failure });
    serveOn(ssh, argv, {
      progress: (phase) => mine() && this.snap.state === 'starting' && this.set({ ...this.snap, progress: phase }),
      ready: (t) => {
        if (!mine()) return;
        me.ready = t;
        say(`Ready on ${ssh.host}: ${t.baseUrl} (as the host reaches it), model ${t.model}`);
        this.set({ ...this.snap, state: 'ready', progress: null, ready: readyInfo(t), failure: null });
      },
      failed: fail,
      crashed: (message, lines) => {
        fail({ message, advice: 'See the last log lines below; start it again when fixed.', lines });
        if (mine()) this.events.emit('notice', { level: 'error', message });
      },
      say,
      ended: (exit, tail) => {
        if (!mine() || this.snap.state === 'failed') return;
        if (exit === 0 || exit === 130 || this.snap.state === 'stopping')
          this.set({ ...this.snap, state: 'exited', progress: null, ready: null });
        else
          fail({
            message: `The server's supervisor on ${ssh.host} ended with exit code ${exit ?? 'unknown'}.`,
            advice: null,
            lines: tail,
          });
      },
    }).then(
      (server) => {
        me.server = server;
        // Stopped while it was being started: stop it there as soon as it exists.
        if (!mine()) return void server.stop().catch(() => undefined);
        say(`Started ${server.id} on ${ssh.host}; it carries on there if the connection drops.`);
      },
      (e: Error) => fail({ message: e.message, advice: null, lines: [] }),
    );
    return this.snap;
  }

  private async stopRemote(me: RemoteServing): Promise<ServerSnapshot> {
    if (!me.server) {
      this.remote = null;
      this.set({ ...this.snap, state: 'exited', progress: null, ready: null });
      return this.snap;
    }
    this.set({ ...this.snap, state: 'stopping', progress: null });
    await me.server.stop();
    await me.server.done;
    return this.snap;
  }

  private async attach(form: ServerForm): Promise<ServerSnapshot> {
    if (!form.url.trim())
      throw new UserError('Server URL: give the address of the running server, e.g. http://10.0.0.5:8000.');
    this.set({
      ...IDLE_SERVER,
      state: 'starting',
      kind: 'attach',
      display: `attach ${form.url}`,
      startedAt: Date.now(),
      progress: 'probing the server',
    });
    const probed = await probeServer({
      baseUrl: form.url,
      apiKey: form.apiKey || undefined,
      model: form.model.trim() || undefined,
    });
    if (!probed.ok) {
      this.set({
        ...this.snap,
        state: 'failed',
        progress: null,
        failure: {
          message: probed.error,
          advice: 'Check the URL, the API key and that the server is running.',
          lines: [],
        },
      });
      return this.snap;
    }
    const t = probed.data;
    this.remote = null;
    this.attached = t;
    this.attachLog = [
      `Attached to ${t.baseUrl}: model ${t.model}, engine ${t.engine.name} ${t.engine.version ?? ''}`.trim(),
    ];
    this.log(this.attachLog);
    this.set({ ...this.snap, state: 'ready', progress: null, ready: readyInfo(t) });
    return this.snap;
  }

  /**
   * The port "auto" means: chosen free once, so the preview shows the port the start will use;
   * chosen again only when something else took it meanwhile.
   */
  async portFor(host: string): Promise<number> {
    const h = host.trim() || LAUNCH_DEFAULTS.host;
    if (this.auto && this.auto.host === h && (await isPortFree(h, this.auto.port))) return this.auto.port;
    this.auto = { host: h, port: await freePort(h) };
    return this.auto.port;
  }

  private async launch(form: ServerForm): Promise<ServerSnapshot> {
    const port = form.port ?? (await this.portFor(form.host));
    const { launch, built } = launchOf(form, port);
    if (launch.engineKind !== 'simulator')
      await this.opts.gate?.check('Start this server?', [commandToConfirm(form.kind, built, launch.apiKey)]);
    const display = built.display;
    const sup = this.newSupervisor();
    this.opts.registry?.track(sup, port);
    this.watch(sup, form.kind, display, null);
    void sup.start(launch, {
      readyTimeoutMs: this.opts.readyTimeoutMs,
      stopTimeoutMs: this.opts.stopTimeoutMs,
      orphanPolicy: 'report',
    });
    return this.snap;
  }

  /**
   * While a sweep runs it starts and stops its servers itself: the page can neither start nor
   * stop one (`reason` says why), and each variant's supervisor is shown here as if started here.
   */
  holdForSweep(reason: string | null): void {
    this.heldBy = reason;
  }

  /** A sweep variant's supervisor, before it starts: its states, log and failures show as any server's. */
  adopt(sup: Supervisor, launch: LaunchOptions, variant: string): void {
    let display = '';
    try {
      display = buildLaunch(launch).display;
    } catch {
      // The supervisor's own start reports the same problem as the variant's failure.
    }
    this.watch(sup, launch.engineKind, display, variant);
  }

  /** Make `sup` the server shown: its events become snapshots, log lines and notices. */
  private watch(sup: Supervisor, kind: ServerKind, display: string, sweepVariant: string | null): void {
    const old = this.supervisor;
    old?.removeAllListeners();
    this.remote = null;
    if (old && old.orphansLeftRunning.length > 0) this.retired.push(old);
    this.supervisor = sup;
    this.attached = null;
    const platform = this.opts.platform ?? process.platform;
    const powershell = display && copiesAsPowerShell(platform) ? displayAsPowerShell(display) : null;
    this.set({
      ...IDLE_SERVER,
      state: 'starting',
      kind,
      display,
      powershell,
      startedAt: Date.now(),
      progress: 'launching',
      sweepVariant,
    });
    this.opts.onStarting?.();
    sup.on('state', (s) => {
      if (this.supervisor !== sup) return;
      this.set({ ...this.snap, state: s, progress: s === 'starting' ? this.snap.progress : null });
      if (s === 'exited' || s === 'failed') this.opts.onStopped?.();
    });
    sup.on('log', (line) => this.supervisor === sup && this.log([line]));
    sup.on(
      'progress',
      (p) => this.supervisor === sup && this.snap.state === 'starting' && this.set({ ...this.snap, progress: p.phase }),
    );
    sup.on('ready', (t) => {
      if (this.supervisor !== sup) return;
      this.set({ ...this.snap, state: 'ready', progress: null, ready: readyInfo(t), failure: null });
    });
    sup.on('failed', (f) => {
      if (this.supervisor !== sup) return;
      // Stopped on request before it was ready (Stop, or a sweep stopping): stopped, not failed.
      if (sup.state === 'exited') this.set({ ...this.snap, state: 'exited', progress: null });
      else this.set({ ...this.snap, state: 'failed', progress: null, failure: failureInfo(f) });
    });
    sup.on('crashed', (c) => {
      if (this.supervisor !== sup) return;
      // Processes it started can outlive it (an engine core holding GPU memory): say which; the person decides whether to end them.
      const orphans = !c.orphans.length
        ? ''
        : c.orphansAlive
          ? ` It left ${c.orphans.length} process(es) running: ${describeProcesses(c.orphans)}.`
          : ` ${c.orphans.length} leftover process(es) it had started were found and ended: ${describeProcesses(c.orphans)}.`;
      const why = `The server stopped unexpectedly (${c.signal ? `signal ${c.signal}` : `exit code ${c.exitCode}`}).${orphans}`;
      this.set({
        ...this.snap,
        state: 'failed',
        ready: null,
        failure: {
          message: why,
          advice: 'See the last log lines below; start it again when fixed.',
          lines: c.lastLines.slice(-20),
        },
      });
      this.events.emit('notice', { level: 'error', message: why });
      if (c.orphansAlive) this.emitOrphans();
    });
  }

  async stop(): Promise<ServerSnapshot> {
    if (this.heldBy) throw new UserError(this.heldBy);
    if (this.remote && this.snap.sshHost) return this.stopRemote(this.remote);
    if (this.attached) {
      this.attached = null;
      this.set({ ...IDLE_SERVER });
      this.opts.onStopped?.();
      return this.snap;
    }
    const sup = this.supervisor;
    if (!sup) return this.snap;
    const hadOrphans = sup.orphansLeftRunning.length > 0;
    const report = await sup.stop();
    this.events.emit('notice', { level: report.leftBehind.length ? 'warn' : 'info', message: report.summary });
    this.set({ ...this.snap, state: sup.state === 'failed' ? 'failed' : 'exited', ready: null, progress: null });
    if (hadOrphans) this.emitOrphans();
    return this.snap;
  }

  /** Processes crashed servers left running, and servers a killed SpeedMatrix left behind, not ended yet. */
  orphans(): OrphanProcess[] {
    return [
      ...this.leftoverServers.map(leftoverServerOrphan),
      ...this.orphanHolders().flatMap((s) => s.orphansLeftRunning.map(toOrphan)),
    ];
  }

  /**
   * Servers an earlier SpeedMatrix (app or CLI) launched and was killed before it could stop
   * them, still running: offered like a crash's leftovers (the Server view asks before ending them).
   */
  async findLeftoverServers(): Promise<OrphanProcess[]> {
    this.leftoverServers = (await this.opts.registry?.leftovers()) ?? [];
    if (this.leftoverServers.length) {
      this.emitOrphans();
      const n = this.leftoverServers.length;
      this.events.emit('notice', {
        level: 'warn',
        message: `An earlier SpeedMatrix was killed and left ${n === 1 ? 'a server' : `${n} servers`} running: see the Server view to end ${n === 1 ? 'it' : 'them'}.`,
      });
    }
    return this.leftoverServers.map(leftoverServerOrphan);
  }

  /** End the left-behind servers among `pids` (all when none are given); returns those that are gone. */
  private async endLeftoverServers(pids?: number[]): Promise<LaunchedServer[]> {
    const chosen = this.leftoverServers.filter((e) => !pids || pids.includes(e.pgid));
    const ended: LaunchedServer[] = [];
    for (const e of chosen) if (await this.opts.registry?.end(e)) ended.push(e);
    this.leftoverServers = this.leftoverServers.filter((e) => !ended.includes(e));
    return ended;
  }

  /** End the processes crashes left running (all, or only these pids); returns what was ended. */
  async endOrphans(pids?: number[]): Promise<OrphanProcess[]> {
    const holders = this.orphanHolders();
    if (holders.length === 0 && this.leftoverServers.length === 0) {
      throw new UserError('No processes are left running by a crashed server.');
    }
    const servers = await this.endLeftoverServers(pids);
    const ended: LeftoverProcess[] = servers.map((e) => ({
      pid: e.pgid,
      command: e.command,
      gpuMemoryBytes: null,
      seenIn: 'process-table' as const,
    }));
    for (const sup of holders) ended.push(...(await sup.endOrphans(pids)));
    this.retired = this.retired.filter((s) => s.orphansLeftRunning.length > 0);
    const still = this.orphans();
    this.events.emit('notice', {
      level: still.length ? 'warn' : 'info',
      message:
        `Ended ${ended.length} process(es)${ended.length ? `: ${describeProcesses(ended)}` : ''}.` +
        (still.length
          ? ` Still running, end them by hand: ${describeProcesses(still.map((o) => ({ ...o, seenIn: 'process-table' as const })))}.`
          : ''),
    });
    this.emitOrphans();
    return ended.map(toOrphan);
  }

  private orphanHolders(): Supervisor[] {
    return [...this.retired, ...(this.supervisor ? [this.supervisor] : [])].filter(
      (s) => s.orphansLeftRunning.length > 0,
    );
  }

  private emitOrphans(): void {
    this.events.emit('server:orphans', { orphans: this.orphans() });
  }

  /** After a crash mid-run: start again with the same options; the run continues on success. */
  async restart(): Promise<ServerTarget | null> {
    const sup = this.supervisor;
    if (!sup) return null;
    // Restarting needs the GPU back: stop() inside restart() ends what the crash left running.
    const hadOrphans = sup.orphansLeftRunning.length > 0;
    const r = await sup.restart().catch(() => null);
    if (hadOrphans) this.emitOrphans();
    return r && r.ok ? r.data : null;
  }

  private set(s: ServerSnapshot): void {
    this.snap = { ...s, seq: this.snap.seq + 1 };
    this.events.emit('server:state', s);
  }

  private log(lines: string[]): void {
    this.pendingLog.push(...lines);
    if (this.logTimer) return;
    this.logTimer = setTimeout(() => {
      this.logTimer = null;
      const batch = this.pendingLog;
      this.pendingLog = [];
      this.events.emit('server:log', batch);
    }, LOG_FLUSH_MS);
  }

  async dispose(): Promise<void> {
    if (this.logTimer) clearTimeout(this.logTimer);
    const sup = this.supervisor;
    // Nothing is left behind when the app quits: a running server, and whatever crashes left running.
    const live = (s: Supervisor) =>
      s.state === 'starting' || s.state === 'ready' || s.state === 'stopping' || s.orphansLeftRunning.length > 0;
    for (const s of [...this.retired, ...(sup ? [sup] : [])]) if (live(s)) await s.stop().catch(() => undefined);
    this.retired = [];
    sup?.removeAllListeners();
    // A server on a remote host is stopped there too: quitting leaves nothing running anywhere.
    const remote = this.remote?.server;
    if (remote && (this.snap.state === 'starting' || this.snap.state === 'ready'))
      await remote.stop().catch(() => undefined);
  }
}

function leftoverServerOrphan(e: LaunchedServer): OrphanProcess {
  return { pid: e.pgid, command: describeLaunched(e), gpuMemoryBytes: null, origin: 'killed-run' };
}

function toOrphan(p: LeftoverProcess): OrphanProcess {
  return { pid: p.pid, command: p.command, gpuMemoryBytes: p.gpuMemoryBytes, origin: 'crash' };
}

function readyInfo(t: ServerTarget): NonNullable<ServerSnapshot['ready']> {
  return {
    url: t.baseUrl,
    model: t.model,
    maxModelLen: t.maxModelLen,
    kvBudget: t.kvBudget,
    engine: t.engine,
    simulated: t.simulated,
    startPhases: t.launch.startPhases ?? [],
  };
}

function failureInfo(f: StartupFailure): NonNullable<ServerSnapshot['failure']> {
  return {
    message: f.message,
    advice: f.advice || null,
    lines: f.rootCauseLines.length ? f.rootCauseLines : f.logTail.slice(-15),
  };
}
