/**
 * The ipcMain side, with electron mocked: every contract channel is handled, a message from
 * any frame but our page is refused before the core sees it, arguments are validated, and
 * core events reach the window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAppCore } from '../../../src-main/core';
import { IPC_PREFIX, invokeArgs } from '../../../src-shared/ipc/contract';
import { isTrustedFrame, registerIpc } from '../../../src-main/ipc/handlers';
import { createSession } from '../../../src-main/session/create';
import { serializeSession } from '../../../src-main/session/write';

const handlers = vi.hoisted(() => new Map<string, (event: unknown, ...args: unknown[]) => unknown>());
vi.mock('electron', () => ({
  ipcMain: {
    handle: (ch: string, fn: (event: unknown, ...args: unknown[]) => unknown) => handlers.set(ch, fn),
    removeHandler: (ch: string) => handlers.delete(ch),
  },
}));


const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-ipc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const RENDERER = 'file:///opt/SpeedMatrix/resources/app/out/renderer/index.html';
const ours = { senderFrame: { url: RENDERER } };

describe('registerIpc', () => {
  const core = createAppCore({ host: 'electron', dataDir: dir, allowWritePaths: false, detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }) });
  const sent: [string, unknown][] = [];
  const win = { isDestroyed: () => false, webContents: { send: (ch: string, p: unknown) => sent.push([ch, p]) } };
  registerIpc(core, () => win as never, RENDERER);

  it('handles every invoke channel of the contract, namespaced', () => {
    expect([...handlers.keys()].sort()).toEqual(Object.keys(invokeArgs).map((c) => IPC_PREFIX + c).sort());
  });

  it('answers our page with the core result', async () => {
    const r = (await handlers.get(`${IPC_PREFIX}app:info`)!(ours)) as { ok: boolean; data: { host: string } };
    expect(r.ok).toBe(true);
    expect(r.data.host).toBe('electron');
  });

  it.each([
    ['another file page', 'file:///tmp/evil/index.html'],
    ['a web page', 'https://example.com/'],
    ['no frame', null],
  ])('refuses %s', async (_name, url) => {
    const r = (await handlers.get(`${IPC_PREFIX}app:info`)!({ senderFrame: url === null ? null : { url } })) as { ok: boolean; error: string };
    expect(r).toEqual({ ok: false, error: 'Refused: this message did not come from the SpeedMatrix window.' });
  });

  it('validates arguments against the contract', async () => {
    const r = (await handlers.get(`${IPC_PREFIX}run:plan`)!(ours, { contexts: 'all' })) as { ok: boolean; error: string };
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^Bad arguments for run:plan: 0\.contexts: /);
    const e = (await handlers.get(`${IPC_PREFIX}shell:open-external`)!(ours, 'javascript:alert(1)')) as { ok: boolean };
    expect(e.ok).toBe(false);
  });

  it('forwards core events to the window', async () => {
    const bad = (await handlers.get(`${IPC_PREFIX}session:open-data`)!(ours, { name: 'x.json', text: '{' })) as { ok: boolean; error: string };
    expect(bad.error).toMatch(/x\.json is not valid JSON/);
    expect(sent).toEqual([]);
    const good = (await handlers.get(`${IPC_PREFIX}session:open-data`)!(ours, { name: 'y.json', text: serializeSession(createSession()) })) as { ok: boolean };
    expect(good.ok).toBe(true);
    expect(sent.map(([ch]) => ch)).toEqual([`${IPC_PREFIX}session:meta`]);
    expect(sent[0][1]).toMatchObject({ hasSession: true, dirty: false, file: null, sourceName: 'y.json' });
  });

  it('lets the page write only where a dialog chose, never a path it names', async () => {
    for (const [ch, args] of [
      ['session:save', [join(dir, 'evil.speedmatrix.json')]],
      ['session:save-as', [join(dir, 'evil.speedmatrix.json')]],
      ['report:export', ['markdown', join(dir, '.bashrc')]],
    ] as const) {
      const r = (await handlers.get(IPC_PREFIX + ch)!(ours, ...args)) as { ok: boolean; error: string };
      expect(r).toEqual({ ok: false, error: 'Choose where to save in the file dialog.' });
    }
  });

  it('trusts the dev server only by origin', () => {
    expect(isTrustedFrame({ url: 'http://localhost:5173/index.html' } as never, 'http://localhost:5173')).toBe(true);
    expect(isTrustedFrame({ url: 'http://localhost:5174/' } as never, 'http://localhost:5173')).toBe(false);
  });
});
