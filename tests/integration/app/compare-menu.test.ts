/**
 * Comparisons through the app's main process (the built bundle in plain Node against the
 * electron stand-in): File > Open Sweep… and Compare Sessions… send their commands to the page,
 * and the core's folder and multi-file dialogs are the native ones, with what the person picks
 * (or a cancel) coming back as the channel's answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  MAIN_BUNDLE,
  type MainProcess,
  type Recorded,
  bootMain,
  hasMainBundle,
  menuItem,
} from './electron-standin/boot';

const tmp = mkdtempSync(join(tmpdir(), 'speedmatrix-compare-menu-'));
const running: MainProcess[] = [];
afterEach(() => {
  for (const m of running.splice(0)) m.kill();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => {
  if (!hasMainBundle) throw new Error(`${MAIN_BUNDLE} is missing: run \`npm run build\` first.`);
});

let n = 0;
async function started(): Promise<{ m: MainProcess; s: Recorded }> {
  const m = bootMain({ userData: join(tmp, `user-${++n}`) });
  running.push(m);
  const s = await m.waitFor((x) => x.windows.length > 0 && x.applicationMenus.length > 0, 'the window and the menu');
  return { m, s };
}

const openFileDialog = (m: MainProcess) =>
  m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'a file dialog');

describe('comparisons in the app', () => {
  it('File > Open Sweep… and Compare Sessions… send their commands to the page', async () => {
    const { m, s } = await started();
    const file = menuItem(s.applicationMenus.at(-1), 'File')!.submenu!.map((i) => i.label);
    expect(file.slice(0, 3)).toEqual(['Open…', 'Open Sweep…', 'Compare Sessions…']);
    await m.call('menuClick', { path: ['File', 'Open Sweep…'] });
    await m.call('menuClick', { path: ['File', 'Compare Sessions…'] });
    const after = await m.state();
    const sent = after.sent.filter((x) => x.channel === 'speedmatrix:menu').map((x) => x.args[0]);
    expect(sent).toEqual(['open-sweep', 'compare-sessions']);
  });

  it('asks for a folder for a sweep and for several files to compare; what is picked is read, a cancel says nothing', async () => {
    const { m } = await started();
    const notSweep = mkdtempSync(join(tmp, 'plain-folder-'));
    const sweep = m.call<{ ok: boolean; error?: string }>('invoke', { channel: 'compare:open-sweep', args: [] });
    const dialog = (await openFileDialog(m)).fileDialogs.find((d) => d.answer === null)!;
    expect(dialog.kind).toBe('open');
    const properties = (dialog.options as { properties?: string[] }).properties;
    expect(properties).toContain('openDirectory');
    expect(properties).not.toContain('openFile');
    await m.call('answer', { kind: 'file', answer: { canceled: false, filePaths: [notSweep] } });
    expect(await sweep).toEqual({
      ok: false,
      error: `${notSweep} is not a sweep folder: it has no sweep.json, and no file in it opens as results (a comparison needs two).`,
    });

    const files = m.call<{ ok: boolean; code?: string }>('invoke', { channel: 'compare:open-sessions', args: [] });
    const many = (await openFileDialog(m)).fileDialogs.find((d) => d.answer === null)!;
    expect((many.options as { properties?: string[] }).properties).toEqual(['openFile', 'multiSelections']);
    await m.call('answer', { kind: 'file', answer: { canceled: true, filePaths: [] } });
    expect(await files).toMatchObject({ ok: false, code: 'cancelled' });
  });
});
