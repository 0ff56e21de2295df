/**
 * Unsaved results are never lost without asking: before quitting, or before a file opened from
 * main (Open Recent, a second launch, the command line, macOS open-file) replaces them. The
 * person answers first; only then is a run stopped (its journal holds every finished cell)
 * and, if they chose to, the session saved.
 */
import { type BrowserWindow, dialog } from 'electron';
import type { AppCore } from '../app-core';
import { CANCELLED, type Notice } from '#shared/ipc/contract';

type UnsavedChoice = 'save' | 'discard' | 'cancel';

/** Quitting (Cmd+Q, File > Quit, closing the window), or opening the named file. */
export type LeaveReason = { kind: 'quit' } | { kind: 'open'; name: string };

const BUTTONS = ['Save…', "Don't Save", 'Cancel'];
const CHOICES: UnsavedChoice[] = ['save', 'discard', 'cancel'];

export async function askAboutUnsaved(
  win: BrowserWindow | null,
  reason: LeaveReason,
  running: boolean,
): Promise<UnsavedChoice> {
  const what = running ? 'A run is in progress and its results are not saved.' : 'The open results are not saved.';
  const message =
    reason.kind === 'quit' ? `${what} Save them before quitting?` : `${what} Save them before opening ${reason.name}?`;
  const detail = running
    ? 'The run stops either way once you answer; every finished cell is kept. Cancel keeps it running.'
    : "If you don't save, they are lost.";
  const opts = {
    type: 'question' as const,
    buttons: BUTTONS,
    defaultId: 0,
    cancelId: 2,
    noLink: true,
    message,
    detail,
  };
  const { response } =
    win && !win.isDestroyed() ? await dialog.showMessageBox(win, opts) : await dialog.showMessageBox(opts);
  return CHOICES[response] ?? 'cancel';
}

interface SettleDeps {
  ask(reason: LeaveReason, running: boolean): Promise<UnsavedChoice>;
  notify(n: Notice): void;
}

/**
 * Make it safe to drop the open results: true when nothing is unsaved, or once the person
 * chose Don't Save, or Save and the save succeeded. False leaves everything as it was, except
 * a run the person agreed to stop.
 */
export async function settleUnsaved(core: AppCore, reason: LeaveReason, d: SettleDeps): Promise<boolean> {
  const running = core.runInProgress();
  if (!running && !core.hasUnsavedChanges()) return true;
  const choice = await d.ask(reason, running);
  if (choice === 'cancel') return false;
  if (running) {
    const stopped = await core.invoke('run:stop', []);
    if (!stopped.ok) d.notify({ level: 'error', message: stopped.error });
  }
  if (choice === 'discard' || !core.hasUnsavedChanges()) return true;
  const saved = await core.invoke('session:save', []);
  if (saved.ok) return true;
  if (saved.error !== CANCELLED) d.notify({ level: 'error', message: saved.error });
  return false;
}
