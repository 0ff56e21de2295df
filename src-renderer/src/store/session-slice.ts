/** Results: the session main holds (opened or measured), its file state, the open error, and table state. */
import type { Notice, SessionMeta, SessionView } from '@shared/ipc/contract';
import type { Session } from '@shared/session/schema';
import type { SliceCreator } from './types';

export const EMPTY_META: SessionMeta = {
  file: null,
  sourceName: null,
  dirty: false,
  revision: 0,
  saveError: null,
  hasSession: false,
};

export type SortColumn =
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

export const createSessionSlice: SliceCreator<SessionSlice> = (set) => ({
  sessionMeta: EMPTY_META,
  session: null,
  requestCounts: {},
  openError: null,
  recentFiles: [],
  selectedCell: null,
  sort: null,
  lastExport: null,
  setSessionView: (v) => set({ sessionMeta: v.meta, session: v.session, requestCounts: v.requestCounts }),
  setSessionMeta: (sessionMeta) => set({ sessionMeta }),
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
