/** Server: the form, its command preview, the supervisor's snapshot (main is the source of truth) and the log. */
import type { CommandPreview, OrphanProcess, ServerSnapshot } from '#shared/ipc/contract';
import type { ServerForm } from '#shared/ipc/forms';
import { IDLE_SERVER } from '#shared/ipc/idle-server';
import type { SliceCreator } from './slice-creator';

/** Lines kept for the live log view; the full log stays in main. */
export const LOG_LIMIT = 5000;

export interface ServerSlice {
  serverForm: ServerForm | null;
  serverDefaults: ServerForm | null;
  preview: CommandPreview | null;
  previewError: string | null;
  server: ServerSnapshot;
  serverLog: string[];
  serverError: string | null;
  /** The failure of this snapshot (seq) and older is hidden: the person switched engine since. */
  failureHiddenUpTo: number;
  /** Processes a crashed server left running, while the person has not answered (End them / Leave them). */
  orphans: OrphanProcess[];
  /** The answer's outcome in words ("Ended 1 process(es)…"), or null. */
  orphanOutcome: { ok: boolean; message: string } | null;
  orphansBusy: boolean;
  setOrphans(orphans: OrphanProcess[]): void;
  setOrphanOutcome(outcome: { ok: boolean; message: string } | null, busy?: boolean): void;
  setServerDefaults(form: ServerForm): void;
  updateServerForm(patch: Partial<ServerForm>): void;
  setPreview(p: CommandPreview | null, error: string | null): void;
  setServerSnapshot(s: ServerSnapshot): void;
  setServerError(message: string | null): void;
  appendServerLog(lines: string[]): void;
  replaceServerLog(lines: string[]): void;
}

export const createServerSlice: SliceCreator<ServerSlice> = (set) => ({
  serverForm: null,
  serverDefaults: null,
  preview: null,
  previewError: null,
  server: IDLE_SERVER,
  serverLog: [],
  serverError: null,
  failureHiddenUpTo: 0,
  orphans: [],
  orphanOutcome: null,
  orphansBusy: false,
  // A new report replaces any earlier outcome; an empty list (ended elsewhere, e.g. by Stop) closes the panel.
  setOrphans: (orphans) => set((s) => ({ orphans, orphanOutcome: orphans.length ? null : s.orphanOutcome })),
  setOrphanOutcome: (orphanOutcome, orphansBusy = false) => set({ orphanOutcome, orphansBusy }),
  setServerDefaults: (form) => set((s) => ({ serverDefaults: form, serverForm: s.serverForm ?? form })),
  updateServerForm: (patch) =>
    set((s) => {
      if (!s.serverForm) return {};
      // Another engine, port or place: the last start's failure panel (a busy port) is about the old one.
      const changed = (k: keyof ServerForm) => patch[k] !== undefined && patch[k] !== s.serverForm?.[k];
      const switched = changed('kind') || changed('port') || changed('where');
      // A start refused for the SSH host or options is about what was typed there before.
      const retyped = changed('sshHost') || changed('sshOptions');
      return {
        serverForm: { ...s.serverForm, ...patch },
        ...(switched ? { failureHiddenUpTo: s.server.seq, serverError: null } : retyped ? { serverError: null } : {}),
      };
    }),
  setPreview: (preview, previewError) => set({ preview, previewError }),
  setServerSnapshot: (server) =>
    // A reply that arrives after a newer event is older news: keep the newer state.
    // A new start clears the previous run's log in the view.
    set((s) =>
      server.seq < s.server.seq
        ? {}
        : {
            server,
            serverError: null,
            serverLog:
              server.state === 'starting' && s.server.state !== 'starting' && s.server.startedAt !== server.startedAt
                ? []
                : s.serverLog,
          },
    ),
  setServerError: (serverError) => set({ serverError }),
  appendServerLog: (lines) =>
    set((s) => (lines.length ? { serverLog: [...s.serverLog, ...lines].slice(-LOG_LIMIT) } : {})),
  replaceServerLog: (lines) => set({ serverLog: lines.slice(-LOG_LIMIT) }),
});
