/**
 * Bridge events -> store, outside React render. Run updates are applied once per frame
 * (run-queue.ts); the session is fetched only when main replaced it (docs/ipc.md), one at a time.
 */
import type { SpeedMatrixBridge } from '#shared/ipc/channels';
import { refreshSession, runMenuCommand } from './actions';
import type { AppStore } from './index';
import { flushRunUpdates, queueRunUpdate } from './run-queue';
import { sessionBehind } from './session-slice';

export function wireEvents(bridge: SpeedMatrixBridge, store: AppStore): () => void {
  const st = () => store.getState();
  let fetching = false;
  let closed = false;
  const fetchIfBehind = () => {
    if (fetching || closed || !sessionBehind(st())) return;
    fetching = true;
    void refreshSession().then((ok) => {
      fetching = false;
      // A newer replacement may have come meanwhile.
      if (ok) fetchIfBehind();
    });
  };
  const offs = [
    bridge.onServerState((s) => st().setServerSnapshot(s)),
    bridge.onServerLog((lines) => st().appendServerLog(lines)),
    bridge.onServerOrphans((o) => st().setOrphans(o.orphans)),
    bridge.onRunUpdate((u) => queueRunUpdate(store, u)),
    bridge.onSweepUpdate((v) => st().setSweepView(v)),
    bridge.onLoadUpdate((v) => st().setLoadView(v)),
    bridge.onTelemetry((samples) => st().addTelemetry(samples)),
    bridge.onSessionMeta((m) => {
      // Queued run updates are older than this meta.
      flushRunUpdates();
      st().setSessionMeta(m);
    }),
    bridge.onNotice((n) => st().pushNotice(n)),
    bridge.onMenu((cmd) => runMenuCommand(cmd)),
    store.subscribe(fetchIfBehind),
  ];
  return () => {
    closed = true;
    for (const off of offs) off();
    flushRunUpdates();
  };
}
