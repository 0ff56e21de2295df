/**
 * What goes into a results site: every session file, sweep folder variant and importable
 * result under the folders given. Session files and llm-inference-bench results that fail to
 * read become rows with their error; other files that are not results are passed over and
 * counted. See docs/site.md.
 */
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { SESSION_EXTENSION } from '#shared/session/schema';
import { SWEEP_MANIFEST, readManifest } from '../sweep/manifest';

export interface SiteSource {
  /** Absolute path of the file. */
  file: string;
  /** The path as a person recognises it: relative to the folder given, with that folder's name. */
  shown: string;
  /** The sweep variant's label, for a run that is part of a sweep. */
  variant: string | null;
  /** A file that must be a result: a session file, a sweep's variant, results named so. */
  expected: boolean;
  /** Why the file is known to be unusable before reading it (a sweep variant's missing file). */
  problem: string | null;
}

export interface FoundSources {
  sources: SiteSource[];
  /** Folders given that do not exist or cannot be read, with why. */
  problems: string[];
}

/** Files that may be other tools' results: tried as imports, skipped quietly if they are not. */
const MAYBE_RESULTS = /\.(json|md|txt)$/i;
/** Files that claim to be results: a failure to read them is listed, not passed over. */
const NAMED_RESULTS = /benchmark_results.*\.json$/i;
const SKIP_FOLDERS = new Set(['node_modules', '.git']);

interface Walk {
  root: string;
  skip: ReadonlySet<string>;
  out: SiteSource[];
}

const shownPath = (w: Walk, file: string): string => join(basename(w.root), relative(w.root, file));

async function walkSweep(w: Walk, dir: string): Promise<Set<string>> {
  const m = await readManifest(dir);
  if (!m.ok) {
    w.out.push({
      file: join(dir, SWEEP_MANIFEST),
      shown: shownPath(w, join(dir, SWEEP_MANIFEST)),
      variant: null,
      expected: true,
      problem: m.error,
    });
    return new Set();
  }
  for (const v of m.data.variants) {
    // A variant that never started or failed to start has no measurements to show.
    if (v.state === 'pending' || v.state === 'failed') continue;
    const file = join(dir, v.file);
    const problem = existsSync(file) ? null : `${v.file} is missing from the sweep folder.`;
    w.out.push({ file, shown: shownPath(w, file), variant: v.label, expected: true, problem });
  }
  return new Set(m.data.variants.map((v) => v.file));
}

/**
 * A session's own report beside it (`run.md`, `run.txt` next to `run.speedmatrix.json`, as
 * `report` names them): the same run again, not another one to import.
 */
function isOwnReport(name: string, names: ReadonlySet<string>): boolean {
  const m = /^(.+)\.(md|txt)$/i.exec(name);
  return m !== null && names.has(`${m[1]}${SESSION_EXTENSION}`);
}

async function walk(w: Walk, dir: string): Promise<void> {
  if (w.skip.has(resolve(dir))) return;
  const entries = await readdir(dir, { withFileTypes: true });
  const names = new Set(entries.map((e) => e.name));
  const variants = names.has(SWEEP_MANIFEST) ? await walkSweep(w, dir) : new Set<string>();
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_FOLDERS.has(e.name) && !e.name.startsWith('.')) await walk(w, path);
      continue;
    }
    if (!e.isFile() || variants.has(e.name) || e.name === SWEEP_MANIFEST) continue;
    if (isOwnReport(e.name, names)) continue;
    const session = e.name.endsWith(SESSION_EXTENSION);
    if (!session && !MAYBE_RESULTS.test(e.name)) continue;
    w.out.push({
      file: path,
      shown: shownPath(w, path),
      variant: null,
      expected: session || NAMED_RESULTS.test(e.name),
      problem: null,
    });
  }
}

/** Why a folder given (or a folder under it) cannot be read, in one line naming it. */
export function unreadableRoot(root: string, e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const under = err.path && resolve(err.path) !== resolve(root) ? ` (${err.path})` : '';
  if (err.code === 'ENOENT') return `${root}: no such file or folder${under}`;
  if (err.code === 'EACCES' || err.code === 'EPERM') return `${root}: cannot be read${under}: permission denied`;
  return `${root}: ${err.message}`;
}

/** Every candidate under `roots` (folders or single files), leaving out the site's own folder. */
export async function findSiteSources(roots: readonly string[], siteDir: string): Promise<FoundSources> {
  const sources: SiteSource[] = [];
  const problems: string[] = [];
  for (const root of roots) {
    const abs = resolve(root);
    try {
      const info = await stat(abs);
      if (info.isFile())
        sources.push({ file: abs, shown: basename(abs), variant: null, expected: true, problem: null });
      else await walk({ root: abs, skip: new Set([resolve(siteDir)]), out: sources }, abs);
    } catch (e) {
      problems.push(unreadableRoot(root, e));
    }
  }
  return { sources, problems };
}
