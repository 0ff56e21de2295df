/**
 * ipcMain side of the contract: one handler per invoke channel, each checking that the
 * message comes from our own page before the core validates its arguments; and every core
 * event forwarded to the window.
 */
import { type BrowserWindow, type WebFrameMain, ipcMain } from 'electron';
import type { AppCore } from '../core';
import { EVENT_CHANNELS, IPC_PREFIX, type InvokeChannel, invokeArgs } from '../../src-shared/ipc/contract';

/** Our page only: the built renderer file, or the dev server electron-vite started. */
export function isTrustedFrame(frame: WebFrameMain | null | undefined, rendererUrl: string): boolean {
  if (!frame) return false;
  try {
    const url = new URL(frame.url);
    const ours = new URL(rendererUrl);
    if (ours.protocol === 'file:') return url.protocol === 'file:' && url.pathname === ours.pathname;
    return url.origin === ours.origin;
  } catch {
    return false;
  }
}

export function registerIpc(core: AppCore, window: () => BrowserWindow | null, rendererUrl: string): () => void {
  const channels = Object.keys(invokeArgs) as InvokeChannel[];
  for (const channel of channels) {
    ipcMain.handle(IPC_PREFIX + channel, (event, ...args: unknown[]) => {
      if (!isTrustedFrame(event.senderFrame, rendererUrl)) {
        return { ok: false, error: 'Refused: this message did not come from the SpeedMatrix window.' };
      }
      return core.invoke(channel, args);
    });
  }
  const offs = EVENT_CHANNELS.map((channel) =>
    core.on(channel, (payload) => {
      const win = window();
      if (win && !win.isDestroyed()) win.webContents.send(IPC_PREFIX + channel, payload);
    }),
  );
  return () => {
    for (const channel of channels) ipcMain.removeHandler(IPC_PREFIX + channel);
    for (const off of offs) off();
  };
}
