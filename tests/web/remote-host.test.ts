/**
 * "Remote host (SSH)" in the app (real renderer in Chromium, real core over the bridge, a real
 * OpenSSH server on 127.0.0.1 whose sessions run the packed and installed CLI: tests/helpers/sshd.ts):
 * the host's hardware as its own speedmatrix detects it, the simulator started there, a small
 * matrix measured there with its cells arriving live here, and the session opened in Results.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { cellKey } from '#shared/cell-key';
import { freePort } from '../../src-main/engine/server/port';
import { readSessionFile } from '../../src-main/platform/session/read';
import { sshWebTest as it } from '../helpers/fixtures';
import type { BridgeServer } from '../helpers/bridge-server';
import { coreSession, expectResultsMatchReport } from '../helpers/results-dom';
import { setChips } from '../helpers/run-view';
import { type Sshd, commandLinesHolding, filesHolding, followClientOf, sshdAvailable } from '../helpers/sshd';
import { hasChromium, openPage, shot } from './browser';

const fill = (page: Page, id: string, value: string) => page.locator(`#${id}`).fill(value);

/** No sideways scrolling: the page is no wider than the window. */
const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

/** Start the simulator on the host from the Server view (host and options filled in), and wait until it is ready. */
async function startSimThere(page: Page, sshHost: Sshd, simSpeed: number, apiKey = ''): Promise<number> {
  await page.locator('nav button', { hasText: 'Server' }).click();
  await page.locator('input[name="where"][value="ssh"]').check();
  await fill(page, 'srv-sshHost', sshHost.host);
  await fill(page, 'srv-sshOptions', sshHost.options.join('\n'));
  await fill(page, 'srv-apiKey', apiKey);
  const port = await freePort();
  await fill(page, 'srv-port', String(port));
  await fill(page, 'srv-simSpeed', String(simSpeed));
  await fill(page, 'srv-simLoad', '0');
  await fill(page, 'srv-maxModelLen', '32K');
  await page.getByTestId('start-server').click();
  await page.locator('[data-testid="server-status"][data-state="ready"]').waitFor({ timeout: 60_000 });
  return port;
}

async function stopServerThere(page: Page, port: number): Promise<void> {
  await page.locator('nav button', { hasText: 'Server' }).click();
  await page.getByTestId('stop-server').click();
  await page.locator('[data-testid="server-status"][data-state="exited"]').waitFor({ timeout: 30_000 });
  await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow();
}

/** A 0 x {1,2,4,8} matrix of `seconds` windows, started from the Run view. */
async function startMatrix(page: Page, seconds: number): Promise<void> {
  await page.locator('nav button', { hasText: 'Run' }).click();
  await setChips(page, 'contexts', ['0']);
  await setChips(page, 'concurrency', ['1', '2', '4', '8']);
  await fill(page, 'run-seconds', String(seconds));
  await fill(page, 'run-maxout', '512');
  await expect.poll(() => page.getByTestId('plan-summary').textContent()).toMatch(/4 of 4 cells to run/);
  await page.getByTestId('start-run').click();
}

const runsThere = (home: string) => join(home, '.speedmatrix', 'remote');

/** The host's folder of the newest run the app started (`run`, not the server's `serve`), waiting for it to appear. */
async function runFolderThere(home: string, before: string[]): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      () =>
        (found = readdirSync(runsThere(home)).find(
          (id) =>
            !before.includes(id) &&
            existsSync(join(runsThere(home), id, 'resume.args')) &&
            readFileSync(join(runsThere(home), id, 'resume.args'), 'utf8').startsWith('run\n'),
        )),
      { timeout: 30_000 },
    )
    .toBeDefined();
  return join(runsThere(home), found!);
}

/**
 * A new page of the app, the simulator started on the host (at twice the speed: each cell's window of 8 s, or
 * `seconds`, takes half that, so a test has time to cut in) and a 0 x {1,2,4,8} matrix running there, its first cell in. A session the
 * test before left unsaved is discarded when the run starts.
 */
async function runningThere(
  browser: Browser,
  bridge: BridgeServer,
  sshHost: Sshd,
  o: { apiKey?: string; seconds?: number } = {},
) {
  const { page, problems } = await openPage(browser, bridge.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForSelector('[data-app-state="ready"]');
  page.on('dialog', (d) => void d.accept());
  const port = await startSimThere(page, sshHost, 2, o.apiKey);
  const before = existsSync(runsThere(sshHost.home)) ? readdirSync(runsThere(sshHost.home)) : [];
  await startMatrix(page, o.seconds ?? 8);
  const folder = await runFolderThere(sshHost.home, before);
  const heat = page.getByTestId('heatmap');
  await expect.poll(async () => heat.locator('[data-kind="value"]').count(), { timeout: 60_000 }).toBe(1);
  return { page, problems, port, folder, heat };
}

interface Line {
  type: string;
  context?: number;
  concurrency?: number;
}
/** The cells the run there started, in order, from its progress lines. */
const startedThere = (folder: string): string[] =>
  readFileSync(join(folder, 'progress.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line)
    .filter((e) => e.type === 'cell-start')
    .map((e) => cellKey({ context: e.context!, concurrency: e.concurrency! }));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!hasChromium || !sshdAvailable)('a remote host over SSH in the app', () => {
  it('shows the host’s hardware, runs a simulator matrix there with live cells here, and opens its session in Results', async ({
    sshHost,
    bridge,
    browser,
  }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.locator('input[name="where"][value="ssh"]').check();
    expect(await page.locator('input[name="kind"][value="attach"]').count()).toBe(0);
    // A key the host refuses first: the Hardware view says what to do, and nothing is asked for.
    const stranger = sshHost.options.map((o) =>
      o.startsWith('IdentityFile=') ? `IdentityFile=${sshHost.strangerKey}` : o,
    );
    await fill(page, 'srv-sshOptions', stranger.join('\n'));
    await fill(page, 'srv-sshHost', sshHost.host);
    await page.locator('nav button', { hasText: 'Hardware' }).click();
    await expect
      .poll(() => page.getByTestId('remote-hardware-error').textContent(), { timeout: 30_000 })
      .toMatch(/refused the login without a password: SpeedMatrix runs ssh with BatchMode=yes/);

    await page.locator('nav button', { hasText: 'Server' }).click();
    await fill(page, 'srv-sshOptions', sshHost.options.join('\n'));
    await page.locator('nav button', { hasText: 'Hardware' }).click();
    await page.getByRole('button', { name: 'Detect again' }).first().click();
    const remoteCpu = page.getByTestId('remote-system-block');
    await remoteCpu.waitFor({ timeout: 30_000 });
    expect(await page.locator('#hw-remote-title').textContent()).toBe(`Remote host: ${sshHost.host}`);
    // The host is this machine under another home: its own speedmatrix finds the same CPU.
    await page.getByTestId('system-block').waitFor({ timeout: 30_000 });
    const cpuRow = (block: string) => page.getByTestId(block).locator('.row', { hasText: 'CPU' }).innerText();
    expect(await cpuRow('remote-system-block')).toBe(await cpuRow('system-block'));

    await page.locator('nav button', { hasText: 'Server' }).click();
    const port = await freePort();
    await fill(page, 'srv-port', String(port));
    await fill(page, 'srv-simSpeed', '10');
    await fill(page, 'srv-simLoad', '0');
    await fill(page, 'srv-maxModelLen', '32K');
    await expect
      .poll(() => page.getByTestId('command-preview').textContent())
      .toMatch(new RegExp(`^ssh ${sshHost.host.replace(/\./g, '\\.')} speedmatrix serve -- speedmatrix sim serve `));
    await page.getByTestId('start-server').click();
    await page.locator('[data-testid="server-status"][data-state="ready"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('server-ready').innerText()).toContain(`http://127.0.0.1:${port} on ${sshHost.host}`);
    // The server's own log there streams into the Server log here.
    await expect
      .poll(() => page.getByTestId('server-log').textContent(), { timeout: 15_000 })
      .toContain('Application startup complete.');
    await shot(page, 'remote-server-light', false);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'remote-server-dark', false);
    await page.emulateMedia({ colorScheme: 'light' });

    await page.locator('nav button', { hasText: 'Run' }).click();
    await setChips(page, 'contexts', ['0']);
    await setChips(page, 'concurrency', ['1', '2']);
    await fill(page, 'run-seconds', '3');
    await fill(page, 'run-maxout', '512');
    await expect.poll(() => page.getByTestId('plan-summary').textContent()).toMatch(/^2 of 2 cells to run/);
    await page.getByTestId('start-run').click();
    expect(await page.getByTestId('run-remote').textContent()).toContain(`Running on ${sshHost.host}`);
    // Cells arrive one by one while the run goes on there.
    const heat = page.getByTestId('heatmap');
    await expect.poll(async () => heat.locator('[data-kind="value"]').count(), { timeout: 60_000 }).toBe(1);
    expect(await page.getByTestId('run-phase').getAttribute('data-phase')).toBe('decode');
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 60_000 });
    expect(await heat.locator('[data-kind="value"]').count()).toBe(2);

    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('report').waitFor();
    const session = await coreSession(bridge.core);
    // Valid, or Requests queued when the busy machine let the simulator's queue show at the window's start.
    expect(session.cells.map((c) => cellKey(c))).toEqual(['0x1', '0x2']);
    for (const c of session.cells) expect(['valid', 'queued']).toContain(c.status);
    expect(session.simulated).toBe(true);
    // Measured there, next to its server: the session the host wrote, with its samples.
    const samples = await bridge.core.invoke('session:cell-requests', [{ context: 0, concurrency: 2 }]);
    expect(samples.ok && samples.data !== null).toBe(true);
    const runs = join(sshHost.home, '.speedmatrix', 'remote');
    expect(readdirSync(runs).filter((id) => existsSync(join(runs, id, 'session.speedmatrix.json')))).toHaveLength(1);
    await expectResultsMatchReport(page, session);
    expect(await page.getByTestId('file-title').textContent()).toBe('Unsaved session •');
    // The server as the person launched it there (as a local launch records it), not attached by URL: in the open
    // session and in the file the run left here.
    expect(session.server.kind).toBe('simulator');
    expect(session.server.url).toBe(`http://127.0.0.1:${port}`);
    expect(session.server.display).toMatch(/^speedmatrix sim serve /);
    expect(session.server.argv).toEqual(expect.arrayContaining(['--port', String(port), '--sim-speed', '10']));
    const runsHere = join(bridge.dataDir, 'app', 'runs');
    const [working] = readdirSync(runsHere).filter((f) => f.endsWith('.speedmatrix.json'));
    const saved = await readSessionFile(join(runsHere, working));
    expect(saved.ok && saved.data.server).toEqual(session.server);

    // Stop stops it on the host.
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.getByTestId('stop-server').click();
    await page.locator('[data-testid="server-status"][data-state="exited"]').waitFor({ timeout: 30_000 });
    await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow();
    expect(problems).toEqual([]);
  }, 240_000);

  it('a link cut mid-run says so; Reattach follows the run again at once and it finishes with each cell measured once', async ({
    sshHost,
    bridge,
    browser,
  }) => {
    // Windows of 16 s (8 s each here): the run is still going when the link comes back about 10 s later.
    const { page, problems, port, folder, heat } = await runningThere(browser, bridge, sshHost, { seconds: 16 });

    // The link is cut (the app's ssh client killed) and the host is unreachable for a while.
    const client = followClientOf(process.pid, folder.split('/').pop());
    expect(client).not.toBeNull();
    sshHost.unreachable();
    process.kill(client!, 'SIGKILL');
    const lost = page.getByTestId('run-link-lost');
    await lost.waitFor({ timeout: 15_000 });
    expect(await lost.locator('h2').textContent()).toBe(`Connection to ${sshHost.host} lost`);
    // The app's own back-off: 1, 2, 5 s, then 10 s to wait: Reattach does not.
    await expect
      .poll(() => lost.textContent(), { timeout: 30_000 })
      .toMatch(/Connection refused\. Following again in 10 s, or now with Reattach\./);
    await lost.scrollIntoViewIfNeeded();
    await shot(page, 'remote-link-lost-light', false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'remote-link-lost-dark', false);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(existsSync(join(folder, 'exit')), 'the run went on there').toBe(false);

    await sshHost.reachable();
    await page.getByTestId('reattach-run').click();
    // Followed again before the 10 s wait is over.
    await lost.waitFor({ state: 'hidden', timeout: 8_000 });
    expect(await page.getByTestId('run-remote').textContent()).toContain(`Running on ${sshHost.host}`);
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 90_000 });
    expect(await heat.locator('[data-kind="value"]').count()).toBe(4);

    // Nothing measured twice: each cell started once there, and the session holds each once.
    expect(startedThere(folder)).toEqual(['0x1', '0x2', '0x4', '0x8']);
    const session = await coreSession(bridge.core);
    expect(session.cells.map((c) => cellKey(c))).toEqual(['0x1', '0x2', '0x4', '0x8']);
    for (const c of session.cells) expect(['valid', 'queued']).toContain(c.status);
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('report').waitFor();
    await expectResultsMatchReport(page, session);

    await stopServerThere(page, port);
    expect(problems).toEqual([]);
  }, 240_000);

  it('Stop stops a remote run on the host, which saves what it measured, and the app shows the stopped run; Resume continues it there', async ({
    sshHost,
    bridge,
    browser,
  }) => {
    const { page, problems, port, folder, heat } = await runningThere(browser, bridge, sshHost);
    const pid = Number(readFileSync(join(folder, 'pid'), 'utf8'));
    const wrapper = Number(readFileSync(join(folder, 'wrapper.pid'), 'utf8'));
    expect(alive(pid)).toBe(true);

    await page.getByTestId('stop-run').click();
    await page.locator('[data-testid="run-phase"][data-phase="cancelled"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('run-phase').textContent()).toBe('Run: stopped');
    // Gone there, having said it was stopped (exit 130) and saved its session.
    expect(alive(pid)).toBe(false);
    expect(alive(wrapper)).toBe(false);
    expect(readFileSync(join(folder, 'exit'), 'utf8').trim()).toBe('130');
    const there = await readSessionFile(join(folder, 'session.speedmatrix.json'));
    if (!there.ok) throw new Error(there.error.message);
    const measured = there.data.cells.filter((c) => c.status === 'valid' || c.status === 'queued');
    expect(measured.length).toBeGreaterThanOrEqual(1);
    expect(measured.length).toBeLessThan(4);
    // What the app holds is what the host saved, cell for cell (its samples kept apart); the heatmap shows the measured ones.
    const session = await coreSession(bridge.core);
    expect(session.cells).toEqual(there.data.cells.map((c) => ({ ...c, requests: null })));
    const samples = await bridge.core.invoke('session:cell-requests', [{ context: 0, concurrency: 1 }]);
    expect(samples.ok && samples.data?.requests?.firstTokenAt).toEqual(measured[0].requests?.firstTokenAt);
    expect(await heat.locator('[data-kind="value"]').count()).toBe(measured.length);
    expect(await page.getByTestId('run-remote').count()).toBe(0);
    await shot(page, 'remote-run-stopped-light', false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'remote-run-stopped-dark', false);
    await page.emulateMedia({ colorScheme: 'light' });

    // Resume continues it there from its journal: what it had measured is not measured again.
    await page.getByTestId('resume-run').click();
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 90_000 });
    const resumed = readFileSync(join(folder, 'progress.jsonl'), 'utf8').split('"type":"plan"');
    expect(resumed).toHaveLength(3);
    const startedAgain = startedThere(folder).slice(-(4 - measured.length));
    expect(startedAgain).toEqual(['0x1', '0x2', '0x4', '0x8'].slice(measured.length));
    const whole = await coreSession(bridge.core);
    expect(whole.cells.map((c) => cellKey(c))).toEqual(['0x1', '0x2', '0x4', '0x8']);
    for (const c of whole.cells) expect(['valid', 'queued']).toContain(c.status);
    expect(await heat.locator('[data-kind="value"]').count()).toBe(4);

    await stopServerThere(page, port);
    expect(problems).toEqual([]);
  }, 240_000);

  it('an API key reaches the server and the run there in their environment only, and a run killed there resumes with it', async ({
    sshHost,
    bridge,
    browser,
  }) => {
    const key = `sk-remote-${process.pid}-${Date.now()}`;
    const { page, problems, port, folder } = await runningThere(browser, bridge, sshHost, { apiKey: key });
    // The simulator there wants the key: it got it.
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(401);
    expect(commandLinesHolding(key)).toEqual([]);

    // The run dies there: it is resumed from its journal, the key sent again (it is nowhere there to read).
    process.kill(Number(readFileSync(join(folder, 'pid'), 'utf8')), 'SIGKILL');
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 120_000 });
    const progress = readFileSync(join(folder, 'progress.jsonl'), 'utf8');
    expect(progress.match(/"type":"plan"/g)).toHaveLength(2);
    const session = await coreSession(bridge.core);
    expect(session.cells.map((c) => cellKey(c))).toEqual(['0x1', '0x2', '0x4', '0x8']);
    for (const c of session.cells) expect(['valid', 'queued']).toContain(c.status);

    // Nowhere on a command line, on disk there or here, or in the session.
    expect(commandLinesHolding(key)).toEqual([]);
    expect(filesHolding(sshHost.home, key)).toEqual([]);
    expect(filesHolding(bridge.dataDir, key)).toEqual([]);
    expect(JSON.stringify(session)).not.toContain(key);

    await stopServerThere(page, port);
    expect(problems).toEqual([]);
  }, 240_000);
});
