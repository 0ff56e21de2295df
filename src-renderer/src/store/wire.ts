/**
 * Bridge events -> store, outside React render. Live run updates are applied once per frame
 * (run-queue.ts); their finished cells and prefill points go into the session the page holds.
 * The session is fetched whole only when the page lacks a change run updates do not carry
 * (main replaced it, see sessionBehind), one fetch at a time.
 */
import type { SpeedMatrixBridge } from '@shared/ipc/contract';
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
      // Still behind (a newer replacement came meanwhile): once more; a failed fetch waits for the next change.
      if (ok) fetchIfBehind();
    });
  };
  const offs = [
    bridge.onServerState((s) => st().setServerSnapshot(s)),
    bridge.onServerLog((lines) => st().appendServerLog(lines)),
    bridge.onServerOrphans((o) => st().setOrphans(o.orphans)),
    bridge.onRunUpdate((u) => queueRunUpdate(store, u)),
    bridge.onTelemetry((samples) => st().addTelemetry(samples)),
    bridge.onSessionMeta((m) => {
      // Queued run updates are older than this meta: applied first, they may already bring what it announces.
      flushRunUpdates();
      st().setSessionMeta(m);
    }),
    bridge.onNotice((n) => st().pushNotice(n)),
    bridge.onMenu((cmd) => runMenuCommand(cmd)),
    // A meta announcing a replacement, or a run update that did not fit the held session.
    store.subscribe(fetchIfBehind),
  ];
  return () => {
    closed = true;
    for (const off of offs) off();
    flushRunUpdates();
  };
}
