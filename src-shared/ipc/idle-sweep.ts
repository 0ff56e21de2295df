/** Kept apart from contract.ts (which loads zod) so the renderer bundle stays free of it. */
import type { SweepView } from './contract';

/** No sweep yet: what main starts with and what the page shows before main's first snapshot. */
export const IDLE_SWEEP: SweepView = {
  phase: 'idle',
  dir: null,
  plan: null,
  variants: [],
  current: null,
  eta: null,
  message: null,
  seq: 0,
};
