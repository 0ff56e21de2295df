/**
 * The contract's channel tables, free of zod, so the sandboxed preload bundles only this
 * (a sandboxed preload cannot require packages). contract.ts re-exports everything here.
 */
import type { CellRef, EventChannel, EventPayloads, ExportFormat, InvokeChannel, InvokeResult, RunForm, ServerFormInput } from './contract';

export const EVENT_CHANNELS: readonly EventChannel[] = [
  'server:state',
  'server:log',
  'server:orphans',
  'run:update',
  'telemetry',
  'session:meta',
  'notice',
  'menu',
];

/**
 * The bridge the renderer sees as `window.speedmatrix`: named methods only, each the
 * invoke or subscription of one channel. Preload and the WebSocket bridge both build it
 * from `bridgeMethods` below, so the two cannot drift.
 */
export interface SpeedMatrixBridge {
  getAppInfo(): Promise<InvokeResult<'app:info'>>;
  detectHardware(): Promise<InvokeResult<'hardware:detect'>>;
  getServerDefaults(): Promise<InvokeResult<'server:defaults'>>;
  previewServer(form: ServerFormInput): Promise<InvokeResult<'server:preview'>>;
  startServer(form: ServerFormInput): Promise<InvokeResult<'server:start'>>;
  stopServer(): Promise<InvokeResult<'server:stop'>>;
  getServerSnapshot(): Promise<InvokeResult<'server:snapshot'>>;
  getServerLog(): Promise<InvokeResult<'server:log'>>;
  endOrphans(pids?: number[]): Promise<InvokeResult<'server:end-orphans'>>;
  planRun(form: RunForm): Promise<InvokeResult<'run:plan'>>;
  startRun(form: RunForm): Promise<InvokeResult<'run:start'>>;
  stopRun(): Promise<InvokeResult<'run:stop'>>;
  resumeRun(file?: string): Promise<InvokeResult<'run:resume'>>;
  getRunSnapshot(): Promise<InvokeResult<'run:snapshot'>>;
  getSession(): Promise<InvokeResult<'session:get'>>;
  getCellRequests(cell: CellRef): Promise<InvokeResult<'session:cell-requests'>>;
  openSession(path?: string): Promise<InvokeResult<'session:open'>>;
  openSessionData(file: { name: string; text: string }): Promise<InvokeResult<'session:open-data'>>;
  saveSession(path?: string): Promise<InvokeResult<'session:save'>>;
  saveSessionAs(path?: string): Promise<InvokeResult<'session:save-as'>>;
  getRecentFiles(): Promise<InvokeResult<'session:recent'>>;
  exportReport(format: ExportFormat, path?: string): Promise<InvokeResult<'report:export'>>;
  openExternal(url: string): Promise<InvokeResult<'shell:open-external'>>;
  writeClipboard(text: string): Promise<InvokeResult<'clipboard:write-text'>>;
  onServerState(cb: (s: EventPayloads['server:state']) => void): () => void;
  onServerLog(cb: (lines: EventPayloads['server:log']) => void): () => void;
  onServerOrphans(cb: (o: EventPayloads['server:orphans']) => void): () => void;
  onRunUpdate(cb: (u: EventPayloads['run:update']) => void): () => void;
  onTelemetry(cb: (s: EventPayloads['telemetry']) => void): () => void;
  onSessionMeta(cb: (m: EventPayloads['session:meta']) => void): () => void;
  onNotice(cb: (n: EventPayloads['notice']) => void): () => void;
  onMenu(cb: (c: EventPayloads['menu']) => void): () => void;
  /** The app only: the path of a dropped file (Electron's webUtils), so Save knows where it lives. */
  pathForFile?(file: File): string | null;
}

type InvokeMethodName = {
  [K in keyof SpeedMatrixBridge]-?: K extends `on${string}` | 'pathForFile' ? never : K;
}[keyof SpeedMatrixBridge];
type EventMethodName = {
  [K in keyof SpeedMatrixBridge]-?: K extends `on${string}` ? K : never;
}[keyof SpeedMatrixBridge];

/** Method name -> channel. Both bridges are generated from these two tables. */
export const bridgeMethods: Record<InvokeMethodName, InvokeChannel> = {
  getAppInfo: 'app:info',
  detectHardware: 'hardware:detect',
  getServerDefaults: 'server:defaults',
  previewServer: 'server:preview',
  startServer: 'server:start',
  stopServer: 'server:stop',
  getServerSnapshot: 'server:snapshot',
  getServerLog: 'server:log',
  endOrphans: 'server:end-orphans',
  planRun: 'run:plan',
  startRun: 'run:start',
  stopRun: 'run:stop',
  resumeRun: 'run:resume',
  getRunSnapshot: 'run:snapshot',
  getSession: 'session:get',
  getCellRequests: 'session:cell-requests',
  openSession: 'session:open',
  openSessionData: 'session:open-data',
  saveSession: 'session:save',
  saveSessionAs: 'session:save-as',
  getRecentFiles: 'session:recent',
  exportReport: 'report:export',
  openExternal: 'shell:open-external',
  writeClipboard: 'clipboard:write-text',
};

export const bridgeEvents: Record<EventMethodName, EventChannel> = {
  onServerState: 'server:state',
  onServerLog: 'server:log',
  onServerOrphans: 'server:orphans',
  onRunUpdate: 'run:update',
  onTelemetry: 'telemetry',
  onSessionMeta: 'session:meta',
  onNotice: 'notice',
  onMenu: 'menu',
};

/** Channel prefixes the preload namespaces with, so a page cannot reach other ipc channels. */
export const IPC_PREFIX = 'speedmatrix:';

/** Links the app may open in the user's browser; everything else is refused. */
export const EXTERNAL_ALLOWLIST = ['https://github.com/', 'https://docs.vllm.ai/', 'https://huggingface.co/'];

