/** The comparison Results shows instead of the open session: a sweep folder or sessions compared. */
import type { ComparisonView } from '@shared/ipc/contract';
import type { SliceCreator } from './types';

export interface CompareSlice {
  comparison: ComparisonView | null;
  /** Why the last comparison could not be opened, in words; shown in place. */
  comparisonError: string | null;
  comparisonLoading: boolean;
  /** Results shows the comparison (true) or the open session (false). */
  showComparison: boolean;
  setComparison(v: ComparisonView): void;
  setComparisonError(message: string | null): void;
  setComparisonLoading(on: boolean): void;
  setShowComparison(on: boolean): void;
}

export const createCompareSlice: SliceCreator<CompareSlice> = (set) => ({
  comparison: null,
  comparisonError: null,
  comparisonLoading: false,
  showComparison: false,
  setComparison: (comparison) =>
    set({ comparison, comparisonError: null, comparisonLoading: false, showComparison: true }),
  // An error is shown where the comparison would be.
  setComparisonError: (comparisonError) =>
    set((s) => ({
      comparisonError,
      comparisonLoading: false,
      showComparison: comparisonError !== null || s.showComparison,
    })),
  setComparisonLoading: (comparisonLoading) => set({ comparisonLoading }),
  setShowComparison: (showComparison) => set({ showComparison }),
});
