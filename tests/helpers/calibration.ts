/** Real-hardware figures the simulator's profiles are calibrated against (tests/fixtures/calibration/). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths';

export type CalibrationCell =
  { status: 'valid'; total: number; perRequest: number; ttftMs: number } | { status: 'looped' | 'over-capacity' };

export interface Calibration {
  comment: string;
  server: { maxModelLen: number; gpuMemoryUtilization: number };
  /** Context label as the run named it ("251K") → tokens. */
  contexts: Record<string, number>;
  prefill: Record<string, { tokensPerSecond: number; ttftMs: number }>;
  /** Keyed "<context label>x<simultaneous requests>", e.g. "8Kx64". */
  decode: Record<string, CalibrationCell>;
}

/** Fara1.5-4B BF16 on one RTX PRO 6000 Blackwell (profile rtx-pro-6000-fara-4b-bf16). */
export const faraRtxPro6000 = (): Calibration =>
  JSON.parse(
    readFileSync(join(ROOT, 'tests/fixtures/calibration/fara-4b-rtx-pro-6000-bf16.json'), 'utf8'),
  ) as Calibration;

/** The valid cell at a key, or a thrown error naming the key (a fixture without it is a broken fixture). */
export function validCell(c: Calibration, key: string): Extract<CalibrationCell, { status: 'valid' }> {
  const cell = c.decode[key];
  if (cell?.status !== 'valid') throw new Error(`calibration has no valid cell ${key}`);
  return cell;
}
