/**
 * File > Publish Site… through the app's main process (the built bundle in plain Node against
 * the electron stand-in): the menu sends its command to the page; the core asks for the folder
 * of runs and then the site folder in native folder dialogs titled so, builds the site there
 * and answers with what it holds; a cancel says nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serializeSession } from '../../../src-main/platform/session/write';
import { sampleSession } from '../../helpers/sample-session';
import { MAIN_BUNDLE, type MainProcess, bootMain, hasMainBundle, menuItem } from './electron-standin/boot';

const tmp = mkdtempSync(join(tmpdir(), 'speedmatrix-publish-site-'));
const running: MainProcess[] = [];
afterEach(() => {
  for (const m of running.splice(0)) m.kill();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => {
  if (!hasMainBundle) throw new Error(`${MAIN_BUNDLE} is missing: run \`npm run build\` first.`);
});

let n = 0;
async function started(): Promise<MainProcess> {
  const m = bootMain({ userData: join(tmp, `user-${++n}`) });
  running.push(m);
  await m.waitFor((x) => x.windows.length > 0 && x.applicationMenus.length > 0, 'the window and the menu');
  return m;
}

/** The folder dialog waiting for an answer: its title, answered with `path` (null: cancel). */
async function answerFolder(m: MainProcess, path: string | null): Promise<string> {
  const s = await m.waitFor((x) => x.fileDialogs.some((d) => d.answer === null), 'a folder dialog');
  const dialog = s.fileDialogs.find((d) => d.answer === null)!;
  const options = dialog.options as { title?: string; properties?: string[] };
  // A folder picker that can make the folder there and then (macOS; Windows).
  expect(options.properties).toEqual(['openDirectory', 'createDirectory', 'promptToCreate']);
  await m.call('answer', {
    kind: 'file',
    answer: path === null ? { canceled: true, filePaths: [] } : { canceled: false, filePaths: [path] },
  });
  return options.title ?? '';
}

describe('File > Publish Site… in the app', () => {
  it('sends its command to the page', async () => {
    const m = await started();
    const file = menuItem((await m.state()).applicationMenus.at(-1), 'File')!.submenu!.map((i) => i.label);
    expect(file).toContain('Publish Site…');
    await m.call('menuClick', { path: ['File', 'Publish Site…'] });
    const sent = (await m.state()).sent.filter((x) => x.channel === 'speedmatrix:menu').map((x) => x.args[0]);
    expect(sent).toEqual(['publish-site']);
  });

  it('asks for the runs and the site folder, builds the site there, and a cancel says nothing', async () => {
    const m = await started();
    const runs = join(tmp, 'runs');
    mkdirSync(runs, { recursive: true });
    writeFileSync(join(runs, 'a.speedmatrix.json'), serializeSession(sampleSession()));
    writeFileSync(join(runs, 'broken.speedmatrix.json'), '{"format": "speedmatrix-session", "formatVersion": 1}');
    const site = join(tmp, 'site');

    const published = m.call<{ ok: boolean; data?: Record<string, unknown> }>('invoke', {
      channel: 'site:publish',
      args: [],
    });
    expect(await answerFolder(m, runs)).toBe('The folder of runs to publish');
    expect(await answerFolder(m, site)).toBe('The folder the site goes to');
    expect(await published).toEqual({
      ok: true,
      data: { dir: site, index: join(site, 'index.html'), runs: 2, unreadable: 1, written: 2, kept: 0, removed: 0 },
    });
    const index = readFileSync(join(site, 'index.html'), 'utf8');
    expect(index).toContain('a.speedmatrix.json');
    expect(index).toContain('broken.speedmatrix.json is not a valid session');
    expect(existsSync(join(site, 'site.js'))).toBe(true);

    const cancelled = m.call<{ ok: boolean; code?: string }>('invoke', { channel: 'site:publish', args: [] });
    await answerFolder(m, null);
    expect(await cancelled).toMatchObject({ ok: false, code: 'cancelled' });
  });
});
