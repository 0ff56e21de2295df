/**
 * While a run, a sweep or a load run measures, the machine must not sleep (a laptop's lid timer
 * would cut a long sweep short): Electron's powerSaveBlocker holds 'prevent-app-suspension' from
 * the first update of the run to its end, and lets go after. The core's running state is read on
 * each run, sweep and load update, and again every few seconds while held, so a blocker never
 * outlives the run that wanted it.
 */
import { powerSaveBlocker } from 'electron';
import type { AppCore } from '../app-core';

const RECHECK_MS = 5000;

/** Starts keeping the machine awake whenever `core` runs something; returns the function that stops watching (and lets go). */
export function keepAwakeWhileRunning(core: Pick<AppCore, 'on' | 'runInProgress'>): () => void {
  let id: number | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  const release = () => {
    if (timer) clearInterval(timer);
    timer = null;
    if (id !== null) powerSaveBlocker.stop(id);
    id = null;
  };
  const sync = () => {
    if (!core.runInProgress()) return release();
    if (id !== null) return;
    id = powerSaveBlocker.start('prevent-app-suspension');
    timer = setInterval(sync, RECHECK_MS);
  };
  const offs = [core.on('run:update', sync), core.on('sweep:update', sync), core.on('load:update', sync)];
  return () => {
    offs.forEach((off) => off());
    release();
  };
}
