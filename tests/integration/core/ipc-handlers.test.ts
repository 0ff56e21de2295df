/**
 * The ipcMain side, with electron mocked: every contract channel is handled, a message from
 * anything but our window's main frame is refused before the core sees it (by identity, not
 * URL), arguments are validated, and core events reach the window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { invokeArgs } from '#shared/ipc/contract';
import { IPC_PREFIX } from '#shared/ipc/channels';
import { DROPPED_FILE_CHANNEL } from '#shared/ipc/channels';
import { REFUSED, isTrustedSender, registerIpc } from '../../../src-main/hosts/electron/ipc-handlers';
import { createSession } from '../../../src-main/platform/session/create';
import { serializeSession } from '../../../src-main/platform/session/write';

const handlers = vi.hoisted(() => new Map<string, (event: unknown, ...args: unknown[]) => unknown>());
vi.mock('electron', () => ({
  ipcMain: {
    handle: (ch: string, fn: (event: unknown, ...args: unknown[]) => unknown) => handlers.set(ch, fn),
    removeHandler: (ch: string) => handlers.delete(ch),
  },
}));

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-ipc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const RENDERER = 'file:///C:/Program%20Files/SpeedMatrix/resources/app/out/renderer/index.html';
const mainFrame = { url: RENDERER, processId: 4, frameToken: 'main-token', parent: null };
const sent: [string, unknown][] = [];
const webContents = { mainFrame, send: (ch: string, p: unknown) => sent.push([ch, p]) };
const win = { isDestroyed: () => false, webContents };
const ours = { sender: webContents, senderFrame: mainFrame };

describe('registerIpc', () => {
  const core = createAppCore({
    host: 'electron',
    dataDir: dir,
    allowWritePaths: false,
    detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
  });
  registerIpc(core, () => win as never);

  it('handles every invoke channel of the contract, namespaced, and the preload’s drop channel', () => {
    expect([...handlers.keys()].sort()).toEqual(
      [...Object.keys(invokeArgs).map((c) => IPC_PREFIX + c), DROPPED_FILE_CHANNEL].sort(),
    );
  });

  it('answers our page with the core result', async () => {
    const r = (await handlers.get(`${IPC_PREFIX}app:info`)!(ours)) as { ok: boolean; data: { host: string } };
    expect(r.ok).toBe(true);
    expect(r.data.host).toBe('electron');
  });

  it.each([
    [
      'a child frame with the same URL',
      { sender: webContents, senderFrame: { url: RENDERER, processId: 4, frameToken: 'child', parent: mainFrame } },
    ],
    [
      'a web page frame',
      {
        sender: webContents,
        senderFrame: { url: 'https://example.com/', processId: 9, frameToken: 'x', parent: null },
      },
    ],
    ['another window showing our page', { sender: { mainFrame }, senderFrame: mainFrame }],
    ['no frame', { sender: webContents, senderFrame: null }],
  ])('refuses %s', async (_name, event) => {
    const r = (await handlers.get(`${IPC_PREFIX}app:info`)!(event)) as { ok: boolean; error: string };
    expect(r).toEqual({ ok: false, error: REFUSED });
  });

  it('trusts the main frame by identity, whatever its URL spells (drive-letter case on Windows)', () => {
    const sameFrameOtherSpelling = {
      url: RENDERER.replace('C:', 'c:'),
      processId: 4,
      frameToken: 'main-token',
      parent: null,
    };
    expect(isTrustedSender({ sender: webContents, senderFrame: sameFrameOtherSpelling } as never, win as never)).toBe(
      true,
    );
    expect(isTrustedSender(ours as never, null)).toBe(false);
    expect(isTrustedSender(ours as never, { ...win, isDestroyed: () => true } as never)).toBe(false);
  });

  it('validates arguments against the contract', async () => {
    const r = (await handlers.get(`${IPC_PREFIX}run:plan`)!(ours, { contexts: 'all' })) as {
      ok: boolean;
      error: string;
    };
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^Bad arguments for run:plan: 0\.contexts: /);
    const e = (await handlers.get(`${IPC_PREFIX}shell:open-external`)!(ours, 'javascript:alert(1)')) as { ok: boolean };
    expect(e.ok).toBe(false);
  });

  it('forwards core events to the window', async () => {
    const bad = (await handlers.get(`${IPC_PREFIX}session:open-data`)!(ours, { name: 'x.json', text: '{' })) as {
      ok: boolean;
      error: string;
    };
    expect(bad.error).toMatch(/x\.json is not valid JSON/);
    expect(sent).toEqual([]);
    const good = (await handlers.get(`${IPC_PREFIX}session:open-data`)!(ours, {
      name: 'y.json',
      text: serializeSession(createSession()),
    })) as { ok: boolean };
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
});
