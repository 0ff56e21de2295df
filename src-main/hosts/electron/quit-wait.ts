/**
 * Quitting waits for the core to stop the run and the server, but not without end: a server that
 * ignores its stop (or a host that no longer answers) would freeze the quit for as long as the
 * supervisor's own limit. After QUIT_WAIT_MS the person is asked: wait on, or quit now (what is
 * still running is written down and offered for ending at the next start).
 */
import { type BrowserWindow, type MessageBoxOptions, dialog } from 'electron';

export const QUIT_WAIT_MS = 10_000;

const QUESTION: MessageBoxOptions = {
  type: 'warning',
  message: 'SpeedMatrix is still stopping the server.',
  detail:
    'It has not stopped yet. Wait for it, or quit now: a server still running is listed at the next start, where you can end it.',
  buttons: ['Wait', 'Quit Now'],
  defaultId: 0,
  cancelId: 0,
  noLink: true,
};

/** Resolves once `stopping` settles, or once the person chose Quit Now after a wait of `waitMs` (asked again after each wait). */
export async function waitOrAsk(
  stopping: Promise<unknown>,
  win: () => BrowserWindow | null,
  waitMs = QUIT_WAIT_MS,
): Promise<void> {
  let done = false;
  const settled = stopping.then(
    () => (done = true),
    () => (done = true),
  );
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([settled, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
    if (done) return;
    const closeBox = new AbortController();
    void settled.then(() => closeBox.abort());
    const w = win();
    const o = { ...QUESTION, signal: closeBox.signal };
    const { response } = await (w && !w.isDestroyed() ? dialog.showMessageBox(w, o) : dialog.showMessageBox(o));
    if (done || response === 1) return;
  }
}
