/** Native file dialogs for the core's open/save/export paths. */
import { type BrowserWindow, dialog } from 'electron';
import type { Dialogs } from '../core';

const FILTERS: Record<'session' | 'markdown' | 'html' | 'pdf', { name: string; extensions: string[] }> = {
  session: { name: 'SpeedMatrix session', extensions: ['json'] },
  markdown: { name: 'Markdown', extensions: ['md'] },
  html: { name: 'HTML', extensions: ['html'] },
  pdf: { name: 'PDF', extensions: ['pdf'] },
};

export function electronDialogs(window: () => BrowserWindow | null): Dialogs {
  return {
    async chooseOpenPath() {
      const win = window();
      const opts = {
        title: 'Open a session',
        properties: ['openFile' as const],
        filters: [{ name: 'SpeedMatrix session or results', extensions: ['json', 'txt', 'md'] }],
      };
      const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
    async chooseFolder(title = 'Sweep folder') {
      const win = window();
      // One dialog for a sweep folder to open, the (empty) folder a new sweep goes to, and a results site's folders.
      const opts = { title, properties: ['openDirectory' as const] };
      const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
    async chooseOpenPaths() {
      const win = window();
      const opts = {
        title: 'Compare sessions (the first is the baseline)',
        properties: ['openFile' as const, 'multiSelections' as const],
        filters: [{ name: 'SpeedMatrix session or results', extensions: ['json', 'txt', 'md'] }],
      };
      const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
      return r.canceled ? null : r.filePaths;
    },
    async chooseSavePath(defaultName, kind) {
      const win = window();
      const opts = {
        title: kind === 'session' ? 'Save the session' : `Export ${kind}`,
        defaultPath: defaultName,
        filters: [FILTERS[kind]],
      };
      const r = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts);
      return r.canceled ? null : (r.filePath ?? null);
    },
  };
}
