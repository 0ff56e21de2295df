/**
 * The sandboxed preload: exposes `window.speedmatrix` with named methods only, generated
 * from the contract's tables. Never the raw ipcRenderer; every subscription strips the
 * Electron event and returns its unsubscribe function.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import {
  DROPPED_FILE_CHANNEL,
  IPC_PREFIX,
  type SpeedMatrixBridge,
  bridgeEvents,
  bridgeMethods,
} from '#shared/ipc/channels';

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
/** A dropped File's path, told to main as picked by the person; a File the page made has none. */
api.pathForFile = async (file: File): Promise<string | null> => {
  let path: string;
  try {
    path = webUtils.getPathForFile(file);
  } catch {
    return null;
  }
  if (!path) return null;
  await ipcRenderer.invoke(DROPPED_FILE_CHANNEL, path);
  return path;
};

contextBridge.exposeInMainWorld('speedmatrix', api as unknown as SpeedMatrixBridge);
