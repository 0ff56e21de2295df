/** The store's shape: one store, built from slices (see index.ts). */
import type { AppSlice } from './app-slice';
import type { CompareSlice } from './compare-slice';
import type { ReportViewSlice } from './report-view-slice';
import type { HardwareSlice } from './hardware-slice';
import type { LoadSlice } from './load-slice';
import type { RunSlice } from './run-slice';
import type { ServerSlice } from './server-slice';
import type { SessionSlice } from './session-slice';
import type { SweepSlice } from './sweep-slice';
import type { UiSlice } from './ui-slice';

export type StoreState = AppSlice &
  HardwareSlice &
  ServerSlice &
  RunSlice &
  SessionSlice &
  UiSlice &
  CompareSlice &
  ReportViewSlice &
  SweepSlice &
  LoadSlice;
