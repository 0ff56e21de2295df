/**
 * What the Results heatmap shows, as the person chose it: the metric, the service-level
 * targets and the GPU price (remembered in localStorage). Export sends the same choice, so the
 * file shows what the screen does.
 */
import type { ReportView } from '#shared/ipc/contract';
import type { CellMetric } from '#shared/report/cell-metrics';
import { type TargetSet, TargetSpecError, parseTargets } from '#shared/report/slo';
import type { SliceCreator, StoreState } from './types';

const GPU_PRICE_KEY = 'speedmatrix.gpuPricePerHour';

export interface ReportViewSlice {
  heatmapMetric: CellMetric;
  /** The targets as typed, e.g. "ttft-p90<=2s,tbt-p90<=50ms"; empty for none. */
  targetsText: string;
  /** The GPU price as typed. */
  gpuPriceText: string;
  setHeatmapMetric(m: CellMetric): void;
  setTargetsText(t: string): void;
  setGpuPriceText(t: string): void;
}

function storedPrice(): number | null {
  try {
    const v = Number(localStorage.getItem(GPU_PRICE_KEY));
    return v > 0 && Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

/** The price as a number, or null when empty or not a price above 0. */
export function parsePrice(text: string): number | null {
  const t = text.trim();
  const n = Number(t);
  return t !== '' && Number.isFinite(n) && n > 0 ? n : null;
}

/** The targets as a set, an error in words, or neither when empty. */
export function parseTargetText(text: string): { set: TargetSet | null; error: string | null } {
  if (text.trim() === '') return { set: null, error: null };
  try {
    return { set: parseTargets(text), error: null };
  } catch (e) {
    if (!(e instanceof TargetSpecError)) throw e;
    return { set: null, error: e.message };
  }
}

/** The choice as an export sends it: targets and price only when they are valid (as the screen uses them). */
export function reportViewOf(s: Pick<StoreState, 'heatmapMetric' | 'targetsText' | 'gpuPriceText'>): ReportView {
  return {
    metric: s.heatmapMetric,
    slo: parseTargetText(s.targetsText).set ? s.targetsText.trim() : '',
    gpuPricePerHour: parsePrice(s.gpuPriceText),
  };
}

export const createReportViewSlice: SliceCreator<ReportViewSlice> = (set) => ({
  heatmapMetric: 'total',
  targetsText: '',
  gpuPriceText: String(storedPrice() ?? ''),
  setHeatmapMetric: (heatmapMetric) => set({ heatmapMetric }),
  setTargetsText: (targetsText) => set({ targetsText }),
  setGpuPriceText: (gpuPriceText) => {
    set({ gpuPriceText });
    const v = parsePrice(gpuPriceText);
    if (v === null) return;
    try {
      localStorage.setItem(GPU_PRICE_KEY, String(v));
    } catch {
      // Storage can be unavailable (private mode); the price still works for this window.
    }
  },
});
