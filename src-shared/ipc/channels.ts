/**
 * The contract's channel tables, free of zod, so the sandboxed preload bundles only this
 * (a sandboxed preload cannot require packages). contract.ts re-exports everything here.
 */
import type { EventChannel, EventPayloads, InvokeArgs, InvokeChannel, InvokeResult } from './contract';

export const EVENT_CHANNELS: readonly EventChannel[] = [
  'server:state',
  'server:log',
  'server:orphans',
  'run:update',
  'sweep:update',
  'load:update',
  'telemetry',
  'session:meta',
  'notice',
  'menu',
];

/** Method name -> invoke channel. Both bridges (preload and WebSocket) are generated from this table. */
export const bridgeMethods = {
  getAppInfo: 'app:info',
  detectHardware: 'hardware:detect',
  detectRemoteHardware: 'hardware:remote',
  getServerDefaults: 'server:defaults',
  previewServer: 'server:preview',
  startServer: 'server:start',
  stopServer: 'server:stop',
  getServerSnapshot: 'server:snapshot',
  getServerLog: 'server:log',
  endOrphans: 'server:end-orphans',
  findLeftoverServers: 'server:leftovers',
  planRun: 'run:plan',
  startRun: 'run:start',
  stopRun: 'run:stop',
  resumeRun: 'run:resume',
  getRunSnapshot: 'run:snapshot',
  reattachRun: 'run:reattach',
  getSession: 'session:get',
  getCellRequests: 'session:cell-requests',
  openSession: 'session:open',
  openSessionData: 'session:open-data',
  saveSession: 'session:save',
  saveSessionAs: 'session:save-as',
  getRecentFiles: 'session:recent',
  exportReport: 'report:export',
  planSweep: 'sweep:plan',
  chooseSweepDir: 'sweep:choose-dir',
  startSweep: 'sweep:start',
  stopSweep: 'sweep:stop',
  resumeSweep: 'sweep:resume',
  getSweepSnapshot: 'sweep:snapshot',
  startLoad: 'load:start',
  stopLoad: 'load:stop',
  getLoadSnapshot: 'load:snapshot',
  chooseTrace: 'load:choose-trace',
  openSweep: 'compare:open-sweep',
  compareSessions: 'compare:open-sessions',
  getComparison: 'compare:get',
  exportComparison: 'compare:export',
  cancelSweepJobs: 'compare:cancel-jobs',
  publishSite: 'site:publish',
  openExternal: 'shell:open-external',
  writeClipboard: 'clipboard:write-text',
} as const satisfies Record<string, InvokeChannel>;

/** Method name -> event channel. */
export const bridgeEvents = {
  onServerState: 'server:state',
  onServerLog: 'server:log',
  onServerOrphans: 'server:orphans',
  onRunUpdate: 'run:update',
  onSweepUpdate: 'sweep:update',
  onLoadUpdate: 'load:update',
  onTelemetry: 'telemetry',
  onSessionMeta: 'session:meta',
  onNotice: 'notice',
  onMenu: 'menu',
} as const satisfies Record<string, EventChannel>;

type MethodTable = typeof bridgeMethods;
type EventTable = typeof bridgeEvents;

/**
 * The bridge the renderer sees as `window.speedmatrix`: named methods only, each the invoke
 * or subscription of one channel, with the argument and result types of that channel. The
 * types come from the tables above, so a method wired to the wrong channel changes its own
 * signature and its callers stop compiling (docs/ipc.md).
 */
export type SpeedMatrixBridge = {
  [M in keyof MethodTable]: (...args: InvokeArgs<MethodTable[M]>) => Promise<InvokeResult<MethodTable[M]>>;
} & {
  [M in keyof EventTable]: (cb: (payload: EventPayloads[EventTable[M]]) => void) => () => void;
} & {
  /**
   * The app only: the path of a dropped file (Electron's webUtils), so Save knows where it lives.
   * The preload tells main on DROPPED_FILE_CHANNEL first, so main may open it (docs/ipc.md).
   */
  pathForFile?(file: File): Promise<string | null>;
};

// Every channel has a bridge method: a channel added to the contract without one fails here.
type Unbridged =
  Exclude<InvokeChannel, MethodTable[keyof MethodTable]> | Exclude<EventChannel, EventTable[keyof EventTable]>;
export const EVERY_CHANNEL_BRIDGED: [Unbridged] extends [never] ? true : Unbridged = true;

/** Channel prefixes the preload namespaces with, so a page cannot reach other ipc channels. */
export const IPC_PREFIX = 'speedmatrix:';

/**
 * The preload's own channel, not a bridge method: the path webUtils found for a dropped File.
 * A page can name no path here, since only a real drop's File has one.
 */
export const DROPPED_FILE_CHANNEL = `${IPC_PREFIX}file:dropped`;

/** Links the app may open in the user's browser; everything else is refused. */
export const EXTERNAL_ALLOWLIST = ['https://github.com/', 'https://docs.vllm.ai/', 'https://huggingface.co/'];
