/** Sweep: the launch variants typed in the Server view, their check and plan, and the running sweep as main reports it. */
import type { SweepPlanView, SweepView } from '#shared/ipc/contract';
import type { AxisInput } from '#shared/sweep/variants';
import { IDLE_SWEEP } from '#shared/ipc/idle-sweep';
import type { SliceCreator } from './slice-creator';

export interface SweepSlice {
  /** The varied settings as typed: a flag and its values, separated by commas. */
  sweepAxes: AxisInput[];
  /** Main's check of them (each wrong field, or the variants and the plan). */
  sweepPlan: SweepPlanView | null;
  /** Where the sweep goes, as typed or chosen. */
  sweepDir: string;
  sweep: SweepView;
  sweepError: string | null;
  setSweepAxes(axes: AxisInput[]): void;
  setSweepPlan(plan: SweepPlanView | null): void;
  setSweepDir(dir: string): void;
  setSweepView(v: SweepView): void;
  setSweepError(message: string | null): void;
}

export const createSweepSlice: SliceCreator<SweepSlice> = (set) => ({
  sweepAxes: [],
  sweepPlan: null,
  sweepDir: '',
  sweep: IDLE_SWEEP,
  sweepError: null,
  setSweepAxes: (sweepAxes) => set({ sweepAxes }),
  setSweepPlan: (sweepPlan) => set({ sweepPlan }),
  setSweepDir: (sweepDir) => set({ sweepDir }),
  // A reply that arrives after a newer event is older news. The folder shown is the running
  // sweep's, or after a reload the last one's; a folder chosen since stays.
  setSweepView: (v) =>
    set((s) =>
      v.seq < s.sweep.seq ? {} : { sweep: v, sweepDir: v.dir && (sweepBusy(v) || !s.sweepDir) ? v.dir : s.sweepDir },
    ),
  setSweepError: (sweepError) => set({ sweepError }),
});

/** Whether a sweep holds the servers and the run: starting, measuring or stopping. */
export const sweepBusy = (v: SweepView): boolean => v.phase === 'running' || v.phase === 'stopping';
