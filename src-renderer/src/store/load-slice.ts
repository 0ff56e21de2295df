/** The Run view's Load mode: its form (the `load` command's settings) and the load run as main reports it. */
import type { LoadView, TraceChoice } from '#shared/ipc/contract';
import type { LoadForm } from '#shared/ipc/forms';
import { IDLE_LOAD } from '#shared/ipc/idle-load';
import type { SliceCreator } from './slice-creator';

/** What the Run view measures: the matrix, or request rates (docs/load.md). */
export type RunMode = 'matrix' | 'load';

/** The `load` command's defaults (load-flags.ts), shortened so a first try in the app takes minutes, not an hour. */
export const DEFAULT_LOAD_FORM: LoadForm = {
  rates: [0.5, 1, 2, 4],
  sweep: false,
  sweepPoints: 8,
  arrivals: 'poisson',
  maxInFlight: null,
  durationSeconds: 30,
  warmupSeconds: 5,
  inputLen: '1024',
  outputLen: '128',
  slo: '',
};

export interface LoadSlice {
  runMode: RunMode;
  loadForm: LoadForm;
  load: LoadView;
  loadError: string | null;
  /** The trace picked for replay (its file goes in loadForm.trace), or null. */
  loadTrace: TraceChoice | null;
  setLoadTrace(choice: TraceChoice | null): void;
  setRunMode(mode: RunMode): void;
  updateLoadForm(patch: Partial<LoadForm>): void;
  setLoadView(v: LoadView): void;
  setLoadError(message: string | null): void;
}

export const createLoadSlice: SliceCreator<LoadSlice> = (set) => ({
  runMode: 'matrix',
  loadForm: DEFAULT_LOAD_FORM,
  load: IDLE_LOAD,
  loadError: null,
  loadTrace: null,
  // The form replays the trace picked at its own pace until another is picked or it is cleared.
  setLoadTrace: (loadTrace) =>
    set((s) => ({
      loadTrace,
      loadForm: {
        ...s.loadForm,
        trace: loadTrace ? { file: loadTrace.file, speed: s.loadForm.trace?.speed ?? 1 } : null,
      },
    })),
  setRunMode: (runMode) => set({ runMode }),
  updateLoadForm: (patch) => set((s) => ({ loadForm: { ...s.loadForm, ...patch } })),
  // A reply that arrives after a newer event is older news.
  setLoadView: (v) => set((s) => (v.seq < s.load.seq ? {} : { load: v })),
  setLoadError: (loadError) => set({ loadError }),
});

/** Whether a load run holds the server: the form is locked and Stop stops it. */
export const loadBusy = (v: LoadView): boolean => v.phase === 'running' || v.phase === 'starting';
