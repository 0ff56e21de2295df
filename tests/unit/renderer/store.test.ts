/** The store's slices: the renderer's state changes as main's events say, nothing guessed. */
import { describe, expect, it, vi } from 'vitest';
import type { RunUpdate, ServerSnapshot } from '#shared/ipc/contract';
import { createSession } from '../../../src-main/platform/session/create';
import type { DecodeCell } from '#shared/session/schema';
import { createAppStore } from '../../../src-renderer/src/store';
import { RUN_PRESETS, formFromRunConfig, runSession } from '../../../src-renderer/src/store/run-slice';
import { sampleSession } from '../../helpers/sample-session';
import { runUpdate as update } from '../../helpers/run-update';
import { LOG_LIMIT } from '../../../src-renderer/src/store/server-slice';
import { TELEMETRY_WINDOW } from '../../../src-renderer/src/store/hardware-slice';

const K = 1024;
/**
 * A store holding run `run`'s session at revision 1, as the page does once it fetched it; the
 * cells then come in updates stamped from revision 1 (`cellsAt`).
 */
const withRunSession = (run = 1) => {
  const s = createAppStore();
  const meta = { ...s.getState().sessionMeta, revision: 1, replaced: 1, run, hasSession: true };
  s.getState().setSessionView({ meta, session: createSession({ simulated: true }), requestCounts: {} });
  return s;
};
let revision = 1;
const cellsAt = (cells: DecodeCell[]): Partial<RunUpdate> => ({ cells, revisions: { from: revision, to: ++revision } });
const runCells = (s: ReturnType<typeof createAppStore>) =>
  (runSession(s.getState())?.cells ?? []).map((c) => `${c.context}x${c.concurrency}`);
const done = (context: number, concurrency: number, status: DecodeCell['status'] = 'valid') =>
  ({ context, concurrency, status, totalTokensPerSecond: status === 'valid' ? 100 : null }) as DecodeCell;

describe('app slice', () => {
  it('lets informational notices go after a few seconds and keeps errors until dismissed, three at most', () => {
    vi.useFakeTimers();
    try {
      const s = createAppStore();
      s.getState().pushNotice({ level: 'error', message: 'Could not save: disk full.' });
      s.getState().pushNotice({ level: 'info', message: 'Saved a.json' });
      s.getState().pushNotice({ level: 'info', message: 'Saved b.json' });
      s.getState().pushNotice({ level: 'info', message: 'Saved c.json' });
      // Three at most; the oldest informational one made room, the error stayed.
      expect(s.getState().notices.map((n) => n.message)).toEqual([
        'Could not save: disk full.',
        'Saved b.json',
        'Saved c.json',
      ]);
      vi.advanceTimersByTime(6000);
      expect(s.getState().notices.map((n) => n.message)).toEqual(['Could not save: disk full.']);
      vi.advanceTimersByTime(60_000);
      expect(s.getState().notices).toHaveLength(1);
      s.getState().dismissNotice(s.getState().notices[0].id);
      expect(s.getState().notices).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is loading until the bridge answered, then ready with the version', () => {
    const s = createAppStore();
    expect(s.getState().appState).toBe('loading');
    s.getState().setAppInfo({
      name: 'SpeedMatrix',
      version: '0.1.0',
      platform: 'linux',
      host: 'bridge',
      simProfiles: [],
    });
    expect(s.getState().appState).toBe('ready');
    expect(s.getState().appInfo?.version).toBe('0.1.0');
  });

  it('keeps the last three notices, one per message, and dismisses by id', () => {
    const s = createAppStore();
    for (let i = 0; i < 7; i++) s.getState().pushNotice({ level: 'error', message: `n${i}` });
    s.getState().pushNotice({ level: 'error', message: 'n5' });
    const ns = s.getState().notices;
    expect(ns.map((n) => n.message)).toEqual(['n4', 'n6', 'n5']);
    s.getState().dismissNotice(ns[0].id);
    expect(s.getState().notices).toHaveLength(2);
  });
});

describe('run slice', () => {
  it('edits chips as sorted unique values and applies presets', () => {
    const s = createAppStore();
    s.getState().applyPreset('quick');
    expect(s.getState().runForm.contexts).toEqual([8 * K, 16 * K, 32 * K]);
    s.getState().addChip('contexts', 4 * K);
    s.getState().addChip('contexts', 8 * K);
    expect(s.getState().runForm.contexts).toEqual([4 * K, 8 * K, 16 * K, 32 * K]);
    s.getState().removeChip('concurrency', 2);
    expect(s.getState().runForm.concurrency).toEqual([1, 4, 8]);
    s.getState().applyPreset('seed');
    expect(s.getState().runForm.contexts.at(-1)).toBe(251 * K);
    expect(s.getState().runForm.concurrency).toEqual([]);
  });

  it('leaves requests at once automatic by default (empty: the plan decides); a level typed replaces it, the seed preset brings it back', () => {
    const s = createAppStore();
    expect(RUN_PRESETS[0].id).toBe('seed');
    expect(s.getState().runForm.concurrency).toEqual([]);
    s.getState().addChip('concurrency', 16);
    expect(s.getState().runForm.concurrency).toEqual([16]);
    s.getState().applyPreset('seed');
    expect(s.getState().runForm.concurrency).toEqual([]);
  });

  it('fills the form with the levels a session ran, never automatic', () => {
    const rc = sampleSession().runConfig;
    expect(rc.concurrency.length).toBeGreaterThan(0);
    expect(formFromRunConfig(rc).concurrency).toEqual(rc.concurrency);
  });

  it("accumulates finished cells from merged updates into the run's session, and shows none of them for a new run", () => {
    revision = 1;
    const s = withRunSession();
    s.getState().applyRunUpdate(update({ phase: 'starting' }));
    s.getState().applyRunUpdate(
      update({
        ...cellsAt([done(8 * K, 1)]),
        live: {
          context: 8 * K,
          concurrency: 2,
          stage: 'measuring',
          tokensPerSecond: 250,
          activeRequests: 2,
          outputTokens: 10,
          elapsedSeconds: 1,
        },
      }),
    );
    s.getState().applyRunUpdate(
      update({
        ...cellsAt([done(8 * K, 2), done(8 * K, 16, 'looped')]),
        progress: { done: 3, total: 4, unit: 'cell', etaSeconds: 10 },
      }),
    );
    expect(runCells(s)).toEqual(['8192x1', '8192x2', '8192x16']);
    expect(s.getState().session?.cells).toHaveLength(3);
    expect(s.getState().live?.tokensPerSecond).toBe(250);
    expect(s.getState().progress).toEqual({ done: 3, total: 4, unit: 'cell', etaSeconds: 10 });
    s.getState().applyRunUpdate(update({ phase: 'done' }));
    expect(s.getState().live).toBeNull();
    expect(runCells(s)).toHaveLength(3);
    // A new run: the open session is the last run's until the new one's is fetched.
    s.getState().applyRunUpdate(update({ phase: 'starting', run: 2 }));
    expect(runSession(s.getState())).toBeNull();
    expect(s.getState().session?.cells).toHaveLength(3);
  });

  it('drops an update older than one already applied (a late invoke reply), so finished cells never vanish', () => {
    revision = 1;
    const s = withRunSession();
    const reply = update({ phase: 'starting', run: 1 });
    s.getState().applyRunUpdate(update({ phase: 'prefill', run: 1, ...cellsAt([done(8 * K, 1)]) }));
    s.getState().applyRunUpdate(reply);
    expect(s.getState().runPhase).toBe('prefill');
    expect(runCells(s)).toEqual(['8192x1']);
    // A finished run's late update does not overwrite a newer run either.
    s.getState().applyRunUpdate(update({ phase: 'starting', run: 2 }));
    s.getState().applyRunUpdate(update({ phase: 'done', run: 1 }));
    expect(s.getState().runPhase).toBe('starting');
  });

  it("applies a frame's batch of updates as the same updates one by one, in one store change", () => {
    const live = (tps: number) => ({
      context: 8 * K,
      concurrency: 2,
      stage: 'measuring' as const,
      tokensPerSecond: tps,
      activeRequests: 2,
      outputTokens: 10,
      elapsedSeconds: 1,
    });
    revision = 1;
    const batch = [
      update({ phase: 'starting' }),
      update({ ...cellsAt([done(8 * K, 1)]), live: live(1) }),
      update({ live: live(2), progress: { done: 1, total: 4, unit: 'cell', etaSeconds: 9 } }),
      update({ phase: 'done', message: 'Finished.' }),
    ];
    const one = withRunSession();
    for (const u of batch) one.getState().applyRunUpdate(u);
    const batched = withRunSession();
    let changes = 0;
    batched.subscribe(() => changes++);
    batched.getState().applyRunUpdates(batch);
    expect(changes).toBe(1);
    const pick = (s: ReturnType<typeof one.getState>) => ({
      phase: s.runPhase,
      live: s.live,
      progress: s.progress,
      cells: s.session?.cells,
      revision: s.sessionRevision,
      message: s.runMessage,
    });
    expect(pick(batched.getState())).toEqual(pick(one.getState()));
  });

  it('keeps finished cells and prefill points as they were when an update brings only a live sample', () => {
    revision = 1;
    const s = withRunSession();
    s.getState().applyRunUpdate(update(cellsAt([done(8 * K, 1)])));
    const { session } = s.getState();
    s.getState().applyRunUpdate(
      update({
        live: {
          context: 8 * K,
          concurrency: 2,
          stage: 'measuring',
          tokensPerSecond: 5,
          activeRequests: 2,
          outputTokens: 1,
          elapsedSeconds: 1,
        },
      }),
    );
    expect(s.getState().session).toBe(session);
    expect(runSession(s.getState())?.cells).toBe(session?.cells);
    expect(runSession(s.getState())?.prefill).toBe(session?.prefill);
  });

  it('keeps prefill points sorted by context, a repeat replacing the earlier one', () => {
    revision = 1;
    const s = withRunSession();
    const p = (context: number, tps: number) => ({
      context,
      status: 'valid' as const,
      reason: null,
      promptTokens: context,
      ttftSeconds: 1,
      tokensPerSecond: tps,
      measuredAt: null,
    });
    s.getState().applyRunUpdate(
      update({ phase: 'prefill', prefill: [p(16 * K, 2)], revisions: { from: revision, to: ++revision } }),
    );
    s.getState().applyRunUpdate(
      update({ prefill: [p(8 * K, 1), p(16 * K, 3)], revisions: { from: revision, to: (revision += 2) } }),
    );
    expect(runSession(s.getState())?.prefill.map((x) => [x.context, x.tokensPerSecond])).toEqual([
      [8 * K, 1],
      [16 * K, 3],
    ]);
  });

  it('shows a failed run with its message', () => {
    const s = createAppStore();
    s.getState().applyRunUpdate(update({ phase: 'failed', message: 'The server stopped answering.' }));
    expect(s.getState().runError).toBe('The server stopped answering.');
  });
});

describe('server slice', () => {
  let seq = 0;
  const snap = (state: ServerSnapshot['state'], startedAt: number | null = 1): ServerSnapshot => ({
    state,
    kind: 'simulator',
    display: 'speedmatrix sim serve m',
    startedAt,
    progress: null,
    ready: null,
    failure: null,
    seq: ++seq,
  });

  it('keeps the newest state when an older snapshot arrives after it', () => {
    const s = createAppStore();
    const starting = snap('starting');
    s.getState().setServerSnapshot(snap('failed'));
    s.getState().setServerSnapshot(starting);
    expect(s.getState().server.state).toBe('failed');
  });

  it('renders what the supervisor says, and a new start clears the old log', () => {
    const s = createAppStore();
    s.getState().setServerSnapshot(snap('starting', 1));
    s.getState().appendServerLog(['INFO loading', 'INFO ready']);
    s.getState().setServerSnapshot(snap('ready', 1));
    expect(s.getState().serverLog).toHaveLength(2);
    s.getState().setServerSnapshot(snap('exited', 1));
    s.getState().setServerSnapshot(snap('starting', 2));
    expect(s.getState().serverLog).toEqual([]);
    expect(s.getState().server.state).toBe('starting');
  });

  it('caps the log it keeps', () => {
    const s = createAppStore();
    s.getState().appendServerLog(Array.from({ length: LOG_LIMIT + 10 }, (_, i) => `line ${i}`));
    expect(s.getState().serverLog).toHaveLength(LOG_LIMIT);
    expect(s.getState().serverLog[0]).toBe('line 10');
  });

  it('edits the form only once defaults arrived', () => {
    const s = createAppStore();
    s.getState().updateServerForm({ model: 'x' });
    expect(s.getState().serverForm).toBeNull();
  });
});

describe('hardware slice', () => {
  it('keeps a rolling telemetry window per GPU', () => {
    const s = createAppStore();
    const sample = (gpu: number, at: number) => ({
      at,
      gpu,
      utilization: 0.5,
      memoryUsedBytes: 1,
      memoryTotalBytes: 2,
      powerWatts: 300,
      temperatureC: 60,
    });
    s.getState().addTelemetry(Array.from({ length: TELEMETRY_WINDOW + 5 }, (_, i) => sample(0, i)));
    s.getState().addTelemetry([sample(1, 0)]);
    expect(s.getState().telemetry[0]).toHaveLength(TELEMETRY_WINDOW);
    expect(s.getState().telemetry[0][0].at).toBe(5);
    expect(s.getState().telemetry[1]).toHaveLength(1);
  });
});

describe('session slice', () => {
  it('toggles sort direction on the same column; numbers start descending, axes ascending', () => {
    const s = createAppStore();
    s.getState().toggleSort('total');
    expect(s.getState().sort).toEqual({ column: 'total', descending: true });
    s.getState().toggleSort('total');
    expect(s.getState().sort).toEqual({ column: 'total', descending: false });
    s.getState().toggleSort('context');
    expect(s.getState().sort).toEqual({ column: 'context', descending: false });
  });
});
