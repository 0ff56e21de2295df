/**
 * File > Publish Site…: the `speedmatrix site` command for the app. Folder dialogs ask for the
 * folder of runs and the site folder when the page gives none. See docs/site.md.
 */
import { join } from 'node:path';
import type { PublishedSite } from '#shared/ipc/contract';
import { openSessionOrImport } from '../../workflows/importers/open';
import { buildSite } from '../../workflows/site/build';
import { INDEX_PAGE } from '../../workflows/site/pages';
import type { Dialogs } from './session-control';
import { CancelledError, UserError } from './user-error';

async function folder(dialogs: Dialogs | null, given: string | undefined, title: string): Promise<string> {
  if (given) return given;
  if (!dialogs?.chooseFolder)
    throw new UserError(`Publishing a site needs ${title.toLowerCase()}: there is no folder dialog here.`);
  const chosen = await dialogs.chooseFolder(title);
  if (chosen === null) throw new CancelledError();
  return chosen;
}

export async function publishSite(dialogs: Dialogs | null, from?: string, to?: string): Promise<PublishedSite> {
  const runs = await folder(dialogs, from, 'The folder of runs to publish');
  const dir = await folder(dialogs, to, 'The folder the site goes to');
  const built = await buildSite([runs], dir, openSessionOrImport);
  if (!built.ok) throw new UserError(built.error);
  const b = built.data;
  return {
    dir,
    index: join(dir, INDEX_PAGE),
    runs: b.runs.length,
    unreadable: b.runs.filter((r) => r.error).length,
    written: b.written,
    kept: b.kept,
    removed: b.removed,
  };
}
