/**
 * The page's one copy of the session: a run's finished cells and prefill points applied once
 * from its run updates, a fetched view only when main replaced the session, and nothing older
 * ever overwriting something newer.
 */
import { describe, expect, it } from 'vitest';
import { CoreEvents } from '../../../src-main/hosts/app-core/emitter';
import { RecentFiles } from '../../../src-main/hosts/app-core/recent-files';
import { RunUpdates } from '../../../src-main/hosts/app-core/run-updates';
import { SessionControl } from '../../../src-main/hosts/app-core/session-control';
import { createSession } from '../../../src-main/platform/session/create';
import { cellKey } from '#shared/cell-key';
import type { RunUpdate, SessionMeta, SessionView } from '#shared/ipc/contract';
import type { DecodeCell, PrefillResult, Session } from '#shared/session/schema';
import { createAppStore } from '../../../src-renderer/src/store';
import { runSession } from '../../../src-renderer/src/store/run-slice';
import {
  type HeldSession,
  acceptView,
  foldRunCells,
  noteMeta,
  sessionBehind,
} from '../../../src-renderer/src/store/session-slice';
import { bigSession } from '../../bench/lib/big-session';
import { runUpdate as update } from '../../helpers/run-update';

const K = 1024;
const big = bigSession();
/** Measured cells with their per-request samples, as the engine finishes them. */
const measured = big.cells.filter((c) => c.requests && c.requests.sentAt.length > 0).slice(0, 4);
const point = (context: number, tokensPerSecond: number): PrefillResult => ({
  context,
  status: 'valid',
  reason: null,
  promptTokens: context,
  ttftSeconds: 1,
  tokensPerSecond,
  measuredAt: null,
});

const meta = (m: Partial<SessionMeta>): SessionMeta => ({
  file: null,
  sourceName: null,
  dirty: true,
  revision: 0,
  replaced: 0,
  run: null,
  saveError: null,
  hasSession: true,
  ...m,
});
const view = (session: Session, m: Partial<SessionMeta>): SessionView => ({
  meta: meta(m),
  session,
  requestCounts: {},
});
const held = (session: Session, revision: number, run: number | null = 1): HeldSession => ({
  session,
  requestCounts: {},
  sessionRevision: revision,
  sessionReplaced: revision,
  sessionRun: run,
  sessionNeeded: revision,
});
const stripped = (c: DecodeCell): DecodeCell => ({ ...c, requests: null });
const keys = (h: HeldSession) => h.session?.cells.map(cellKey);

describe('a run update onto the session the page holds', () => {
  it('adds finished cells and prefill points once, a rerun replacing its cell, with their request counts', () => {
    const [a, b] = measured;
    let h = held(createSession({ simulated: true }), 10);
    h = foldRunCells(
      h,
      update({
        cells: [stripped(a), stripped(b)],
        prefill: [point(16 * K, 2)],
        requestCounts: { [cellKey(a)]: 7, [cellKey(b)]: 9 },
        revisions: { from: 10, to: 13 },
      }),
    );
    expect(keys(h)).toEqual([cellKey(a), cellKey(b)]);
    expect(h.requestCounts).toEqual({ [cellKey(a)]: 7, [cellKey(b)]: 9 });
    expect(h.sessionRevision).toBe(13);
    // A rerun of a (now without samples) replaces it in place; a new prefill point joins in context order.
    const rerun = { ...stripped(a), totalTokensPerSecond: 1234.5 };
    h = foldRunCells(h, update({ cells: [rerun], prefill: [point(8 * K, 1)], revisions: { from: 13, to: 15 } }));
    expect(keys(h)).toEqual([cellKey(a), cellKey(b)]);
    expect(h.session?.cells[0].totalTokensPerSecond).toBe(1234.5);
    expect(h.requestCounts).toEqual({ [cellKey(b)]: 9 });
    expect(h.session?.prefill.map((p) => p.context)).toEqual([8 * K, 16 * K]);
    expect(sessionBehind(h)).toBe(false);
  });

  it('ignores an update whose cells it already holds (the fetch answered after main applied them)', () => {
    const [a] = measured;
    const h = held({ ...createSession({ simulated: true }), cells: [stripped(a)] }, 12);
    expect(foldRunCells(h, update({ cells: [stripped(a)], revisions: { from: 11, to: 12 } }))).toBe(h);
    expect(foldRunCells(h, update({ live: null }))).toBe(h);
  });

  it('applies an update that overlaps what it holds as if it held only the older part', () => {
    const [a, b, c] = measured.map(stripped);
    const base = createSession({ simulated: true });
    const u = update({ cells: [a, b, c], revisions: { from: 4, to: 7 } });
    const fromOlder = foldRunCells(held(base, 4), u);
    const fromNewer = foldRunCells(held({ ...base, cells: [a, b] }, 6), u);
    expect(fromNewer.session?.cells).toEqual(fromOlder.session?.cells);
    expect(fromNewer.sessionRevision).toBe(7);
  });

  it('applies nothing from a revision it has not reached (main replaced the session meanwhile), and needs the session', () => {
    const [a] = measured;
    const h = held(createSession({ simulated: true }), 3);
    const after = foldRunCells(h, update({ cells: [stripped(a)], revisions: { from: 5, to: 6 } }));
    expect(after.session).toBe(h.session);
    expect(after.sessionRevision).toBe(3);
    expect(sessionBehind(after)).toBe(true);
    // The fetch answers at or after 6: whole again, and the update's cell is in it.
    const fetched = acceptView(
      after,
      view({ ...createSession({ simulated: true }), cells: [stripped(a)] }, { revision: 6 }),
    );
    expect(keys(fetched)).toEqual([cellKey(a)]);
    expect(sessionBehind(fetched)).toBe(false);
  });
});

describe('a fetched view and main meta', () => {
  it('drops a reply older than what run updates already brought, and takes one as new or newer', () => {
    const [a, b] = measured.map(stripped);
    let h = held(createSession({ simulated: true }), 2);
    h = foldRunCells(h, update({ cells: [a, b], revisions: { from: 2, to: 4 } }));
    const late = view({ ...createSession({ simulated: true }), cells: [a] }, { revision: 3, replaced: 2 });
    expect(acceptView(h, late)).toBe(h);
    const now = view({ ...createSession({ simulated: true }), cells: [a, b] }, { revision: 4, replaced: 2, run: 1 });
    expect(keys(acceptView(h, now))).toEqual([cellKey(a), cellKey(b)]);
  });

  it('needs the session when main replaced it, not for a finished cell or a save', () => {
    const h = held(createSession({ simulated: true }), 8);
    const after = (m: Partial<SessionMeta>) => ({ ...h, ...noteMeta(h, meta(m)) });
    // A cell (revision 9, its update on the way) and a save (meta only): nothing to fetch.
    expect(sessionBehind(after({ revision: 9, replaced: 8, run: 1 }))).toBe(false);
    expect(after({ revision: 8, replaced: 8, run: 1, dirty: false })).toEqual(h);
    // The run ended: main wrote its final session (notes, status) at 10.
    expect(sessionBehind(after({ revision: 10, replaced: 10, run: 1 }))).toBe(true);
  });
});

describe("the Run view's cells are the session's", () => {
  it('shows a resumed run the session it continues at once, and a new run nothing until its session arrives', () => {
    const s = createAppStore();
    const [a] = measured.map(stripped);
    const stoppedRun = { ...createSession({ simulated: true }), cells: [a] };
    s.getState().setSessionView(view(stoppedRun, { revision: 5, replaced: 5, run: 1 }));
    s.getState().applyRunUpdate(update({ phase: 'cancelled', run: 1 }));
    expect(runSession(s.getState())?.cells).toEqual([a]);

    // Resume: main adopts the open session for run 2 before its reply reaches the page.
    s.getState().setSessionMeta(meta({ revision: 5, replaced: 5, run: 2 }));
    expect(runSession(s.getState())?.cells).toEqual([a]);
    s.getState().applyRunUpdate(update({ phase: 'starting', run: 2 }));
    expect(runSession(s.getState())?.cells).toEqual([a]);

    // A new run 3: the open session is run 2's until run 3's is fetched.
    s.getState().applyRunUpdate(update({ phase: 'starting', run: 3 }));
    expect(runSession(s.getState())).toBeNull();
    s.getState().setSessionMeta(meta({ revision: 6, replaced: 6, run: 3 }));
    expect(sessionBehind(s.getState())).toBe(true);
    s.getState().setSessionView(view(createSession({ simulated: true }), { revision: 6, replaced: 6, run: 3 }));
    expect(runSession(s.getState())?.cells).toEqual([]);

    // A file opened afterwards is no run's.
    s.getState().setSessionView(view(stoppedRun, { revision: 7, replaced: 7, run: null }));
    expect(runSession(s.getState())).toBeNull();
  });
});

describe("main's session owner and the page agree", () => {
  it('a session folded from run updates equals main’s view of the same revision, without fetching', () => {
    const events = new CoreEvents();
    const sessions = new SessionControl(events, new RecentFiles(null), null);
    const sent: RunUpdate[] = [];
    const updates = new RunUpdates((u) => sent.push(u), 10_000);
    const store = createAppStore();
    events.on('session:meta', (m) => store.getState().setSessionMeta(m));
    try {
      // The run starts: main writes its session, the page fetches it (it is behind).
      const run = updates.begin();
      sessions.set(createSession({ simulated: true }), { file: null, dirty: true, run });
      expect(sessionBehind(store.getState())).toBe(true);
      store.getState().setSessionView(sessions.view());
      // Cells and points as the engine finishes them, a rerun among them, sent in two merged updates.
      const take = (c: DecodeCell) =>
        updates.push({ type: 'cell-done', cell: c, index: 0, total: 4, etaSeconds: 1 }, sessions.applyCell(c));
      updates.push({ type: 'prefill-done', result: point(8 * K, 3) }, sessions.applyPrefill(point(8 * K, 3)));
      take(measured[0]);
      take(measured[1]);
      updates.flush();
      take({ ...measured[0], totalTokensPerSecond: 99 });
      take(measured[2]);
      updates.flush();
      store.getState().applyRunUpdates(sent);
      expect(sessionBehind(store.getState())).toBe(false);
      const page = store.getState();
      const main = sessions.view();
      expect(page.sessionRevision).toBe(main.meta.revision);
      expect(page.session).toEqual(main.session);
      expect(page.requestCounts).toEqual(main.requestCounts);
      expect(Object.keys(page.requestCounts)).toHaveLength(3);
    } finally {
      updates.dispose();
    }
  });
});
