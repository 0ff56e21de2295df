/** Results: the page's copy of main's session (docs/ipc.md), its file state, the open error, and table state. */
import { cellKey } from '#shared/cell-key';
import type { Notice, RunUpdate, SessionMeta, SessionView } from '#shared/ipc/contract';
import { withCell, withPrefill } from '#shared/session/cells';
import type { Session } from '#shared/session/schema';
import type { SliceCreator } from './slice-creator';

const EMPTY_META: SessionMeta = {
  file: null,
  sourceName: null,
  dirty: false,
  revision: 0,
  replaced: 0,
  run: null,
  saveError: null,
  hasSession: false,
};

type SortColumn =
  | 'context'
  | 'concurrency'
  | 'status'
  | 'total'
  | 'perRequest'
  | 'ttft'
  | 'tbt'
  | 'active'
  | 'completed'
  | 'output'
  | 'window';

export interface SessionSlice {
  sessionMeta: SessionMeta;
  /** Without per-request samples (CellDetail fetches one cell's on demand). */
  session: Session | null;
  /** Per-request samples each cell holds in the core, by "context x concurrency" key. */
  requestCounts: Record<string, number>;
  /** The revision, replacement and run (SessionMeta's) of `session`, and the revision it must fetch to be whole. */
  sessionRevision: number;
  sessionReplaced: number;
  sessionRun: number | null;
  sessionNeeded: number;
  /** A file that could not be opened: shown in place, never a blank screen. */
  openError: Notice | null;
  recentFiles: string[];
  selectedCell: string | null;
  sort: { column: SortColumn; descending: boolean } | null;
  lastExport: string | null;
  setSessionView(v: SessionView): void;
  setSessionMeta(m: SessionMeta): void;
  setOpenError(n: Notice | null): void;
  setRecentFiles(files: string[]): void;
  selectCell(key: string | null): void;
  toggleSort(column: SortColumn): void;
  setLastExport(file: string | null): void;
}

export type HeldSession = Pick<
  SessionSlice,
  'session' | 'requestCounts' | 'sessionRevision' | 'sessionReplaced' | 'sessionRun' | 'sessionNeeded'
>;

/** A run update's cells and prefill points, once; from a revision not reached yet, none: the session is needed. */
export function foldRunCells<H extends HeldSession>(h: H, u: RunUpdate): H {
  const r = u.revisions;
  if (!r || r.to <= h.sessionRevision) return h;
  if (r.from > h.sessionRevision || !h.session) return { ...h, sessionNeeded: Math.max(h.sessionNeeded, r.to) };
  let { cells, prefill } = h.session;
  const requestCounts = u.cells.length ? { ...h.requestCounts } : h.requestCounts;
  for (const c of u.cells) {
    cells = withCell(cells, c);
    const key = cellKey(c);
    if (key in u.requestCounts) requestCounts[key] = u.requestCounts[key];
    else delete requestCounts[key];
  }
  for (const p of u.prefill) prefill = withPrefill(prefill, p);
  return { ...h, session: { ...h.session, cells, prefill }, requestCounts, sessionRevision: r.to };
}

/** A fetched view, unless it is older than the held session (a late reply). */
export function acceptView(h: HeldSession, v: SessionView): HeldSession {
  if (v.meta.revision < h.sessionRevision) return h;
  return {
    session: v.session,
    requestCounts: v.requestCounts,
    sessionRevision: v.meta.revision,
    sessionReplaced: v.meta.replaced,
    sessionRun: v.meta.run,
    sessionNeeded: h.sessionNeeded,
  };
}

/** Main's meta: a replacement is needed; a resume adopts the same session for its run. */
export const noteMeta = (h: HeldSession, m: SessionMeta): Pick<HeldSession, 'sessionNeeded' | 'sessionRun'> => ({
  sessionNeeded: Math.max(h.sessionNeeded, m.replaced),
  sessionRun: m.replaced === h.sessionReplaced ? m.run : h.sessionRun,
});

export const sessionBehind = (h: HeldSession): boolean => h.sessionNeeded > h.sessionRevision;

export const createSessionSlice: SliceCreator<SessionSlice> = (set) => ({
  sessionMeta: EMPTY_META,
  session: null,
  requestCounts: {},
  sessionRevision: 0,
  sessionReplaced: 0,
  sessionRun: null,
  sessionNeeded: 0,
  openError: null,
  recentFiles: [],
  selectedCell: null,
  sort: null,
  lastExport: null,
  setSessionView: (v) =>
    set((s) => {
      const held = acceptView(s, v);
      if (held === s) return {};
      // "Exported …" and "could not be opened" speak of what was in front: another session opened drops them.
      const same = held.sessionReplaced === s.sessionReplaced;
      const lastExport = same ? s.lastExport : null;
      const openError = same || !held.session ? s.openError : null;
      return {
        ...held,
        lastExport,
        openError,
        sessionMeta: v.meta.revision >= s.sessionMeta.revision ? v.meta : s.sessionMeta,
      };
    }),
  setSessionMeta: (sessionMeta) => set((s) => ({ sessionMeta, ...noteMeta(s, sessionMeta) })),
  setOpenError: (openError) => set({ openError }),
  setRecentFiles: (recentFiles) => set({ recentFiles }),
  selectCell: (selectedCell) => set({ selectedCell }),
  toggleSort: (column) =>
    set((s) => ({
      sort:
        s.sort?.column === column
          ? { column, descending: !s.sort.descending }
          : { column, descending: column !== 'context' && column !== 'concurrency' },
    })),
  setLastExport: (lastExport) => set({ lastExport }),
});
