/** The comparison Results shows instead of the open session: a sweep folder or sessions compared. */
import type { ComparisonView } from '#shared/ipc/contract';
import type { SliceCreator } from './slice-creator';

export interface CompareSlice {
  comparison: ComparisonView | null;
  /** Why the last comparison could not be opened, in words; shown in place. */
  comparisonError: string | null;
  comparisonLoading: boolean;
  /** Results shows the comparison (true) or the open session (false). */
  showComparison: boolean;
  /** The comparison, shown at once unless told (a reload keeps the open session in front). */
  setComparison(v: ComparisonView, show?: boolean): void;
  setComparisonError(message: string | null): void;
  setComparisonLoading(on: boolean): void;
  setShowComparison(on: boolean): void;
}

export const createCompareSlice: SliceCreator<CompareSlice> = (set) => ({
  comparison: null,
  comparisonError: null,
  comparisonLoading: false,
  showComparison: false,
  setComparison: (comparison, show = true) =>
    set((s) => ({
      comparison,
      comparisonError: null,
      comparisonLoading: false,
      showComparison: show || s.showComparison,
    })),
  // An error is shown where the comparison would be, instead of it: main let the earlier one go too.
  setComparisonError: (comparisonError) =>
    set((s) => ({
      comparisonError,
      comparisonLoading: false,
      comparison: comparisonError === null ? s.comparison : null,
      showComparison: comparisonError !== null || s.showComparison,
    })),
  setComparisonLoading: (comparisonLoading) => set({ comparisonLoading }),
  setShowComparison: (showComparison) => set({ showComparison }),
});
