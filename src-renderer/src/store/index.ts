/**
 * One zustand store built from slices. Components read through selectors; bridge events are
 * applied with store.getState().action(...) from outside React render (see wire.ts).
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { createAppSlice } from './app-slice';
import { createCompareSlice } from './compare-slice';
import { createReportViewSlice } from './report-view-slice';
import { createHardwareSlice } from './hardware-slice';
import { createLoadSlice } from './load-slice';
import { createRunSlice } from './run-slice';
import { createServerSlice } from './server-slice';
import { createSessionSlice } from './session-slice';
import { createSweepSlice } from './sweep-slice';
import type { StoreState } from './types';
import { createUiSlice } from './ui-slice';

export type { StoreState } from './types';
export type AppStore = StoreApi<StoreState>;

export function createAppStore(): AppStore {
  return createStore<StoreState>()((set, get) => ({
    ...createAppSlice(set, get),
    ...createHardwareSlice(set, get),
    ...createServerSlice(set, get),
    ...createRunSlice(set, get),
    ...createSessionSlice(set, get),
    ...createUiSlice(set, get),
    ...createCompareSlice(set, get),
    ...createReportViewSlice(set, get),
    ...createSweepSlice(set, get),
    ...createLoadSlice(set, get),
  }));
}

/** The app's store; tests make their own with createAppStore(). */
export const appStore = createAppStore();

export function useApp<T>(selector: (s: StoreState) => T): T {
  return useStore(appStore, selector);
}
