/**
 * ipcMain side of the contract: one handler per invoke channel, each checking that the
 * message comes from our own window's main frame before the core validates its arguments;
 * and every core event forwarded to the window.
 */
import { type BrowserWindow, type IpcMainInvokeEvent, type WebFrameMain, ipcMain } from 'electron';
import type { AppCore } from '../app-core';
import { type InvokeChannel, invokeArgs } from '#shared/ipc/contract';
import { EVENT_CHANNELS, IPC_PREFIX } from '#shared/ipc/channels';
import { DROPPED_FILE_CHANNEL } from '#shared/ipc/channels';

export const REFUSED = 'Refused: this message did not come from the SpeedMatrix window.';

type Sender = Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>;

/**
 * Our page only: the app window's webContents, and its main frame (no child frame, no other
 * window). Checked by identity, not by URL: a file URL's path can differ in drive-letter case
 * on Windows, and a same-URL child frame must not pass.
 */
export function isTrustedSender(event: Sender, win: BrowserWindow | null): boolean {
  if (!win || win.isDestroyed()) return false;
  const wc = win.webContents;
  const frame: WebFrameMain | null | undefined = event.senderFrame;
  if (event.sender !== wc || !frame) return false;
  const main = wc.mainFrame;
  return frame === main || (frame.processId === main.processId && frame.frameToken === main.frameToken);
}

export function registerIpc(core: AppCore, window: () => BrowserWindow | null): () => void {
  const channels = Object.keys(invokeArgs) as InvokeChannel[];
  for (const channel of channels) {
    ipcMain.handle(IPC_PREFIX + channel, (event, ...args: unknown[]) => {
      if (!isTrustedSender(event, window())) return { ok: false, error: REFUSED };
      return core.invoke(channel, args);
    });
  }
  // A drop's path, from the preload (webUtils): the person picked it, so the page may open it.
  ipcMain.handle(DROPPED_FILE_CHANNEL, (event, path: unknown) => {
    if (!isTrustedSender(event, window())) return { ok: false, error: REFUSED };
    if (typeof path !== 'string' || !path || path.length > 4096) return { ok: false, error: 'Not a file path.' };
    core.pick(path);
    return { ok: true, data: true };
  });
  const offs = EVENT_CHANNELS.map((channel) =>
    core.on(channel, (payload) => {
      const win = window();
      if (win && !win.isDestroyed()) win.webContents.send(IPC_PREFIX + channel, payload);
    }),
  );
  return () => {
    for (const channel of channels) ipcMain.removeHandler(IPC_PREFIX + channel);
    ipcMain.removeHandler(DROPPED_FILE_CHANNEL);
    for (const off of offs) off();
  };
}
