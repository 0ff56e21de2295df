/** Native file dialogs for the core's open/save/export paths, and main's own questions before it spawns a command. */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  type BrowserWindow,
  type MessageBoxOptions,
  type OpenDialogOptions,
  type SaveDialogOptions,
  dialog,
} from 'electron';
import {
  type CommandToConfirm,
  type ConfirmCommands,
  type Dialogs,
  type SaveKind,
  withSaveExtension,
} from '../app-core';

const FILTERS: Record<SaveKind, { name: string; extensions: string[] }> = {
  session: { name: 'SpeedMatrix session', extensions: ['json'] },
  markdown: { name: 'Markdown', extensions: ['md'] },
  html: { name: 'HTML', extensions: ['html'] },
  pdf: { name: 'PDF', extensions: ['pdf'] },
  csv: { name: 'CSV, one row per decode cell', extensions: ['csv'] },
  jsonl: { name: 'JSON Lines, one record per request', extensions: ['jsonl'] },
};

/** Shown over the window when there is one (a sheet on macOS), else on its own. */
function inWindow(window: () => BrowserWindow | null) {
  const win = (): BrowserWindow | null => {
    const w = window();
    return w && !w.isDestroyed() ? w : null;
  };
  return {
    open: (o: OpenDialogOptions) => (win() ? dialog.showOpenDialog(win()!, o) : dialog.showOpenDialog(o)),
    save: (o: SaveDialogOptions) => (win() ? dialog.showSaveDialog(win()!, o) : dialog.showSaveDialog(o)),
    ask: (o: MessageBoxOptions) => (win() ? dialog.showMessageBox(win()!, o) : dialog.showMessageBox(o)),
  };
}

export function electronDialogs(window: () => BrowserWindow | null): Dialogs {
  const d = inWindow(window);
  const openFiles = async (title: string, multi: boolean): Promise<string[] | null> => {
    const r = await d.open({
      title,
      properties: multi ? ['openFile', 'multiSelections'] : ['openFile'],
      filters: [{ name: 'SpeedMatrix session or results', extensions: ['json', 'txt', 'md'] }],
    });
    return r.canceled ? null : r.filePaths;
  };
  return {
    async chooseOpenPath() {
      return (await openFiles('Open a session', false))?.[0] ?? null;
    },
    async chooseOpenPaths() {
      return openFiles('Compare sessions (the first is the baseline)', true);
    },
    async chooseTraceFile() {
      const r = await d.open({
        title: 'Replay a trace',
        properties: ['openFile'],
        filters: [{ name: 'Trace (JSON Lines: Mooncake format)', extensions: ['jsonl', 'json', 'txt'] }],
      });
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
    async chooseFolder(title = 'Sweep folder') {
      // One dialog for a sweep folder to open, the (empty) folder a new sweep goes to, and a
      // results site's folders, which the person may make there and then (createDirectory:
      // macOS; promptToCreate: Windows).
      const r = await d.open({
        title,
        properties: ['openDirectory', 'createDirectory', 'promptToCreate'],
      });
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
    async chooseSavePath(defaultName, kind, folder) {
      const r = await d.save({
        title: kind === 'session' ? 'Save the session' : `Export ${kind}`,
        defaultPath: folder ? join(folder, defaultName) : defaultName,
        filters: [FILTERS[kind]],
        // GTK asks about replacing a file only when told to; macOS and Windows always do.
        properties: ['showOverwriteConfirmation', 'createDirectory'],
      });
      if (r.canceled || !r.filePath) return null;
      const file = withSaveExtension(r.filePath, kind);
      // The dialog asked about the name typed; with the extension added it is another file.
      if (file !== r.filePath && existsSync(file) && !(await confirmReplace(d.ask, file))) return null;
      return file;
    },
  };
}

async function confirmReplace(ask: ReturnType<typeof inWindow>['ask'], file: string): Promise<boolean> {
  const { response } = await ask({
    type: 'warning',
    message: `${basename(file)} already exists. Replace it?`,
    detail: `It is in ${dirname(file)}. Replacing it overwrites what it holds.`,
    buttons: ['Replace', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
  });
  return response === 0;
}

/** One argument per line, quoted as JSON so that spaces, quotes and control characters show. */
export function describeCommands(commands: CommandToConfirm[]): string {
  return commands
    .map((c) => {
      const env = Object.entries(c.env).map(([k, v]) => `  ${k}=${JSON.stringify(v)}`);
      return [
        `${c.label}:`,
        'Command (one argument per line):',
        ...c.argv.map((a) => `  ${JSON.stringify(a)}`),
        env.length ? 'Added to the environment:' : 'Nothing added to the environment.',
        ...env,
      ].join('\n');
    })
    .join('\n\n');
}

/** Main's own question before it spawns a command line the page gave, or a sweep folder names. */
export function electronConfirmCommands(window: () => BrowserWindow | null): ConfirmCommands {
  const { ask } = inWindow(window);
  return async (why, commands) => {
    const { response } = await ask({
      type: 'warning',
      title: 'Run a command',
      message: why,
      detail: `SpeedMatrix will run exactly this, as you:\n\n${describeCommands(commands)}`,
      buttons: ['Run', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      noLink: true,
    });
    return response === 0;
  };
}
