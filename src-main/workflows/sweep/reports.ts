/**
 * A sweep folder's variants read back for its reports and the app's comparison: each variant's
 * session when its file reads, else why not (the server's root cause, or what is wrong with
 * the file). See docs/sweeps.md.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ComparisonEntryView } from '#shared/ipc/contract';
import type { SweepEntry } from '#shared/report/sweep-model';
import { readSessionFile } from '../../platform/session/read';
import { writeFileAtomic } from '../../platform/session/write';
import { renderSweepHtml, renderSweepMarkdown } from '../report/sweep';
import type { SweepManifest, VariantState } from './manifest';

interface SweepFolderEntry {
  entry: SweepEntry;
  state: ComparisonEntryView['state'];
  /** The session file's path, when it was read. */
  file: string | null;
}

/** One variant's entry: its session when the file reads, else why not (root cause or file problem). */
async function variantEntry(dir: string, v: VariantState): Promise<SweepFolderEntry> {
  const variant = { settings: v.settings, label: v.label, slug: v.slug };
  const base = { variant, file: v.file, session: null, failure: null };
  if (v.state === 'failed')
    return { entry: { ...base, failure: v.failure ?? 'its server did not start' }, state: 'failed', file: null };
  const file = join(dir, v.file);
  if (!existsSync(file)) {
    if (v.state === 'pending') return { entry: base, state: 'pending', file: null };
    return {
      entry: { ...base, unreadable: `${v.file} is missing from the sweep folder.` },
      state: 'unusable',
      file: null,
    };
  }
  const read = await readSessionFile(file);
  if (!read.ok) {
    const where = read.error.path ? ` (at ${read.error.path})` : '';
    return { entry: { ...base, unreadable: `${read.error.message}${where}` }, state: 'unusable', file: null };
  }
  return { entry: { ...base, session: read.data }, state: v.state, file };
}

/** Every variant of the sweep, in its order. */
export function readSweepEntries(dir: string, manifest: SweepManifest): Promise<SweepFolderEntry[]> {
  return Promise.all(manifest.variants.map((v) => variantEntry(dir, v)));
}

/**
 * sweep.md and sweep.html from the variants' session files as they are now (the CLI's and the app's sweeps).
 * Each is replaced whole (a rename): on Slurm the last job and the following CLI may both write them at
 * once, and a reader must never see a file cut short.
 */
export async function writeSweepReports(dir: string, m: SweepManifest): Promise<void> {
  const entries = (await readSweepEntries(dir, m)).map((r) => r.entry);
  for (const [name, text] of [
    ['sweep.md', renderSweepMarkdown(entries)],
    ['sweep.html', renderSweepHtml(entries)],
  ] as const) {
    const saved = await writeFileAtomic(join(dir, name), text);
    if (!saved.ok) throw new Error(saved.error);
  }
}
