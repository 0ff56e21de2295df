/** A run update as main sends it (run 1, no cells, numbered in the order made) with the parts a test gives. */
import type { RunUpdate } from '#shared/ipc/contract';

let seq = 0;

export const runUpdate = (u: Partial<RunUpdate>): RunUpdate => ({
  phase: 'decode',
  plan: null,
  live: null,
  cells: [],
  prefill: [],
  requestCounts: {},
  revisions: null,
  progress: null,
  message: null,
  run: 1,
  seq: ++seq,
  ...u,
});
