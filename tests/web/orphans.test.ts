/**
 * SIGKILL of the server's leader under the real renderer: the Server view says which
 * process the crash left running and asks; "End them" (pressed from the keyboard) ends it, and
 * the process is really gone.
 */
import { describe, expect } from 'vitest';
import { listProcesses } from '../../src-main/engine/server/orphans';
import { alive } from '../helpers/fake-servers';
import { webTest } from '../helpers/fixtures';
import { hasChromium, shot } from './browser';

const MARK = `orphan-web-${process.pid}-${Date.now()}`;
const previous = process.env.SIM_ENGINE_ORPHAN_SECONDS;

/** pid -> process group of every live process, through the supervisor's own process table (throws where it cannot be read). */
async function groups(): Promise<Map<number, number>> {
  return new Map(
    (await listProcesses()).filter((p) => p.state !== 'Z' && p.pgid !== null).map((p) => [p.pid, p.pgid!]),
  );
}

/** The command line of a live process, from the same table. */
async function commandOf(pid: number): Promise<string> {
  return (await listProcesses()).find((p) => p.pid === pid)?.command ?? '';
}

// eslint-disable-next-line no-empty-pattern
const it = webTest.override('bridgeOptions', { scope: 'file' }, async ({}, { onCleanup }) => {
  // The simulated engine otherwise gives up by itself 3 s after being orphaned: only the app may end it here.
  process.env.SIM_ENGINE_ORPHAN_SECONDS = '60';
  onCleanup(() => {
    if (previous === undefined) delete process.env.SIM_ENGINE_ORPHAN_SECONDS;
    else process.env.SIM_ENGINE_ORPHAN_SECONDS = previous;
  });
  return { core: { stopTimeoutMs: 8000 } };
});

describe.skipIf(!hasChromium)('processes a crashed server left running, in Chromium', () => {
  it('SIGKILL of the leader: the panel names the orphan, and "End them" ends it', async ({
    app: { page, problems },
  }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.locator('#srv-servedModelName').fill(MARK);
    await page.locator('#srv-simSpeed').fill('20');
    await page.locator('#srv-simLoad').fill('0.3');
    await page.getByTestId('start-server').click();
    await page.locator('[data-testid="server-status"][data-state="ready"]').waitFor({ timeout: 60_000 });

    const table = await groups();
    let leader = 0;
    for (const [p, g] of table) if (g === p && (await commandOf(p)).includes(MARK)) leader = p;
    expect(leader).toBeGreaterThan(0);
    const engine = [...table].filter(([pid, g]) => g === leader && pid !== leader).map(([pid]) => pid);
    expect(engine.length).toBe(1);
    process.kill(leader, 'SIGKILL');

    const panel = page.getByTestId('orphan-panel');
    await panel.waitFor({ timeout: 30_000 });
    const text = await panel.innerText();
    expect(text).toMatch(/The server stopped unexpectedly and left 1 process\(es\) running \(GPU memory held: unknown/);
    expect(await panel.getByTestId('orphan-list').innerText()).toBe(`pid ${engine[0]} VLLM::EngineCore`);
    // Asked, not acted on: it is still running until the person answers.
    await new Promise((r) => setTimeout(r, 1000));
    expect(alive(engine[0])).toBe(true);
    await shot(page, '31-server-orphans');

    // Keyboard: both answers are buttons in the tab order.
    await page.getByTestId('leave-orphans').focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('end-orphans');
    await page.keyboard.press('Enter');
    const outcome = page.getByTestId('orphan-outcome');
    await outcome.waitFor({ timeout: 30_000 });
    expect(await outcome.innerText()).toBe(`Ended 1 process(es): pid ${engine[0]}.`);
    expect(await panel.count()).toBe(0);
    expect(alive(engine[0])).toBe(false);
    expect([...(await groups())].filter(([, g]) => g === leader)).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);
});
