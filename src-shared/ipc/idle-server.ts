/** Kept apart from contract.ts (which loads zod) so the renderer bundle stays free of it. */
import type { ServerSnapshot } from './contract';

/** No server yet: what main starts with and what the page shows before main's first snapshot. */
export const IDLE_SERVER: ServerSnapshot = {
  state: 'idle',
  kind: null,
  display: '',
  startedAt: null,
  progress: null,
  ready: null,
  failure: null,
  seq: 0,
};
