/**
 * `speedmatrix site`: a static results site from folders of sessions, sweeps and importable
 * results. Each run gets its HTML report (html.ts, with a link back), its file for download
 * and a data file for the in-browser comparison; the index lists every run. A manifest in the
 * site folder records what the site wrote, so a rebuild redoes only what changed, removes the
 * pages of runs that are gone and never touches a file it did not write. See docs/site.md.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { type Result, fail, ok } from '#shared/result';
import type { Session } from '#shared/session/schema';
import { type SiteRun, siteRunOf, unreadableRun } from '#shared/report/site-index';
import { APP_VERSION } from '../../platform/runtime/app-version';
import { writeFileAtomic } from '../../platform/session/write';
import { renderHtmlReport } from '../report/html';
import { siteScript } from './script-bundle';
import {
  COMPARE_PAGE,
  INDEX_PAGE,
  RUNS_FOLDER,
  RUN_DATA,
  RUN_PAGE,
  SITE_SCRIPT,
  renderCompareShell,
  renderSiteIndex,
  siteNav,
} from './pages';
import { type SiteSource, findSiteSources } from './sources';

export { unreadableRoot } from './sources';

export const SITE_MANIFEST = '.speedmatrix-site.json';
const SITE_FORMAT = 'speedmatrix-site';

interface ManifestRun {
  /** The source file's size, time and the builder's version: unchanged means nothing to redo. */
  signature: string;
  row: SiteRun;
  /** Files written for the run, relative to the site folder. */
  files: string[];
}

interface SiteManifest {
  format: typeof SITE_FORMAT;
  formatVersion: 1;
  runs: Record<string, ManifestRun>;
}

export interface SiteBuild {
  runs: SiteRun[];
  /** Runs whose pages were written this time, kept as they were, and removed as gone. */
  written: number;
  kept: number;
  removed: number;
  /** Files under the folders that are not results (passed over). */
  passedOver: number;
}

/** A run's folder name: readable from the file name, unique by the file's full path. */
export function runIdOf(file: string): string {
  const stem = basename(file)
    .replace(/\.speedmatrix\.json$/i, '')
    .replace(/\.[^.]+$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  const hash = createHash('sha256').update(resolve(file)).digest('hex').slice(0, 10);
  return `${stem || 'run'}-${hash}`;
}

async function readSiteManifest(out: string): Promise<Result<SiteManifest | null>> {
  const file = join(out, SITE_MANIFEST);
  if (!existsSync(file)) {
    const entries = existsSync(out) ? await readdir(out) : [];
    if (entries.length)
      return fail(
        `${out} already holds other files and is not a SpeedMatrix site (no ${SITE_MANIFEST}); choose an empty or new folder for the site.`,
      );
    return ok(null);
  }
  try {
    const m = JSON.parse(await readFile(file, 'utf8')) as SiteManifest;
    if (m.format !== SITE_FORMAT) throw new Error('not a site manifest');
    return ok(m);
  } catch (e) {
    return fail(`${file} cannot be read (${(e as Error).message}); remove the site folder and build it again.`);
  }
}

/** A path the manifest names, only when it stays inside the site folder. */
function inside(out: string, rel: string): string | null {
  const abs = resolve(out, rel);
  return abs.startsWith(resolve(out) + sep) ? abs : null;
}

async function removeFiles(out: string, files: readonly string[]): Promise<void> {
  for (const rel of files) {
    const abs = inside(out, rel);
    if (!abs) continue;
    await rm(abs, { force: true });
    // The run's folder goes too once empty; one holding someone else's files stays.
    await rmdir(dirname(abs)).catch(() => undefined);
  }
}

async function signatureOf(file: string): Promise<string> {
  try {
    const s = await stat(file);
    return `${s.size}:${s.mtimeMs}:${APP_VERSION}`;
  } catch {
    return `missing:${APP_VERSION}`;
  }
}

/** The run's page, its file for download and its data for comparisons. */
async function writeRun(out: string, id: string, source: SiteSource, session: Session): Promise<string[]> {
  const dir = join(RUNS_FOLDER, id);
  await mkdir(join(out, dir), { recursive: true });
  const download = basename(source.file);
  const page = renderHtmlReport(session, {}, { nav: siteNav(2, { href: download, name: download }) });
  await writeFile(join(out, dir, RUN_PAGE), page);
  await copyFile(source.file, join(out, dir, download));
  // A script, not JSON: browsers load scripts from file:// but refuse fetch() there.
  await writeFile(join(out, dir, RUN_DATA), `speedmatrixSiteRun(${JSON.stringify(id)},${JSON.stringify(session)});\n`);
  return [RUN_PAGE, download, RUN_DATA].map((f) => join(dir, f).split(sep).join('/'));
}

type RunOutcome = { run: ManifestRun; wrote: boolean } | null;

/**
 * Reads a session file or imports another tool's results (importers/open.ts). Passed in by the
 * caller: the importers sit above the reports (they unescape report text).
 */
export type OpenRun = (file: string) => Promise<Result<Session>>;

async function buildRun(
  out: string,
  source: SiteSource,
  old: ManifestRun | undefined,
  open: OpenRun,
): Promise<RunOutcome> {
  const id = runIdOf(source.file);
  const signature = await signatureOf(source.file);
  if (old && old.signature === signature && old.files.every((f) => existsSync(join(out, f))))
    return { run: old, wrote: false };
  const where = { id, source: source.shown };
  const opened: Result<Session> = source.problem ? fail(source.problem) : await open(source.file);
  if (!opened.ok && !source.expected) return null;
  if (old) await removeFiles(out, old.files);
  if (!opened.ok) return { run: { signature, row: unreadableRun(where, opened.error), files: [] }, wrote: true };
  const files = await writeRun(out, id, source, opened.data);
  const row = siteRunOf(opened.data, { ...where, download: basename(source.file), variant: source.variant });
  return { run: { signature, row, files }, wrote: true };
}

/** Newest first; unreadable files at the end. */
function byDate(a: SiteRun, b: SiteRun): number {
  if (!!a.error !== !!b.error) return a.error ? 1 : -1;
  return b.createdAt.localeCompare(a.createdAt) || a.source.localeCompare(b.source);
}

export async function buildSite(roots: readonly string[], outDir: string, open: OpenRun): Promise<Result<SiteBuild>> {
  const out = resolve(outDir);
  const manifest = await readSiteManifest(out);
  if (!manifest.ok) return manifest;
  const old = manifest.data?.runs ?? {};
  // Every folder given is read before anything is written or removed: a mistyped one would
  // otherwise remove the pages of the runs it holds.
  const found = await findSiteSources(roots, out);
  if (found.problems.length) return fail(found.problems.join('; '));
  try {
    await mkdir(out, { recursive: true });
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'EROFS' ? 'the file system is read-only' : 'permission denied';
    return fail(`cannot write in ${out}: ${why}; choose another folder for the site.`);
  }
  const runs: Record<string, ManifestRun> = {};
  let written = 0;
  let passedOver = 0;
  for (const source of found.sources) {
    const id = runIdOf(source.file);
    if (runs[id]) continue; // the same file reached through two of the folders given
    const done = await buildRun(out, source, old[id], open);
    if (!done) passedOver++;
    else {
      runs[id] = done.run;
      if (done.wrote) written++;
    }
  }
  const gone = Object.keys(old).filter((id) => !runs[id]);
  for (const id of gone) await removeFiles(out, old[id].files);
  const rows = Object.values(runs)
    .map((r) => r.row)
    .sort(byDate);
  await writeFile(join(out, SITE_SCRIPT), await siteScript());
  await writeFile(join(out, COMPARE_PAGE), renderCompareShell());
  await writeFile(join(out, INDEX_PAGE), renderSiteIndex(rows));
  const next: SiteManifest = { format: SITE_FORMAT, formatVersion: 1, runs };
  const saved = await writeFileAtomic(join(out, SITE_MANIFEST), `${JSON.stringify(next)}\n`);
  if (!saved.ok) return fail(saved.error);
  return ok({
    runs: rows,
    written,
    kept: Object.keys(runs).length - written,
    removed: gone.length,
    passedOver,
  });
}
