/**
 * Bridge events -> store, outside React render. Session refetches are throttled so a burst of
 * finished cells costs one round trip a second at most, while the first change shows at once.
 * Live run updates are applied once per frame (run-queue.ts).
 */
import type { SpeedMatrixBridge } from '@shared/ipc/contract';
import { refreshSession, runMenuCommand } from './actions';
import type { AppStore } from './index';
import { flushRunUpdates, queueRunUpdate } from './run-queue';

const SESSION_REFETCH_MS = 1000;

export function wireEvents(bridge: SpeedMatrixBridge, store: AppStore): () => void {
  const st = () => store.getState();
  let refetchTimer: ReturnType<typeof setTimeout> | null = null;
  let lastRevision = -1;
  let lastFetchAt = Number.NEGATIVE_INFINITY;
  // Leading edge: a session just opened shows at once; during a run, at most one fetch a second.
  const scheduleRefetch = () => {
    if (refetchTimer) return;
    const wait = Math.max(0, lastFetchAt + SESSION_REFETCH_MS - Date.now());
    refetchTimer = setTimeout(() => {
      refetchTimer = null;
      lastFetchAt = Date.now();
      void refreshSession();
    }, wait);
  };
  const offs = [
    bridge.onServerState((s) => st().setServerSnapshot(s)),
    bridge.onServerLog((lines) => st().appendServerLog(lines)),
    bridge.onServerOrphans((o) => st().setOrphans(o.orphans)),
    bridge.onRunUpdate((u) => queueRunUpdate(store, u)),
    bridge.onSweepUpdate((v) => st().setSweepView(v)),
    bridge.onTelemetry((samples) => st().addTelemetry(samples)),
    bridge.onSessionMeta((m) => {
      st().setSessionMeta(m);
      if (m.revision !== lastRevision) {
        lastRevision = m.revision;
        scheduleRefetch();
      }
    }),
    bridge.onNotice((n) => st().pushNotice(n)),
    bridge.onMenu((cmd) => runMenuCommand(cmd)),
  ];
  return () => {
    for (const off of offs) off();
    if (refetchTimer) clearTimeout(refetchTimer);
    flushRunUpdates();
  };
}
