/**
 * The app start, in Chromium against the real core: a server that an earlier, killed SpeedMatrix
 * launched (written in the same state file the CLI writes) is still running. The app says so,
 * the Server view names it and asks, and "End them" really ends it. A detached process group
 * stands for the left-behind server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect } from 'vitest';
import { LaunchedRegistry } from '../../src-main/engine/server/launched-registry';
import { findGroupProcesses } from '../../src-main/engine/server/orphans';
import { webTest } from '../helpers/fixtures';
import { hasChromium, shot } from './browser';

/** The left-behind server, started with the bridge (so a skipped or only listed file starts nothing). */
let server: ChildProcess;
const it = webTest.override('bridgeOptions', { scope: 'file' }, async ({ tempDir }, { onCleanup }) => {
  server = spawn('sleep', ['120'], { detached: true, stdio: 'ignore' });
  onCleanup(async () => {
    if ((await findGroupProcesses(server.pid!)).length) process.kill(-server.pid!, 'SIGKILL');
  });
  const serversDir = tempDir('sm-web-left-');
  const launcher = spawn('true', [], { stdio: 'ignore' });
  await new Promise((r) => launcher.on('exit', r));
  new LaunchedRegistry(serversDir).add({
    pgid: server.pid!,
    command: 'vllm serve Qwen/Qwen3-8B --port 8000',
    port: 8000,
    startedAt: '2026-11-30T08:00:00.000Z',
    launcherPid: launcher.pid!,
    launcherStart: null,
  });
  return { core: { launchedServersDir: serversDir } };
});

describe.skipIf(!hasChromium)('servers a killed SpeedMatrix left running, at app start', () => {
  it('says so at start, names the server in the Server view, and "End them" ends it', async ({
    app: { page, problems },
  }) => {
    await expect
      .poll(() => page.locator('body').innerText(), { timeout: 15_000 })
      .toContain('An earlier SpeedMatrix was killed and left a server running: see the Server view to end it.');
    await page.locator('nav button', { hasText: 'Server' }).click();
    const panel = page.getByTestId('orphan-panel');
    await panel.waitFor({ timeout: 15_000 });
    expect(await panel.innerText()).toMatch(
      /An earlier SpeedMatrix was killed before it could stop the server it had launched; still running/,
    );
    expect(await panel.getByTestId('orphan-list').innerText()).toBe(
      `pid ${server.pid} process group ${server.pid}, port 8000, started 2026-11-30 08:00:00 UTC: vllm serve Qwen/Qwen3-8B --port 8000`,
    );
    // Asked, not acted on.
    expect((await findGroupProcesses(server.pid!)).length).toBe(1);
    await shot(page, '32-server-leftover');
    await page.getByTestId('end-orphans').click();
    await page.getByTestId('orphan-outcome').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('orphan-outcome').innerText()).toBe(`Ended 1 process(es): pid ${server.pid}.`);
    expect(await findGroupProcesses(server.pid!)).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);
});
