/**
 * "Remote host (SSH)" in the app (real renderer in Chromium, real core over the bridge, a real
 * OpenSSH server on 127.0.0.1 whose sessions run the packed and installed CLI: tests/helpers/sshd.ts):
 * the host's hardware as its own speedmatrix detects it, the simulator started there, a small
 * matrix measured there with its cells arriving live here, and the session opened in Results.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { cellKey } from '#shared/cell-key';
import { freePort } from '../../src-main/engine/server/port';
import { sshWebTest as it } from '../helpers/fixtures';
import { coreSession, expectResultsMatchReport } from '../helpers/results-dom';
import { setChips } from '../helpers/run-view';
import { sshdAvailable } from '../helpers/sshd';
import { hasChromium, openPage, shot } from './browser';

const fill = (page: Page, id: string, value: string) => page.locator(`#${id}`).fill(value);

/** No sideways scrolling: the page is no wider than the window. */
const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

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

    // Stop stops it on the host.
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.getByTestId('stop-server').click();
    await page.locator('[data-testid="server-status"][data-state="exited"]').waitFor({ timeout: 30_000 });
    await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow();
    expect(problems).toEqual([]);
  }, 180_000);
});
