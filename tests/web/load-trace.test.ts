/**
 * The Load form replays a trace in real Chromium against the real core and the simulator process:
 * the trace file dialog reads the file at once (a file that is not a trace is refused in words),
 * the form shows what it holds at the speed chosen, the run is one trace pass, and Results say what
 * the server's prefix cache found.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { LoadView } from '#shared/ipc/contract';
import { passDetails } from '#shared/report/load-model';
import { webTest } from '../helpers/fixtures';
import { ROOT } from '../helpers/paths';
import { hasChromium, shot } from './browser';
import { startSmallSim } from '../helpers/core-sim';
import { setChips } from '../helpers/run-view';

const it = webTest.override('bridgeOptions', { scope: 'file' }, { core: { stopTimeoutMs: 8000 } });
const fixture = (...p: string[]) => join(ROOT, 'tests/fixtures', ...p);

describe.skipIf(!hasChromium)('replaying a trace from the Load form', () => {
  it.beforeAll(async ({ bridge }) => {
    await startSmallSim(bridge.core, '8k');
  }, 90_000);

  it('picks the trace, shows its requests and span at the speed chosen, replays it and reports the prefix cache', async ({
    app: { page, problems },
    bridge,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press('Control+3');
    await page.locator('[data-testid="server-status"][data-state="ready"]').first().waitFor({ timeout: 60_000 });
    await page.getByTestId('run-mode').getByText('Load', { exact: true }).click();
    await page.getByTestId('load-form').waitFor();

    // A file that is not a trace: refused when picked, with the line and the field, and nothing is kept.
    bridge.dialogs.traceQueue.push(fixture('load', 'prompts.jsonl'));
    await page.getByTestId('choose-trace').click();
    await expect
      .poll(() => page.getByTestId('load-error').innerText())
      .toMatch(/^Trace: line 1 of .*prompts\.jsonl: "timestamp" must be milliseconds, 0 or more/);
    expect(await page.getByTestId('trace-summary').count()).toBe(0);

    bridge.dialogs.traceQueue.push(fixture('traces', 'two-prefix-groups.jsonl'));
    await page.getByTestId('choose-trace').click();
    await expect
      .poll(() => page.getByTestId('trace-summary').innerText())
      .toMatch(/^two-prefix-groups\.jsonl: 12 requests over 2\.8 s/);
    expect(await page.getByTestId('load-error').count()).toBe(0);
    // The trace brings its rates and lengths: the form's are not asked for.
    expect(await page.locator('#load-input-len').count()).toBe(0);
    expect(await page.getByTestId('load-form').getByText('Sweep', { exact: true }).count()).toBe(0);
    await page.locator('#load-trace-speed').fill('2');
    await expect.poll(() => page.getByTestId('trace-summary').innerText()).toMatch(/12 requests over 1\.4 s/);
    expect(await page.getByTestId('load-plan').innerText()).toBe('1 pass: the trace replayed at its own times');
    await shot(page, '73-load-trace-form-1280');

    await page.getByTestId('start-load').click();
    await page.locator('[data-testid="load-phase"][data-phase="done"]').waitFor({ timeout: 45_000 });
    const snap = await bridge.core.invoke('load:snapshot', []);
    if (!snap.ok) throw new Error(snap.error);
    const view: LoadView = snap.data;
    expect(view.config?.trace).toEqual({
      file: 'two-prefix-groups.jsonl',
      speed: 2,
      requests: 12,
      spanSeconds: 1.375,
    });
    const [r] = view.results;
    expect([r.pass, r.requests, r.completed]).toEqual(['trace', 12, 12]);
    expect(r.prefixCache?.hitTokens).toBeGreaterThan(0);

    await page.getByTestId('open-load-results').click();
    await page.getByTestId('load').waitFor();
    const text = await page.getByTestId('load').innerText();
    for (const line of passDetails(r)) expect(text).toContain(line);
    expect(text).toContain('replay of two-prefix-groups.jsonl: 12 requests over 1.4 s at 2x its speed');
    await shot(page, '74-load-trace-results-1280');
    expect(problems).toEqual([]);
  }, 120_000);

  it('runs conversations: later turns send the history back, and Results give TTFT per turn', async ({
    app: { page, problems },
    bridge,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press('Control+3');
    await page.locator('[data-testid="server-status"][data-state="ready"]').first().waitFor({ timeout: 60_000 });
    await page.getByTestId('run-mode').getByText('Load', { exact: true }).click();
    if ((await page.getByTestId('clear-trace').count()) > 0) await page.getByTestId('clear-trace').click();
    await setChips(page, 'rates', ['2']);
    await page.locator('#load-duration').fill('4');
    await page.locator('#load-warmup').fill('0');
    await page.locator('#load-input-len').fill('300');
    await page.locator('#load-output-len').fill('24');
    expect(await page.locator('#load-think').count()).toBe(0);
    await page.locator('#load-turns').fill('0');
    await expect.poll(() => page.getByTestId('start-load').isDisabled()).toBe(true);
    await page.locator('#load-turns').fill('3');
    await page.locator('#load-think').fill('0.2');
    const before = await bridge.core.invoke('load:snapshot', []);
    const runsBefore = before.ok ? before.data.run : 0;
    // The trace's results are open and unsaved: starting asks first.
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('start-load').click();
    // The first test's run left the phase at done: wait for this run's end.
    await expect
      .poll(
        async () => {
          const v = await bridge.core.invoke('load:snapshot', []);
          return v.ok && v.data.run > runsBefore && v.data.phase === 'done';
        },
        { timeout: 45_000 },
      )
      .toBe(true);
    const snap = await bridge.core.invoke('load:snapshot', []);
    if (!snap.ok) throw new Error(snap.error);
    expect(snap.data.config?.conversation).toEqual({ turns: 3, thinkSeconds: 0.2 });
    const [r] = snap.data.results;
    expect(r.ttftByTurn?.map((t) => t.turn)).toEqual([1, 2, 3]);
    await page.getByTestId('open-load-results').click();
    await page.getByTestId('load').waitFor();
    const text = await page.getByTestId('load').innerText();
    expect(text).toContain('3-turn conversations, 0.2 s think time');
    for (const line of passDetails(r)) expect(text).toContain(line);
    expect(problems).toEqual([]);
  }, 120_000);
});
