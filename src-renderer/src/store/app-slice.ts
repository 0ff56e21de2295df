/** App-wide state: version info from the bridge, loading state, and notices for the person. */
import type { AppInfo, Notice } from '#shared/ipc/contract';
import type { SliceCreator } from './slice-creator';

export interface AppSlice {
  appInfo: AppInfo | null;
  appState: 'loading' | 'ready' | 'error';
  appError: string | null;
  notices: (Notice & { id: number })[];
  setAppInfo(info: AppInfo): void;
  setAppError(message: string): void;
  pushNotice(n: Notice): void;
  dismissNotice(id: number): void;
}

/** At most this many at once: more would cover the view. */
const MAX_NOTICES = 3;
/** Informational notices leave by themselves; errors stay until dismissed. */
const NOTICE_LIFETIME_MS: Record<Notice['level'], number | null> = { info: 5000, warn: 10_000, error: null };
let nextNoticeId = 1;

/** The newest notices, at most MAX_NOTICES: the oldest non-errors make room first. */
function keepNewest(notices: (Notice & { id: number })[]): (Notice & { id: number })[] {
  const out = [...notices];
  while (out.length > MAX_NOTICES) {
    const i = out.findIndex((n) => n.level !== 'error');
    out.splice(i >= 0 && i < out.length - 1 ? i : 0, 1);
  }
  return out;
}

export const createAppSlice: SliceCreator<AppSlice> = (set, get) => ({
  appInfo: null,
  appState: 'loading',
  appError: null,
  notices: [],
  setAppInfo: (info) => set({ appInfo: info, appState: 'ready', appError: null }),
  setAppError: (message) => set({ appState: 'error', appError: message }),
  pushNotice: (n) => {
    const id = nextNoticeId++;
    // The same words again replace the earlier notice instead of stacking a copy.
    set((s) => ({ notices: keepNewest([...s.notices.filter((x) => x.message !== n.message), { ...n, id }]) }));
    const lifetime = NOTICE_LIFETIME_MS[n.level];
    if (lifetime !== null) setTimeout(() => get().dismissNotice(id), lifetime);
  },
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
});
