/** App-wide state: version info from the bridge, loading state, and notices for the person. */
import type { AppInfo, Notice } from '@shared/ipc/contract';
import type { SliceCreator } from './types';

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

const MAX_NOTICES = 5;
let nextNoticeId = 1;

export const createAppSlice: SliceCreator<AppSlice> = (set) => ({
  appInfo: null,
  appState: 'loading',
  appError: null,
  notices: [],
  setAppInfo: (info) => set({ appInfo: info, appState: 'ready', appError: null }),
  setAppError: (message) => set({ appState: 'error', appError: message }),
  pushNotice: (n) =>
    set((s) => ({ notices: [...s.notices, { ...n, id: nextNoticeId++ }].slice(-MAX_NOTICES) })),
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
});
