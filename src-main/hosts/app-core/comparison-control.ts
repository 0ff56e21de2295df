/**
 * Comparisons in the app: a sweep folder (its sweep.json and one session file per variant) or
 * two or more session files, read into the same sweep and comparison models the CLI's
 * sweep.md / compare reports print, and exported through the same renderers. Plain Node.
 * See docs/sweeps.md.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ComparisonEntryView, ComparisonView, SweepJobView } from '#shared/ipc/contract';
import type { ComparisonFormat } from '#shared/ipc/forms';
import { loadMixRefusal } from '#shared/report/load-compare';
import { type SweepEntry, buildSweepModel, sweepComparison } from '#shared/report/sweep-model';
import type { Session } from '#shared/session/schema';
import { openSessionOrImport } from '../../workflows/importers/open';
import { renderCompareHtml, renderCompareMarkdown } from '../../workflows/report/compare';
import { renderSweepHtml, renderSweepMarkdown } from '../../workflows/report/sweep';
import { writeFileAtomic } from '../../platform/session/write';
import { readSweepEntries } from '../../workflows/sweep/reports';
import { SWEEP_MANIFEST, readManifest } from '../../workflows/sweep/manifest';
import { cancelSweep, slurmStatus } from '../../workflows/sweep/slurm-sweep';
import { type Dialogs, withSaveExtension } from './session-control';
import { CancelledError, UserError } from './user-error';
import type { GpuPrice } from '#shared/report/price';
import { type PrintPdf, printedPdf } from './print-pdf';

/** What is open: the entries the models are built from, kept so an export renders the same thing. */
interface Opened {
  source: ComparisonView['source'];
  dir: string | null;
  entries: SweepEntry[];
  states: ComparisonEntryView['state'][];
  files: (string | null)[];
  /** A Slurm sweep's jobs, one per entry, and why they could not be asked. */
  jobs?: SweepJobView[];
  jobsProblem?: string | null;
}

const EXT: Record<ComparisonFormat, string> = { markdown: '.md', html: '.html', pdf: '.pdf' };

/** A file given for a sweep (its sweep.json, a variant's session: a drop, a file dialog) stands for its folder. */
function sweepDirOf(path: string): string {
  const full = resolve(path);
  return !isDir(full) && existsSync(join(dirname(full), SWEEP_MANIFEST)) ? dirname(full) : full;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class ComparisonControl {
  private opened: Opened | null = null;

  constructor(
    private readonly dialogs: Dialogs | null,
    /** Prints the comparison's HTML as a PDF (the app's Chromium); none: PDF is refused with a reason. */
    private readonly printPdf?: PrintPdf,
  ) {}

  /**
   * A sweep folder (or a file in it, such as its sweep.json): every variant, with the failed and
   * unreadable ones said in place. A folder of results with no sweep.json (sessions, other tools'
   * results: whatever Open takes) is compared file by file, in name order.
   */
  async openSweep(path?: string): Promise<ComparisonView> {
    const chosen = path ?? (await this.ask(() => this.dialogs?.chooseFolder?.(), 'Opening a sweep needs its folder.'));
    // What fails to open replaces what was open, as the page shows it: an export never writes a comparison out of view.
    this.opened = null;
    const dir = sweepDirOf(chosen);
    if (!existsSync(join(dir, SWEEP_MANIFEST)) && isDir(dir)) return this.openFolderOfResults(dir);
    if (!isDir(dir) && existsSync(dir))
      throw new UserError(
        `${basename(dir)} is one results file, and its folder holds no ${SWEEP_MANIFEST}: open it with Open…, or compare it with others with Compare Sessions….`,
      );
    const manifest = await readManifest(dir);
    if (!manifest.ok) throw new UserError(manifest.error);
    if (manifest.data.variants.length === 0) throw new UserError(`${dir}: the sweep lists no variants.`);
    // A Slurm sweep: the jobs' outcomes are folded into sweep.json first, so the entries read what they measured.
    const jobs = manifest.data.slurm ? await slurmStatus(dir, manifest.data) : null;
    const read = await readSweepEntries(dir, manifest.data);
    this.opened = {
      source: 'sweep',
      dir,
      entries: read.map((r) => r.entry),
      states: read.map((r) => r.state),
      files: read.map((r) => r.file),
      ...(jobs && {
        jobs: jobs.ok
          ? jobs.data.variants.map(({ jobId, state, reason, node, logTail }) => ({
              id: jobId,
              state,
              reason,
              node,
              logTail,
            }))
          : [],
        jobsProblem: jobs.ok ? null : jobs.error,
      }),
    };
    return this.view() as ComparisonView;
  }

  /** Cancel the open Slurm sweep's waiting and running jobs (the page has asked), then read it again. */
  async cancelJobs(): Promise<ComparisonView> {
    const dir = this.opened?.source === 'sweep' ? this.opened.dir : null;
    if (!dir) throw new UserError('There is no sweep open whose jobs could be cancelled.');
    const manifest = await readManifest(dir);
    if (!manifest.ok) throw new UserError(manifest.error);
    if (!manifest.data.slurm) throw new UserError(`${dir} is not a Slurm sweep: it has no jobs to cancel.`);
    const cancelled = await cancelSweep(dir, manifest.data);
    if (!cancelled.ok) throw new UserError(cancelled.error);
    return this.openSweep(dir);
  }

  /**
   * A folder with no sweep.json: each file in it that Open takes, in name order, the first the
   * baseline; the files that do not open are left out, and named when fewer than two remain.
   */
  private async openFolderOfResults(dir: string): Promise<ComparisonView> {
    const names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
    const opened: { file: string; session: Session }[] = [];
    const refused: string[] = [];
    for (const name of names) {
      const s = await openSessionOrImport(join(dir, name));
      if (s.ok) opened.push({ file: join(dir, name), session: s.data });
      else refused.push(`${name}: ${s.error}`);
    }
    if (opened.length < 2)
      throw new UserError(
        `${dir} is not a sweep folder: it has no ${SWEEP_MANIFEST}, and ${opened.length === 0 ? 'no file' : 'only one file'} in it opens as results (a comparison needs two).${refused.length ? ` Not results: ${refused.join('; ')}` : ''}`,
      );
    return this.compare(
      opened.map((o) => o.file),
      opened.map((o) => o.session),
      dir,
    );
  }

  /** Two or more session files (or other tools' results), the first the baseline; any unreadable one refuses all. */
  async openSessions(paths?: string[]): Promise<ComparisonView> {
    const files =
      paths ??
      (await this.ask(() => this.dialogs?.chooseOpenPaths?.(), 'Comparing needs the session files to compare.'));
    this.opened = null;
    if (files.length < 2) throw new UserError('Choose two or more session files to compare.');
    const sessions: Session[] = [];
    for (const f of files) {
      const s = await openSessionOrImport(f);
      if (!s.ok) throw new UserError(`${basename(f)} cannot be compared: ${s.error}`);
      sessions.push(s.data);
    }
    return this.compare(files, sessions, null);
  }

  /** Sessions read from `files` compared, the first the baseline. */
  private compare(files: string[], sessions: Session[], dir: string | null): ComparisonView {
    const mixed = loadMixRefusal(
      sessions,
      files.map((f) => basename(f)),
    );
    if (mixed) throw new UserError(mixed);
    this.opened = {
      source: 'sessions',
      dir,
      entries: sessions.map((session, i) => ({
        variant: { settings: [], label: basename(files[i]) },
        file: basename(files[i]),
        session,
        failure: null,
      })),
      states: sessions.map(() => 'done'),
      files: files.map((f) => resolve(f)),
    };
    return this.view() as ComparisonView;
  }

  view(): ComparisonView | null {
    const o = this.opened;
    if (!o) return null;
    const sweep = buildSweepModel(o.entries, o.source === 'sweep' ? 'sweep' : 'sessions');
    return {
      source: o.source,
      dir: o.dir,
      title:
        o.source === 'sweep'
          ? `Sweep of ${o.entries.length} launch variants`
          : `Comparison of ${o.entries.length} sessions`,
      entries: o.entries.map((e, i) => ({
        label: sweep.labels[i],
        name: e.variant.label || '(as given)',
        file: o.files[i],
        state: o.states[i],
        problem: e.failure ?? e.unreadable ?? null,
        ...(o.jobs?.[i] && { job: o.jobs[i] }),
      })),
      ...(o.jobs && { jobsProblem: o.jobsProblem ?? null }),
      sweep,
      comparison: sweepComparison(o.entries, sweep),
    };
  }

  /** The open comparison as the CLI writes it: sweep.md / sweep.html for a sweep, `compare` for files. */
  render(format: 'markdown' | 'html', gpuPrice: GpuPrice | null = null): string {
    const o = this.opened;
    if (!o) throw new UserError('There is no comparison to export: open a sweep folder or compare sessions first.');
    if (o.source === 'sweep') return format === 'html' ? renderSweepHtml(o.entries) : renderSweepMarkdown(o.entries);
    const sessions = o.entries.map((e) => e.session as Session);
    return format === 'html'
      ? renderCompareHtml(sessions, {}, { gpuPrice })
      : renderCompareMarkdown(sessions, { gpuPrice });
  }

  async export(format: ComparisonFormat, path?: string, gpuPrice: GpuPrice | null = null): Promise<{ file: string }> {
    const html = () => this.render('html', gpuPrice);
    const data = format === 'pdf' ? await printedPdf(this.printPdf, html()) : this.render(format, gpuPrice);
    let file = path;
    if (!file && this.dialogs) {
      const chosen = await this.dialogs.chooseSavePath(this.defaultName(format), format, this.opened?.dir ?? null);
      if (!chosen) throw new CancelledError();
      file = chosen;
    }
    if (!file) throw new UserError('Exporting needs a path here: there is no file dialog.');
    file = withSaveExtension(file, format);
    const res = await writeFileAtomic(file, data);
    if (!res.ok) throw new UserError(res.error);
    return { file };
  }

  private defaultName(format: ComparisonFormat): string {
    const o = this.opened;
    const stem = o?.dir ? `${basename(o.dir)}-comparison` : 'comparison';
    return `${stem}${EXT[format]}`;
  }

  private async ask<T>(pick: () => Promise<T | null> | undefined, noDialog: string): Promise<T> {
    const p = pick();
    if (!p) throw new UserError(`${noDialog} There is no file dialog here.`);
    const chosen = await p;
    if (chosen === null) throw new CancelledError();
    return chosen;
  }
}
