/**
 * The files and folders the person picked, outside the page's reach: main's own dialogs, the
 * OS's open-file, the command line, a second launch, a drop the preload resolved (docs/ipc.md).
 * In the app, a path the page names is opened or rewritten only when picked (index.ts).
 */
import { resolve } from 'node:path';
import type { Dialogs } from './session-control';

export class PickedPaths {
  private readonly paths = new Set<string>();

  add(path: string): void {
    this.paths.add(resolve(path));
  }

  has(path: string): boolean {
    return this.paths.has(resolve(path));
  }

  /** These dialogs, each answer remembered as picked. */
  recording(dialogs: Dialogs): Dialogs {
    const one = async (p: Promise<string | null>) => {
      const chosen = await p;
      if (chosen) this.add(chosen);
      return chosen;
    };
    const { chooseFolder, chooseOpenPaths, chooseTraceFile } = dialogs;
    return {
      chooseOpenPath: () => one(dialogs.chooseOpenPath()),
      chooseSavePath: (name, kind, folder) => one(dialogs.chooseSavePath(name, kind, folder)),
      ...(chooseFolder && { chooseFolder: (title) => one(chooseFolder.call(dialogs, title)) }),
      ...(chooseTraceFile && { chooseTraceFile: () => one(chooseTraceFile.call(dialogs)) }),
      ...(chooseOpenPaths && {
        chooseOpenPaths: async () => {
          const chosen = await chooseOpenPaths.call(dialogs);
          for (const f of chosen ?? []) this.add(f);
          return chosen;
        },
      }),
    };
  }
}
