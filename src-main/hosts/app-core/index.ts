/**
 * The app core: the IPC contract implemented in plain Node (no 'electron' import). The
 * Electron main process and the test WebSocket bridge both drive this same object, so the
 * browser tests exercise the real thing. Every channel's arguments are validated here.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WorkerLauncher } from '../../engine/bench';
import type { NodeSpawner } from '../../platform/runtime/node-spawner';
import { detectHardware } from '../../platform/hardware';
import {
  type EventChannel,
  type EventPayloads,
  type InvokeChannel,
  type InvokeHandlers,
  type InvokeResult,
  type InvokeResults,
  invokeArgs,
  parseArgs,
} from '#shared/ipc/contract';
import { type CellRef, type ExportFormat, type ReportView } from '#shared/ipc/forms';
import { DEFAULT_CURRENCY, type GpuPrice } from '#shared/report/price';
import { EXTERNAL_ALLOWLIST } from '#shared/ipc/channels';
import type { ReportOptions } from '#shared/report/report-model';
import { TargetSpecError, parseTargets } from '#shared/report/slo';
import { renderHtmlReport } from '../../workflows/report/html';
import { renderMarkdownReport } from '../../workflows/report/markdown';
import { dataExportRefusal, renderDataExport } from '../../workflows/report/data-export';
import { APP_NAME, APP_VERSION } from '../../platform/runtime/app-version';
import { fail, ok } from '#shared/result';
import type { Hardware } from '#shared/session/schema';
import { writeFileAtomic } from '../../platform/session/write';
import { BUILTIN_PROFILES } from '../../engine/sim/profile';
import { ComparisonControl } from './comparison-control';
import { printedPdf } from './print-pdf';
import { CoreEvents } from './emitter';
import { RecentFiles } from './recent-files';
import { LoadControl } from './load-control';
import { RunControl } from './run-control';
import { ServerControl } from './server-control';
import { CommandGate, type ConfirmCommands } from './command-gate';
import { publishSite } from './site-control';
import { SweepControl } from './sweep-control';
import { TelemetryControl } from './telemetry-control';
import { LaunchedRegistry } from '../../engine/server/launched-registry';
import { FORM_DEFAULTS } from './server-form';
import { hardwareOn } from './remote-host';
import { PickedPaths } from './picked-paths';
import { type Dialogs, SessionControl, withSaveExtension } from './session-control';
import { CancelledError, UserError, describeError } from './user-error';

export type { Dialogs, SaveKind } from './session-control';
export { withSaveExtension } from './session-control';
export type { CommandToConfirm, ConfirmCommands } from './command-gate';

export interface AppCoreOptions {
  host: 'electron' | 'bridge';
  /** Where the core keeps its own files: recent list, working files of unsaved runs. */
  dataDir: string;
  dialogs?: Dialogs;
  /** HTML in, PDF bytes out (Electron: printToPDF of a hidden window; tests: headless Chromium). */
  printPdf?: (html: string) => Promise<Uint8Array>;
  /** How benchmark workers start (Electron: utilityProcess); default a Node child process. */
  launcher?: WorkerLauncher;
  /** How the simulated server starts (Electron: utilityProcess); default a Node child process. */
  spawnNode?: NodeSpawner;
  /** Opens an allowlisted link in the user's browser. */
  openExternal?: (url: string) => Promise<void>;
  /** Writes text to the system clipboard (Electron: main's clipboard). */
  writeClipboard?: (text: string) => void;
  /** Hardware detection (default: the real one). */
  detectHardware?: () => Promise<Hardware>;
  /** Merged run updates at most this often (default 100 ms). */
  runUpdateIntervalMs?: number;
  /** Supervisor stop timeout (default 30 s). */
  stopTimeoutMs?: number;
  /** The nvidia-smi to run for detection and telemetry (default: on PATH). */
  nvidiaSmi?: string;
  /** Telemetry sample interval (default 1000 ms). */
  telemetryIntervalMs?: number;
  /**
   * Whether callers may name the file a save or export writes (default true: CLI-like callers
   * and tests). The app passes false: a page may only write where the person chose in a dialog.
   */
  allowWritePaths?: boolean;
  /** Where launched servers are written down (default: the user's data folder, shared with the CLI). */
  launchedServersDir?: string;
  /** The OS the Server view advises for (default this one): what can launch here, how the command is copied. */
  platform?: NodeJS.Platform;
  /**
   * Asks the person before a command line the page wrote, or a sweep folder from elsewhere, is
   * spawned (the app; see command-gate.ts). Without it (CLI-like callers, tests) nothing is asked.
   */
  confirmCommands?: ConfirmCommands;
}

export interface AppCore {
  /** Validate and run one invoke channel. Never throws: errors come back as {ok: false}. */
  invoke<C extends InvokeChannel>(channel: C, args: unknown): Promise<InvokeResult<C>>;
  on<E extends EventChannel>(event: E, cb: (payload: EventPayloads[E]) => void): () => void;
  /** A session with changes not saved by the person (a finished or running run); a file opened or imported unchanged is not. */
  hasUnsavedChanges(): boolean;
  runInProgress(): boolean;
  /**
   * A path the person handed over outside the page (the OS's open-file, the command line, a
   * second launch, a drop the preload resolved): the page may open it (docs/ipc.md).
   */
  pick(path: string): void;
  /** The window title's file part: "name.speedmatrix.json •". */
  sessionMeta(): InvokeResults['session:open'];
  /** Stop any run and the server cleanly. */
  dispose(): Promise<void>;
}

const EXT: Record<ExportFormat, string> = {
  markdown: '.md',
  html: '.html',
  pdf: '.pdf',
  csv: '.csv',
  jsonl: '.jsonl',
};

/** What the person chose in Results, as the report's options: the same as `report --metric --slo --gpu-price`. */
function reportOptions(view: ReportView | undefined): ReportOptions {
  if (!view) return {};
  let targets;
  try {
    targets = view.slo?.trim() ? parseTargets(view.slo) : undefined;
  } catch (e) {
    if (e instanceof TargetSpecError) throw new UserError(`Targets: ${e.message}`);
    throw e;
  }
  return {
    targets,
    metric: view.metric,
    gpuPricePerHour: view.gpuPricePerHour ?? null,
    gpuPriceCurrency: view.gpuPriceCurrency,
  };
}

/** The GPU price the person gave in Results, for a comparison's per-price lines; null when none. */
function priceOfView(view: ReportView | undefined): GpuPrice | null {
  const perHour = view?.gpuPricePerHour ?? null;
  return perHour === null ? null : { perHour, currency: view?.gpuPriceCurrency ?? DEFAULT_CURRENCY };
}

/** The open session as a report or data file: at the path given, else where the save dialog says. */
async function exportReport(
  deps: { sessions: SessionControl; dialogs: AppCoreOptions['dialogs']; printPdf: AppCoreOptions['printPdf'] },
  format: ExportFormat,
  path?: string,
  view?: ReportView,
): Promise<{ file: string }> {
  const { sessions } = deps;
  const session = sessions.current();
  if (!session) throw new UserError('There is nothing to export yet: run a matrix or open a session first.');
  const refusal =
    format === 'csv' || format === 'jsonl'
      ? dataExportRefusal(session, format, session.load ? 'Export passes (CSV)' : 'Export cells (CSV)')
      : null;
  if (refusal) throw new UserError(`Nothing exported: ${refusal}`);
  let file = path ?? sessions.defaultExportPath(EXT[format]);
  if (!path && deps.dialogs) {
    const chosen = await deps.dialogs.chooseSavePath(
      sessions.defaultName(EXT[format]),
      format,
      sessions.defaultExportDir(),
    );
    if (!chosen) throw new CancelledError();
    file = chosen;
  }
  if (!file) throw new UserError('Exporting needs a path here: there is no file dialog.');
  const target = withSaveExtension(file, format);
  const options = reportOptions(view);
  let data: string | Uint8Array;
  if (format === 'csv' || format === 'jsonl') data = renderDataExport(session, format);
  else if (format === 'markdown') data = renderMarkdownReport(session, options);
  else if (format === 'html') data = renderHtmlReport(session, options);
  else data = await printedPdf(deps.printPdf, renderHtmlReport(session, options));
  const res = await writeFileAtomic(target, data);
  if (!res.ok) throw new UserError(res.error);
  return { file: target };
}

/** A channel's call from the page: its arguments checked against the contract, its handler's answer or error. */
async function invokeWith<C extends InvokeChannel>(
  handlers: InvokeHandlers,
  channel: C,
  args: unknown,
): Promise<InvokeResult<C>> {
  if (!Object.hasOwn(invokeArgs, channel)) return fail(`Unknown channel ${String(channel)}.`);
  const parsed = parseArgs(channel, args);
  if (!parsed.ok) return parsed;
  try {
    const handler = handlers[channel] as (...a: unknown[]) => Promise<InvokeResults[C]>;
    return ok(await handler(...(parsed.data as unknown[])));
  } catch (e) {
    if (e instanceof CancelledError) return { ok: false, error: e.message, code: 'cancelled' };
    return fail(describeError(e));
  }
}

/**
 * Which paths the page may name (docs/ipc.md): in the app (no write paths from the page) only those
 * the person picked, through main's dialogs, the recent list, the open session or comparison.
 */
function pathGuard(
  allowWritePaths: boolean,
  picked: PickedPaths,
  sessions: SessionControl,
  recent: RecentFiles,
  comparisons: ComparisonControl,
) {
  const writablePath = (path: string | undefined): string | undefined => {
    if (path !== undefined && !allowWritePaths) throw new UserError('Choose where to save in the file dialog.');
    return path;
  };

  /**
   * Whether the person picked this path: through main (PickedPaths), the recent list, the open
   * session's file, or the open comparison's folder and files (themselves opened only from picked
   * paths). See docs/ipc.md.
   */
  const isPicked = async (path: string): Promise<boolean> => {
    const full = resolve(path);
    const same = (p: string | null | undefined) => !!p && resolve(p) === full;
    const shown = comparisons.view();
    return (
      picked.has(full) ||
      same(sessions.meta().file) ||
      (await recent.list()).some(same) ||
      same(shown?.dir) ||
      !!shown?.entries.some((e) => same(e.file))
    );
  };

  /** In the app (no write paths from the page), a path the page names only when picked; elsewhere any. */
  const pickedPath = async <P extends string | undefined>(path: P, refusal: (path: string) => string): Promise<P> => {
    if (path === undefined || allowWritePaths || (await isPicked(path))) return path;
    throw new UserError(refusal(path));
  };
  const notPicked = (how: string) => (path: string) =>
    `Nothing opened: SpeedMatrix opens only files you chose, and ${path} was not. Open it with ${how}, or drop it on the window.`;
  return { writablePath, pickedPath, notPicked };
}

/** The channels that answer from the app itself: its facts, a link opened outside, the clipboard. */
function shellHandlers(
  opts: AppCoreOptions,
): Pick<InvokeHandlers, 'app:info' | 'shell:open-external' | 'clipboard:write-text'> {
  return {
    'app:info': async () => ({
      name: APP_NAME,
      version: APP_VERSION,
      platform: process.platform,
      host: opts.host,
      simProfiles: Object.values(BUILTIN_PROFILES).map((p) => ({ name: p.name, description: p.description })),
    }),
    'shell:open-external': async (url: string) => {
      if (!EXTERNAL_ALLOWLIST.some((p) => url.startsWith(p)))
        throw new UserError(`Links to ${url} are not opened from SpeedMatrix.`);
      if (!opts.openExternal) throw new UserError('Links cannot be opened here.');
      await opts.openExternal(url);
      return true as const;
    },
    'clipboard:write-text': async (text: string) => {
      if (!opts.writeClipboard) throw new UserError('Copying is not available here: select the text and copy it.');
      opts.writeClipboard(text);
      return true as const;
    },
  };
}

/** The Load mode's channels: a trace replayed only from a file the person picked in its dialog. */
function loadHandlers(
  loads: LoadControl,
  pickedPath: ReturnType<typeof pathGuard>['pickedPath'],
): Pick<InvokeHandlers, 'load:start' | 'load:choose-trace' | 'load:stop' | 'load:snapshot'> {
  const notPicked = (path: string) =>
    `Nothing replayed: SpeedMatrix reads only trace files you chose, and ${path} was not. Choose it with the Load form's Trace file… button.`;
  return {
    'load:start': async (form) =>
      loads.start(
        form.trace ? { ...form, trace: { ...form.trace, file: await pickedPath(form.trace.file, notPicked) } } : form,
      ),
    'load:choose-trace': () => loads.chooseTrace(),
    'load:stop': () => loads.stop(),
    'load:snapshot': async () => loads.snapshot(),
  };
}

const RESUME_OPENED_ONLY = 'Resume works on a session file you opened: open it first (File > Open or Open Recent).';

/** This machine's hardware: detected on request, kept, and detected when first needed (undefined when that fails). */
function hardwareDetector(opts: AppCoreOptions) {
  let hardware: Hardware | null = null;
  const detect = async (): Promise<Hardware> => {
    hardware = opts.detectHardware
      ? await opts.detectHardware()
      : (await detectHardware({ nvidiaSmi: opts.nvidiaSmi })).hardware;
    return hardware;
  };
  const hardwareNow = async (): Promise<Hardware | undefined> => hardware ?? (await detect().catch(() => undefined));
  return { detect, hardwareNow, detected: () => hardware };
}

export function createAppCore(opts: AppCoreOptions): AppCore {
  mkdirSync(opts.dataDir, { recursive: true });
  const events = new CoreEvents();
  const recent = new RecentFiles(opts.dataDir);
  const picked = new PickedPaths();
  const dialogs = opts.dialogs ? picked.recording(opts.dialogs) : null;
  const sessions = new SessionControl(events, recent, dialogs);
  const { detect, hardwareNow, detected } = hardwareDetector(opts);
  const telemetry = new TelemetryControl(events, {
    nvidiaSmi: opts.nvidiaSmi,
    intervalMs: opts.telemetryIntervalMs,
    vramOf: (gpu) => detected()?.gpus.find((g) => g.index === gpu)?.vramBytes ?? null,
  });
  // Telemetry runs while a server runs: from the launch (model loading shows too) to its end.
  const launched = new LaunchedRegistry(opts.launchedServersDir);
  const gate = new CommandGate(opts.confirmCommands);
  const server = new ServerControl(events, {
    gate,
    stopTimeoutMs: opts.stopTimeoutMs,
    registry: launched,
    platform: opts.platform,
    spawnNode: opts.spawnNode,
    onStarting: () => telemetry.start(),
    onStopped: () => telemetry.stop(),
  });
  const runs = new RunControl({
    events,
    sessions,
    target: () => server.target(),
    remoteServing: () => server.remoteServing(),
    hardware: hardwareNow,
    serverLogLines: () => server.logLines(),
    restartServer: () => server.restart(),
    launcher: opts.launcher,
    telemetry: () => telemetry.current(),
    runsDir: join(opts.dataDir, 'runs'),
    updateIntervalMs: opts.runUpdateIntervalMs,
  });

  const loads = new LoadControl({
    events,
    sessions,
    runs,
    target: () => server.target(),
    serverLogLines: () => server.logLines(),
    hardware: hardwareNow,
    runsDir: join(opts.dataDir, 'runs'),
    launcher: opts.launcher,
    chooseTraceFile: dialogs?.chooseTraceFile && (() => dialogs.chooseTraceFile!()),
  });

  const sweeps = new SweepControl({
    events,
    server,
    runs,
    registry: launched,
    hardware: hardwareNow,
    telemetry: () => telemetry.current(),
    chooseFolder: dialogs?.chooseFolder?.bind(dialogs),
    allowWritePaths: opts.allowWritePaths !== false,
    gate,
    launcher: opts.launcher,
  });

  const comparisons = new ComparisonControl(dialogs, opts.printPdf);
  const { writablePath, pickedPath, notPicked } = pathGuard(
    opts.allowWritePaths !== false,
    picked,
    sessions,
    recent,
    comparisons,
  );

  const handlers: InvokeHandlers = {
    ...shellHandlers(opts),
    'hardware:detect': () => detect(),
    'hardware:remote': (host) => hardwareOn(host),
    'server:defaults': async () => FORM_DEFAULTS,
    'server:preview': async (form) => server.preview(form),
    'server:start': (form) => server.start(form),
    'server:stop': () => server.stop(),
    'server:snapshot': async () => server.snapshot(),
    'server:log': async () => server.logLines(),
    'server:end-orphans': (pids?: number[]) => server.endOrphans(pids),
    'server:leftovers': () => server.findLeftoverServers(),
    'run:plan': async (form) => runs.plan(form),
    'run:start': (form) => runs.start(form),
    'run:stop': () => runs.stop(),
    'run:resume': async (file?: string) => runs.resume(await pickedPath(file, () => RESUME_OPENED_ONLY)),
    'run:snapshot': async () => runs.snapshot(),
    'run:reattach': () => runs.reattach(),
    'sweep:plan': (form, axes, run) => sweeps.plan(form, axes, run),
    'sweep:choose-dir': () => sweeps.chooseDir(),
    'sweep:start': (req) => sweeps.start(req),
    'sweep:stop': () => sweeps.stop(),
    'sweep:resume': (dir?: string, apiKey?: string) => sweeps.resume(dir, apiKey),
    'sweep:snapshot': async () => sweeps.snapshot(),
    ...loadHandlers(loads, pickedPath),
    'session:get': async () => sessions.view(),
    'session:cell-requests': async (cell: CellRef) => sessions.cellRequests(cell),
    'session:open': async (path?: string) => {
      if (runs.running()) throw new UserError('A run is going: stop it before opening another session.');
      return sessions.open(await pickedPath(path, notPicked('File > Open or Open Recent')));
    },
    'session:open-data': async (file: { name: string; text: string }) => {
      if (runs.running()) throw new UserError('A run is going: stop it before opening another session.');
      return sessions.openData(file.name, file.text);
    },
    'session:save': async (path?: string) => sessions.save(writablePath(path)),
    'session:save-as': async (path?: string) => sessions.save(writablePath(path), true),
    'session:recent': () => recent.list(),
    'report:export': async (format: ExportFormat, path?: string | null, view?: ReportView) =>
      exportReport(
        { sessions, dialogs: opts.dialogs, printPdf: opts.printPdf },
        format,
        writablePath(path ?? undefined),
        view,
      ),
    'compare:open-sweep': async (path?: string) =>
      comparisons.openSweep(await pickedPath(path, notPicked('Open sweep…'))),
    'compare:open-sessions': async (paths?: string[]) => {
      for (const p of paths ?? []) await pickedPath(p, notPicked('Compare sessions…'));
      return comparisons.openSessions(paths);
    },
    'compare:get': async () => comparisons.view(),
    'compare:cancel-jobs': () => comparisons.cancelJobs(),
    'compare:export': (format, path?: string | null, view?: ReportView) =>
      comparisons.export(format, writablePath(path ?? undefined), priceOfView(view)),
    'site:publish': async (from?: string, to?: string) =>
      publishSite(dialogs, await pickedPath(from, notPicked('File > Publish Site…')), writablePath(to)),
  };

  return {
    invoke: (channel, args) => invokeWith(handlers, channel, args),
    on: (event, cb) => events.on(event, cb),
    hasUnsavedChanges: () => sessions.hasUnsavedChanges(),
    runInProgress: () => runs.running(),
    pick: (path) => picked.add(path),
    sessionMeta: () => sessions.meta(),
    async dispose() {
      await sweeps.dispose();
      await loads.dispose();
      await runs.dispose();
      await server.dispose();
      telemetry.stop();
    },
  };
}
