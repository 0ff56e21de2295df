/**
 * Live run updates are applied once per animation frame: a burst of events renders once, not
 * once per event. A timer covers a hidden window, where animation frames stop. Anything that
 * applies an update directly (an invoke's answer) flushes first, so updates stay in order.
 */
import type { RunUpdate } from '#shared/ipc/contract';
import type { AppStore } from './index';

const FALLBACK_MS = 100;

let queue: RunUpdate[] = [];
let target: AppStore | null = null;
let frame: number | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

export function queueRunUpdate(store: AppStore, u: RunUpdate): void {
  if (target && target !== store) flushRunUpdates();
  target = store;
  queue.push(u);
  if (frame !== null) return;
  frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(flushRunUpdates) : 0;
  timer = setTimeout(flushRunUpdates, FALLBACK_MS);
}

export function flushRunUpdates(): void {
  if (frame) cancelAnimationFrame(frame);
  if (timer) clearTimeout(timer);
  frame = null;
  timer = null;
  const queued = queue;
  queue = [];
  if (queued.length && target) target.getState().applyRunUpdates(queued);
}
