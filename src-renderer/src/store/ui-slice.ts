/** Which view is shown, and small view preferences (log search and auto-scroll). */
import type { SliceCreator } from './slice-creator';

type View = 'hardware' | 'server' | 'run' | 'results';
export const VIEWS: { id: View; label: string }[] = [
  { id: 'hardware', label: 'Hardware' },
  { id: 'server', label: 'Server' },
  { id: 'run', label: 'Run' },
  { id: 'results', label: 'Results' },
];

/** Ctrl/Cmd+1..4 in VIEWS order: the key's view, or null. */
export function viewForShortcut(key: string): View | null {
  const i = Number(key) - 1;
  return Number.isInteger(i) && i >= 0 && i < VIEWS.length ? VIEWS[i].id : null;
}

export interface UiSlice {
  view: View;
  logFilter: string;
  autoScroll: boolean;
  setView(v: View): void;
  setLogFilter(q: string): void;
  setAutoScroll(on: boolean): void;
}

export const createUiSlice: SliceCreator<UiSlice> = (set) => ({
  view: 'hardware',
  logFilter: '',
  autoScroll: true,
  setView: (view) => set({ view }),
  setLogFilter: (logFilter) => set({ logFilter }),
  setAutoScroll: (autoScroll) => set({ autoScroll }),
});
