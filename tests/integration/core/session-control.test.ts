/** The open session: real files on disk, a failed save that loses nothing, imports, recent files. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { CoreEvents } from '../../../src-main/hosts/app-core/emitter';
import { RecentFiles } from '../../../src-main/hosts/app-core/recent-files';
import { SessionControl } from '../../../src-main/hosts/app-core/session-control';
import type { SessionMeta } from '#shared/ipc/contract';
import { createSession } from '../../../src-main/platform/session/create';
import { serializeSession } from '../../../src-main/platform/session/write';
import { BIG_SAMPLES, bigSession } from '../../bench/lib/big-session';
import { SYNTHETIC_REPORT } from '../../helpers/paths';
import { noGpu } from '../../helpers/core-sim';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('session files through the core', () => {
  const core = createAppCore({ host: 'bridge', dataDir: join(dir, 'app'), detectHardware: noGpu });

  it('keeps the results in memory and says so when a save fails, then saves elsewhere', async () => {
    const opened = await core.invoke('session:open-data', [
      { name: 'a.speedmatrix.json', text: serializeSession(createSession({ simulated: true })) },
    ]);
    expect(opened.ok).toBe(true);
    const bad = await core.invoke('session:save', [join(dir, 'no-such-folder', 'x.speedmatrix.json')]);
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.error).toMatch(
        /Could not save .*x\.speedmatrix\.json: the folder does not exist\. Your results are still open here; use Save As/,
      );
    const view = await core.invoke('session:get', []);
    expect(view.ok && view.data.session?.simulated).toBe(true);
    expect(view.ok && view.data.meta.saveError).toMatch(/folder does not exist/);
    const good = await core.invoke('session:save-as', [join(dir, 'kept')]);
    expect(good.ok && good.data).toMatchObject({
      file: join(dir, 'kept.speedmatrix.json'),
      dirty: false,
      saveError: null,
    });
    expect(JSON.parse(readFileSync(join(dir, 'kept.speedmatrix.json'), 'utf8')).format).toBe('speedmatrix-session');
    const recent = await core.invoke('session:recent', []);
    expect(recent.ok && recent.data[0]).toBe(join(dir, 'kept.speedmatrix.json'));
  });

  it('answers a closed file dialog with the result code cancelled, and keeps the session as it was', async () => {
    const closed = { chooseOpenPath: async () => null, chooseSavePath: async () => null };
    const withDialogs = createAppCore({
      host: 'bridge',
      dataDir: join(dir, 'app-dialogs'),
      detectHardware: noGpu,
      dialogs: closed,
    });
    try {
      expect(await withDialogs.invoke('session:open', [])).toEqual({
        ok: false,
        error: 'Cancelled.',
        code: 'cancelled',
      });
      await withDialogs.invoke('session:open-data', [
        { name: 'b.speedmatrix.json', text: serializeSession(createSession({ simulated: true })) },
      ]);
      expect(await withDialogs.invoke('session:save-as', [])).toMatchObject({ ok: false, code: 'cancelled' });
      expect(await withDialogs.invoke('report:export', ['markdown'])).toMatchObject({ ok: false, code: 'cancelled' });
      const view = await withDialogs.invoke('session:get', []);
      expect(view.ok && view.data.meta).toMatchObject({ file: null, saveError: null });
      // A real failure carries no code: the page shows it.
      const bad = await withDialogs.invoke('session:open', [join(dir, 'missing.speedmatrix.json')]);
      expect(bad.ok === false && bad.code).toBeUndefined();
    } finally {
      await withDialogs.dispose();
    }
  });

  it('imports another tool’s report text opened by path or dropped, with nothing unsaved: its file is still there, unchanged', async () => {
    const dropped = await core.invoke('session:open-data', [
      { name: 'dropped.txt', text: readFileSync(SYNTHETIC_REPORT, 'utf8') },
    ]);
    expect(dropped.ok && dropped.data).toMatchObject({ file: null, dirty: false, sourceName: 'dropped.txt' });
    expect(core.hasUnsavedChanges()).toBe(false);
    const r = await core.invoke('session:open', [SYNTHETIC_REPORT]);
    expect(r.ok && r.data).toMatchObject({ file: null, dirty: false, sourceName: 'synthetic-matrix.txt' });
    expect(core.hasUnsavedChanges()).toBe(false);
    const v = await core.invoke('session:get', []);
    expect(v.ok && v.data.session?.cells.length).toBe(6);
  });

  it('refuses a file that is neither a session nor importable, with what was expected', async () => {
    const f = join(dir, 'notes.txt');
    writeFileSync(f, 'hello');
    const r = await core.invoke('session:open', [f]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/notes\.txt is not a file SpeedMatrix can import/);
  });

  it('exports Markdown and HTML beside the session file', async () => {
    await core.invoke('session:open', [join(dir, 'kept.speedmatrix.json')]);
    const md = await core.invoke('report:export', ['markdown']);
    expect(md.ok && md.data.file).toBe(join(dir, 'kept.md'));
    const html = await core.invoke('report:export', ['html']);
    expect(html.ok && html.data.file).toBe(join(dir, 'kept.html'));
    expect(readFileSync(join(dir, 'kept.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    const pdf = await core.invoke('report:export', ['pdf']);
    expect(pdf.ok).toBe(false);
    if (!pdf.ok) expect(pdf.error).toMatch(/PDF export is not available here/);
  });

  it("sends the page a session without per-request samples, and one cell's samples when asked", async () => {
    const big = bigSession();
    expect(
      (await core.invoke('session:open-data', [{ name: 'big.speedmatrix.json', text: serializeSession(big) }])).ok,
    ).toBe(true);
    const view = await core.invoke('session:get', []);
    if (!view.ok || !view.data.session) throw new Error('no session view');
    expect(view.data.session.cells.length).toBe(big.cells.length);
    expect(view.data.session.cells.every((c) => c.requests === null)).toBe(true);
    const counts = Object.values(view.data.requestCounts);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(BIG_SAMPLES);
    // The view is a fraction of the file: the samples are most of it.
    expect(JSON.stringify(view.data).length).toBeLessThan(serializeSession(big).length / 10);

    const cell = big.cells.find((c) => c.requests && c.requests.sentAt.length > 0);
    if (!cell?.requests) throw new Error('the big session has no samples');
    const one = await core.invoke('session:cell-requests', [{ context: cell.context, concurrency: cell.concurrency }]);
    expect(one.ok && one.data?.requests).toEqual(cell.requests);
    expect(view.data.requestCounts[`${cell.context}x${cell.concurrency}`]).toBe(cell.requests.sentAt.length);
    const none = await core.invoke('session:cell-requests', [{ context: 3, concurrency: 7 }]);
    expect(none.ok && none.data).toBeNull();
    const bad = await core.invoke('session:cell-requests', [{ context: -1, concurrency: 0 }]);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^Bad arguments for session:cell-requests: 0\.context/);

    // Save still writes every sample: the core keeps the full session.
    const file = join(dir, 'big-saved.speedmatrix.json');
    expect((await core.invoke('session:save-as', [file])).ok).toBe(true);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as typeof big;
    expect(saved.cells.reduce((a, c) => a + (c.requests?.sentAt.length ?? 0), 0)).toBe(BIG_SAMPLES);
  });
});

describe('what the page is told about a change of the open session', () => {
  const point = { context: 8192, status: 'valid', reason: null, promptTokens: 8192, ttftSeconds: 1 } as const;

  it('marks a replacement, not a finished cell, prefill point or save, and says which run measures into it', async () => {
    const events = new CoreEvents();
    const metas: SessionMeta[] = [];
    events.on('session:meta', (m) => metas.push(m));
    const sessions = new SessionControl(events, new RecentFiles(null), null);
    sessions.set(createSession({ simulated: true }), { file: null, dirty: true, run: 3 });
    const start = sessions.meta();
    expect(start).toMatchObject({ revision: 1, replaced: 1, run: 3 });
    const cell = bigSession().cells[0];
    expect(sessions.applyCell(cell)).toBe(2);
    expect(sessions.applyPrefill({ ...point, tokensPerSecond: 10, measuredAt: null })).toBe(3);
    expect(sessions.meta()).toMatchObject({ revision: 3, replaced: 1, run: 3 });
    // A save changes only the meta: the page keeps the session it holds.
    await sessions.save(join(dir, 'events.speedmatrix.json'));
    expect(sessions.meta()).toMatchObject({ revision: 3, replaced: 1, dirty: false });
    // A resume into it: the same content, now run 4's.
    sessions.adopt(4);
    expect(sessions.meta()).toMatchObject({ revision: 3, replaced: 1, run: 4 });
    // Every change reached the page as a meta, in order.
    expect(metas.map((m) => [m.revision, m.replaced, m.run])).toEqual([
      [1, 1, 3],
      [2, 1, 3],
      [3, 1, 3],
      [3, 1, 3],
      [3, 1, 4],
    ]);
    // A file opened is no run's.
    sessions.openData('b.speedmatrix.json', serializeSession(createSession({ simulated: true })));
    expect(sessions.meta()).toMatchObject({ revision: 4, replaced: 4, run: null });
  });

  it('answers no session with no revision', () => {
    const sessions = new SessionControl(new CoreEvents(), new RecentFiles(null), null);
    expect(sessions.applyCell(bigSession().cells[0])).toBeNull();
    expect(sessions.meta()).toMatchObject({ revision: 0, hasSession: false });
  });
});
