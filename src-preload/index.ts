/**
 * The sandboxed preload: exposes `window.speedmatrix` with named methods only, generated
 * from the contract's tables. Never the raw ipcRenderer; every subscription strips the
 * Electron event and returns its unsubscribe function.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { IPC_PREFIX, type SpeedMatrixBridge, bridgeEvents, bridgeMethods } from '#shared/ipc/channels';

const api: Record<string, unknown> = {};
for (const [method, channel] of Object.entries(bridgeMethods)) {
  api[method] = (...args: unknown[]) => ipcRenderer.invoke(IPC_PREFIX + channel, ...args);
}
for (const [method, channel] of Object.entries(bridgeEvents)) {
  api[method] = (cb: (payload: unknown) => void) => {
    const listener = (_event: IpcRendererEvent, payload: unknown) => cb(payload);
    ipcRenderer.on(IPC_PREFIX + channel, listener);
    return () => {
      ipcRenderer.removeListener(IPC_PREFIX + channel, listener);
    };
  };
}
api.pathForFile = (file: File): string | null => {
  try {
    return webUtils.getPathForFile(file) || null;
  } catch {
    return null;
  }
};

contextBridge.exposeInMainWorld('speedmatrix', api as unknown as SpeedMatrixBridge);
