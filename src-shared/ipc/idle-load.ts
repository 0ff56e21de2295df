/** The Load mode before any load run, zod-free so the page can use it (as idle-sweep.ts). */
import type { LoadView } from './contract';

export const IDLE_LOAD: LoadView = {
  phase: 'idle',
  config: null,
  current: null,
  results: [],
  messages: [],
  error: null,
  run: 0,
  seq: 0,
};
