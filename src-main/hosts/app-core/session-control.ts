/**
 * The session the app has open: opened from a file, imported, or measured by a run. It tracks
 * the file it belongs to and unsaved changes; a failed save keeps everything in memory and
 * says so. Every change of content bumps a revision; every change emits 'session:meta'. A
 * replacement of the whole session is marked (`replaced`): the page fetches the session then,
 * and takes a run's cells and prefill points from its run updates (docs/ipc.md).
 */
import { basename, dirname, join } from 'node:path';
import { importFile, importText } from '../../workflows/importers';
import { startsLikeJson } from '../../workflows/importers/open';
import type { CellSamples, SessionMeta, SessionView } from '#shared/ipc/contract';
import type { CellRef } from '#shared/ipc/forms';
import { readSessionFile, parseSessionText } from '../../platform/session/read';
import { type DecodeCell, type PrefillResult, SESSION_EXTENSION, type Session } from '#shared/session/schema';
import { withCell, withPrefill, withoutSamples } from '#shared/session/cells';
import { writeSessionFile } from '../../platform/session/write';
import type { CoreEvents } from './emitter';
import type { RecentFiles } from './recent-files';
import { CancelledError, UserError } from './user-error';
import { hasExtension } from '../../platform/runtime/text';

export type SaveKind = 'session' | 'markdown' | 'html' | 'pdf' | 'csv' | 'jsonl';

const SAVE_EXTENSION: Record<SaveKind, string> = {
  session: SESSION_EXTENSION,
  markdown: '.md',
  html: '.html',
  pdf: '.pdf',
  csv: '.csv',
  jsonl: '.jsonl',
};

/** The file a chosen path writes: the kind's extension added when missing (a session keeps any .json name). */
export function withSaveExtension(path: string, kind: SaveKind): string {
  if (kind === 'session' && hasExtension(path, '.json')) return path;
  return hasExtension(path, SAVE_EXTENSION[kind]) ? path : path + SAVE_EXTENSION[kind];
}

export interface Dialogs {
  /** A path to open, or null when the person cancelled. */
  chooseOpenPath(): Promise<string | null>;
  /**
   * The file to write, its extension already added (withSaveExtension) so that the question
   * about replacing a file is about this very file; null when cancelled. It opens in `folder`
   * (the session's) when given.
   */
  chooseSavePath(defaultName: string, kind: SaveKind, folder?: string | null): Promise<string | null>;
  /**
   * A folder: a sweep to open, the one a new sweep goes to (made if missing), the runs and the
   * folder of a results site; `title` says which. Null when cancelled.
   */
  chooseFolder?(title?: string): Promise<string | null>;
  /** Several files to open together (sessions to compare), or null when cancelled. */
  chooseOpenPaths?(): Promise<string[] | null>;
  /** A trace file to replay (JSON Lines), or null when cancelled. */
  chooseTraceFile?(): Promise<string | null>;
}

export class SessionControl {
  private session: Session | null = null;
  private file: string | null = null;
  private sourceName: string | null = null;
  private dirty = false;
  private revision = 0;
  private replaced = 0;
  private run: number | null = null;
  private saveError: string | null = null;

  constructor(
    private readonly events: CoreEvents,
    private readonly recent: RecentFiles,
    private readonly dialogs: Dialogs | null,
  ) {}

  meta(): SessionMeta {
    return {
      file: this.file,
      sourceName: this.file ? null : this.sourceName,
      dirty: this.dirty,
      revision: this.revision,
      replaced: this.replaced,
      run: this.run,
      saveError: this.saveError,
      hasSession: this.session !== null,
    };
  }

  /** The session without per-request samples (see SessionView): the page draws from this. */
  view(): SessionView {
    const session = this.session;
    if (!session) return { meta: this.meta(), session: null, requestCounts: {} };
    const { cells, requestCounts } = withoutSamples(session.cells);
    return { meta: this.meta(), session: { ...session, cells }, requestCounts };
  }

  /** One cell's per-request samples, every repetition's; a rerun of the same cell (the later one) wins, as in the report. */
  cellRequests(ref: CellRef): CellSamples | null {
    const cells = this.session?.cells ?? [];
    for (let i = cells.length - 1; i >= 0; i--) {
      const c = cells[i];
      if (c.context === ref.context && c.concurrency === ref.concurrency)
        return { requests: c.requests, ...(c.repetitionRequests ? { repetitionRequests: c.repetitionRequests } : {}) };
    }
    return null;
  }

  current(): Session | null {
    return this.session;
  }

  hasUnsavedChanges(): boolean {
    return this.session !== null && this.dirty;
  }

  /** Replace the open session (a new file, a run's start or end); `run` says which run measures into it. */
  set(
    session: Session,
    opts: { file: string | null; dirty: boolean; sourceName?: string | null; run?: number | null },
  ): void {
    this.session = session;
    this.file = opts.file;
    this.sourceName = opts.sourceName ?? null;
    this.dirty = opts.dirty;
    this.saveError = null;
    this.run = opts.run ?? null;
    this.replaced = this.revision + 1;
    this.changed();
  }

  /** A run resumes into the open session: it is that run's from now on (its content is unchanged). */
  adopt(run: number): void {
    if (!this.session) return;
    this.run = run;
    this.events.emit('session:meta', this.meta());
  }

  /**
   * A run's finished cell, from its event: replaces the cell it reruns, else joins the session.
   * Returns the revision it made (the run update that carries the cell says so), or null when no
   * session is open.
   */
  applyCell(cell: DecodeCell): number | null {
    const s = this.session;
    if (!s) return null;
    s.cells = withCell(s.cells, cell);
    this.dirty = true;
    return this.changed();
  }

  /** A run's prefill point, from its event: one per context, in context order. Returns as applyCell. */
  applyPrefill(point: PrefillResult): number | null {
    const s = this.session;
    if (!s) return null;
    s.prefill = withPrefill(s.prefill, point);
    this.dirty = true;
    return this.changed();
  }

  private changed(): number {
    this.revision++;
    this.events.emit('session:meta', this.meta());
    return this.revision;
  }

  async open(path?: string): Promise<SessionMeta> {
    const file =
      path ??
      (await this.ask(
        () => this.dialogs?.chooseOpenPath() ?? Promise.resolve(null),
        'Opening a file needs a path here: there is no file dialog.',
      ));
    const read = await readSessionFile(file);
    if (read.ok) {
      // The recent list first: the change event below is what rebuilds the app's Open Recent menu.
      await this.recent.add(file);
      this.set(read.data, { file, dirty: false });
      return this.meta();
    }
    // Not a session at all: maybe another tool's results, which import turns into one.
    const notJson = !(await startsLikeJson(file));
    if (read.error.path === 'format' || notJson) {
      const imported = await importFile(file);
      if (imported.ok) {
        // Nothing is lost by replacing it: the file it came from is still there, unchanged.
        this.set(imported.data, { file: null, dirty: false, sourceName: basename(file) });
        return this.meta();
      }
      if (notJson) throw new UserError(imported.error);
    }
    throw new UserError(read.error.message);
  }

  /** A file's text from a drop or a browser file input: validated exactly like a file on disk. */
  openData(name: string, text: string): SessionMeta {
    const parsed = parseSessionText(text, name);
    if (parsed.ok) {
      this.set(parsed.data, { file: null, dirty: false, sourceName: basename(name) });
      return this.meta();
    }
    const notJson = !/^\s*[{[]/.test(text.slice(0, 1024));
    if (parsed.error.path === 'format' || notJson) {
      const imported = importText(text, name);
      if (imported.ok) {
        // As a session's text opened here: the person still has the file, unchanged.
        this.set(imported.data, { file: null, dirty: false, sourceName: basename(name) });
        return this.meta();
      }
      if (notJson) throw new UserError(imported.error);
    }
    throw new UserError(parsed.error.message);
  }

  async save(path?: string, forceAsk = false): Promise<SessionMeta> {
    const session = this.session;
    if (!session) throw new UserError('There is nothing to save yet: run a matrix or open a session first.');
    let target = path ?? (forceAsk ? null : this.file);
    if (!target)
      target = await this.ask(
        () =>
          this.dialogs?.chooseSavePath(this.defaultName(), 'session', this.defaultExportDir()) ?? Promise.resolve(null),
        'Saving needs a path here: there is no file dialog.',
      );
    target = withSaveExtension(target, 'session');
    const res = await writeSessionFile(target, session);
    if (!res.ok) {
      this.saveError = `${res.error} Your results are still open here; use Save As to choose another place.`;
      this.events.emit('session:meta', this.meta());
      throw new UserError(this.saveError);
    }
    this.file = target;
    this.dirty = false;
    this.saveError = null;
    await this.recent.add(target);
    // Only the meta changed: the page keeps the session it holds.
    this.events.emit('session:meta', this.meta());
    return this.meta();
  }

  /** A file name from the model and GPU, e.g. "fara-rtx-pro-6000.speedmatrix.json". */
  defaultName(ext = SESSION_EXTENSION): string {
    const s = this.session;
    const known = this.file ?? this.sourceName;
    if (known) return basename(known).replace(/\.speedmatrix\.json$|\.json$|\.txt$|\.md$/i, '') + ext;
    const model = s?.server.servedModel ?? s?.server.model ?? 'session';
    const gpu = s?.hardware.gpus[0]?.name ?? (s?.simulated ? 'simulated' : '');
    const slug = `${model}${gpu ? `-${gpu}` : ''}`
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80);
    return `${slug || 'session'}${ext}`;
  }

  /** Where an export goes by default: beside the session file, same name. */
  defaultExportDir(): string | null {
    return this.file ? dirname(this.file) : null;
  }

  defaultExportPath(ext: string): string | null {
    const dir = this.defaultExportDir();
    return dir ? join(dir, this.defaultName(ext)) : null;
  }

  private async ask(choose: () => Promise<string | null>, noDialog: string): Promise<string> {
    if (!this.dialogs) throw new UserError(noDialog);
    const chosen = await choose();
    if (!chosen) throw new CancelledError();
    return chosen;
  }
}
