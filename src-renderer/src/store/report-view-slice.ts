/**
 * What the Results heatmap shows, as the person chose it: the metric, the service-level
 * targets and the GPU price (remembered in localStorage). Export sends the same choice, so the
 * file shows what the screen does.
 */
import type { ReportView } from '#shared/ipc/forms';
import type { CellMetric } from '#shared/report/cell-metrics';
import { type GpuPrice, parseGpuPrice } from '#shared/report/price';
import { type TargetSet, TargetSpecError, parseTargets } from '#shared/report/slo';
import type { SliceCreator } from './slice-creator';

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

/** The price last typed that was a price (older windows stored a bare number, which still reads). */
function storedPriceText(): string {
  try {
    const text = localStorage.getItem(GPU_PRICE_KEY) ?? '';
    return parseGpuPrice(text) ? text : '';
  } catch {
    return '';
  }
}

/** The price and its currency, or null when empty or not a price above 0. */
export const parsePrice = (text: string): GpuPrice | null => parseGpuPrice(text);

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
export function reportViewOf(s: Pick<ReportViewSlice, 'heatmapMetric' | 'targetsText' | 'gpuPriceText'>): ReportView {
  return {
    metric: s.heatmapMetric,
    slo: parseTargetText(s.targetsText).set ? s.targetsText.trim() : '',
    gpuPricePerHour: parsePrice(s.gpuPriceText)?.perHour ?? null,
    gpuPriceCurrency: parsePrice(s.gpuPriceText)?.currency,
  };
}

export const createReportViewSlice: SliceCreator<ReportViewSlice> = (set) => ({
  heatmapMetric: 'total',
  targetsText: '',
  gpuPriceText: storedPriceText(),
  setHeatmapMetric: (heatmapMetric) => set({ heatmapMetric }),
  setTargetsText: (targetsText) => set({ targetsText }),
  setGpuPriceText: (gpuPriceText) => {
    set({ gpuPriceText });
    if (parsePrice(gpuPriceText) === null) return;
    try {
      localStorage.setItem(GPU_PRICE_KEY, gpuPriceText.trim());
    } catch {
      // Storage can be unavailable (private mode); the price still works for this window.
    }
  },
});
