/**
 * A sweep of launch variants from the app, in real headless Chromium against the real core,
 * each variant's simulator started as a separate process through the supervisor: variants typed
 * in the Server view (bad input refused at its field), run from the Run view with progress per
 * variant, the sweep folder as the CLI writes it, Stop and Resume.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect } from 'vitest';
import { readSessionFile } from '../../src-main/platform/session/read';
import { webTest } from '../helpers/fixtures';
import { ARTIFACTS } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';
import { setChips } from '../helpers/run-view';

const root = mkdtempSync(join(tmpdir(), 'sm-web-sweep-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const test = webTest.override(
  'bridgeOptions',
  { scope: 'file' },
  { core: { stopTimeoutMs: 8000, launchedServersDir: join(root, 'servers') } },
);

let page: Page;

/** Types one varied setting into the next row of the Server view's Launch variants. */
async function addAxis(p: Page, flag: string, values: string): Promise<void> {
  const i = await p.getByTestId('variant-axis').count();
  await p.getByTestId('add-variant-axis').click();
  await p.locator(`#var-flag-${i}`).fill(flag);
  await p.locator(`#var-values-${i}`).fill(values);
}

async function removeAxes(p: Page): Promise<void> {
  while ((await p.getByTestId('variant-axis').count()) > 0)
    await p
      .getByTestId('variant-axis')
      .first()
      .getByRole('button', { name: /^Remove/ })
      .click();
}

/** The simulator at 10× with a quick load, and the CLI sweep test's matrix: 8K × 8, 10 s windows. */
async function prepare(p: Page): Promise<void> {
  await p.keyboard.press('Control+2');
  await p.locator('#srv-simSpeed').fill('10');
  await p.locator('#srv-simLoad').fill('0.3');
  await p.locator('#srv-maxModelLen').fill('32768');
  await p.keyboard.press('Control+3');
  await setChips(p, 'contexts', ['8k']);
  await setChips(p, 'concurrency', ['8']);
  await p.locator('#run-seconds').fill('10');
  await p.locator('#run-maxout').fill('2048');
}

const variantState = (p: Page, letter: string) =>
  p.locator(`[data-testid="sweep-variants"] li[data-variant="${letter}"]`).getAttribute('data-state');

const cellOf = async (file: string) => {
  const s = await readSessionFile(file);
  if (!s.ok) throw new Error(s.error.message);
  return s.data.cells.find((c) => c.context === 8192 && c.concurrency === 8);
};

const manifestStates = (dir: string): string[] =>
  JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')).variants.map((v: { state: string }) => v.state);

describe.skipIf(!hasChromium)('a sweep of launch variants from the app', () => {
  test('refuses bad variant input at its field, and Run sweep waits until it is fixed', async ({ bridge, browser }) => {
    ({ page } = await openPage(browser, bridge.url));
    await page.waitForSelector('[data-app-state="ready"]');
    await prepare(page);
    await page.keyboard.press('Control+2');
    await addAxis(page, '--max num', '4,,16');
    const flag = page.locator('#var-flag-0');
    await expect.poll(() => page.locator('#var-flag-0-error').innerText()).toBe('"--max num" is not a flag name');
    expect(await flag.getAttribute('aria-invalid')).toBe('true');
    await expect
      .poll(() => page.locator('#var-values-0-error').innerText())
      .toBe('give every value, separated by commas');
    expect(await page.locator('#var-values-0').getAttribute('aria-invalid')).toBe('true');
    await flag.fill('--max-num-seqs');
    await page.locator('#var-values-0').fill('4, 4');
    await expect.poll(() => page.locator('#var-values-0-error').innerText()).toBe('4 is given twice');
    await expect.poll(() => flag.getAttribute('aria-invalid')).toBeNull();
    await addAxis(page, '--max-num-seqs', '8');
    await expect
      .poll(() => page.locator('#var-flag-1-error').innerText())
      .toBe('--max-num-seqs is varied already: give all its values there');
    await addAxis(page, '--port', '8000,8001');
    await expect
      .poll(() => page.locator('#var-flag-2-error').innerText())
      .toBe('--port is set by SpeedMatrix for every variant');
    expect(await page.getByTestId('variant-list').count()).toBe(0);
    await page.keyboard.press('Control+3');
    expect(await page.getByTestId('start-sweep').isDisabled()).toBe(true);
    expect(await page.getByTestId('sweep-waits').innerText()).toMatch(
      /^Fix the launch variants in the Server view first/,
    );
    // A sweep launches its servers: attaching cannot sweep, and says so.
    await page.keyboard.press('Control+2');
    await page.locator('input[name="kind"][value="attach"]').check();
    await expect
      .poll(() => page.getByTestId('variants-blocked').innerText())
      .toMatch(/^A sweep needs SpeedMatrix to launch the server, one per variant/);
    await page.locator('input[name="kind"][value="simulator"]').check();
    await removeAxes(page);
  });

  test('lists the variants of --max-num-seqs = 4, 16 as A and B with the command each launches', async () => {
    await addAxis(page, '--max-num-seqs', '4, 16');
    const list = page.getByTestId('variant-list');
    await expect.poll(() => list.locator('tbody tr').count()).toBe(2);
    const rows = await list.locator('tbody tr').allInnerTexts();
    expect(rows[0]).toMatch(/^A\s+--max-num-seqs=4\s+speedmatrix sim serve .*--max-num-seqs 4/);
    expect(rows[1]).toMatch(/^B\s+--max-num-seqs=16\s+speedmatrix sim serve .*--max-num-seqs 16/);
    await page.getByTestId('launch-variants').scrollIntoViewIfNeeded();
    await shot(page, '70-server-variants', false);
    await page.getByTestId('launch-variants').screenshot({ path: join(ARTIFACTS, 'web', '70-launch-variants.png') });
  });

  test('runs the sweep from the Run view: plan, progress per variant, the folder as the CLI writes it', async ({
    bridge,
  }) => {
    const dir = join(root, 'seqs');
    await page.keyboard.press('Control+3');
    expect(await page.getByTestId('sweep-waits').innerText()).toBe('Choose the folder the sweep goes to.');
    bridge.dialogs.folderQueue.push(dir);
    await page.getByTestId('choose-sweep-dir').click();
    await expect.poll(() => page.locator('#sweep-dir').inputValue()).toBe(dir);
    expect(await page.getByTestId('sweep-plan').innerText()).toMatch(
      /^2 of 2 variants to run \(2 server starts\), up to 1 cell each \(2 in all, 1 planned as Requests queued \(above a variant's --max-num-seqs\); .*\), about .+ with the server starts$/,
    );
    await page.getByTestId('start-sweep').click();
    await expect.poll(() => variantState(page, 'A'), { timeout: 30_000 }).toMatch(/starting|running/);
    expect(await variantState(page, 'B')).toBe('waiting');
    // The Server view tells the truth about the sweep's server, and holds Start and Stop.
    await page.keyboard.press('Control+2');
    await page.locator('[data-testid="server-status"][data-state="ready"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('server-held').innerText()).toMatch(/variant A: --max-num-seqs=4/);
    expect(await page.getByTestId('command-preview').innerText()).toMatch(/--max-num-seqs 4/);
    expect(await page.getByTestId('start-server').isDisabled()).toBe(true);
    expect(await page.getByTestId('stop-server').isDisabled()).toBe(true);
    // An ordinary run waits for the sweep, in the page and in the core.
    const run = await bridge.core.invoke('run:start', [
      { contexts: [8192], concurrency: [8], secondsPerMeasurement: 10, maxOutputTokens: 2048, tokenTargeting: 'exact' },
    ]);
    expect(run).toMatchObject({ ok: false, error: expect.stringMatching(/^A sweep is running/) });
    await page.keyboard.press('Control+3');
    expect(await page.getByTestId('start-run').isDisabled()).toBe(true);
    await expect.poll(() => variantState(page, 'A'), { timeout: 60_000 }).toBe('running');
    await expect
      .poll(() => page.getByTestId('sweep-variants').locator('li[data-variant="A"]').innerText())
      .toMatch(/Running: [01] of 1 cell/);
    await expect
      .poll(() => page.getByTestId('sweep-progress').innerText())
      .toMatch(/^0 of 2 variants finished · about/);
    await shot(page, '71-run-sweep-progress', false);
    await page.getByTestId('sweep-panel').screenshot({ path: join(ARTIFACTS, 'web', '71-sweep-panel.png') });

    await page.locator('[data-testid="sweep-variants"] li[data-variant="B"][data-state="running"]').waitFor({
      timeout: 120_000,
    });
    expect(await variantState(page, 'A')).toBe('done');
    // The live matrix is variant B's own: a new run, titled with it.
    expect(await page.getByTestId('run-heatmap').locator('h2').innerText()).toMatch(/variant B: --max-num-seqs=16/);
    await expect
      .poll(() => page.getByTestId('sweep-message').innerText(), { timeout: 120_000 })
      .toBe('Sweep done: 2 of 2 variants measured.');
    expect(await page.getByTestId('sweep-progress').innerText()).toMatch(/^2 of 2 variants finished$/);
    expect((await page.getByTestId('sweep-variants').innerText()).match(/Done: 1 of 1 cell/g)).toHaveLength(2);
    await shot(page, '74-run-sweep-done', false);
    // The Server view shows the last variant's server as stopped, without its Ready card.
    await page.keyboard.press('Control+2');
    await page.locator('[data-testid="server-status"]:not([data-state="ready"])').waitFor();
    expect(await page.getByTestId('server-ready').count()).toBe(0);
    await page.keyboard.press('Control+3');
    expect(manifestStates(dir)).toEqual(['done', 'done']);
    expect((await cellOf(join(dir, 'max-num-seqs-4.speedmatrix.json')))?.status).toBe('queued');
    expect((await cellOf(join(dir, 'max-num-seqs-16.speedmatrix.json')))?.status).toBe('valid');
    expect(readFileSync(join(dir, 'sweep.md'), 'utf8')).toContain(
      '| B | --max-num-seqs=16 | max-num-seqs-16.speedmatrix.json | Valid 1 | 1 |',
    );
    // The finished sweep opens as a comparison in Results.
    await page.getByTestId('open-comparison').click();
    await expect.poll(() => page.getByTestId('comparison-dir').innerText()).toContain(dir);
    expect(await page.getByTestId('best-per-cell').innerText()).toMatch(/8K\s+B · --max-num-seqs=16\s+[\d,.]+ tok\/s/);
    await page.keyboard.press('Control+3');
    // The sweep's last server is stopped, and the Server view says so.
    await page.keyboard.press('Control+2');
    await page.locator('[data-testid="server-status"][data-state="exited"]').waitFor();
    expect(await page.getByTestId('server-held').count()).toBe(0);
    expect(await page.getByTestId('start-server').isDisabled()).toBe(false);
  }, 300_000);

  test('Stop during variant B saves; Resume measures only what is missing', async ({ bridge, browser }) => {
    const dir = join(root, 'resume');
    await page.keyboard.press('Control+3');
    bridge.dialogs.folderQueue.push(dir);
    await page.getByTestId('choose-sweep-dir').click();
    await expect.poll(() => page.locator('#sweep-dir').inputValue()).toBe(dir);
    await page.getByTestId('start-sweep').click();
    await expect.poll(() => variantState(page, 'B'), { timeout: 180_000, interval: 100 }).toMatch(/starting|running/);
    await page.getByTestId('stop-sweep').click();
    await expect
      .poll(() => page.getByTestId('sweep-message').innerText(), { timeout: 60_000 })
      .toMatch(/^Stopped; saved what was measured: 1 of 2 variants measured\.$/);
    expect(await variantState(page, 'A')).toBe('done');
    expect(await variantState(page, 'B')).toBe('cancelled');
    expect(manifestStates(dir)[0]).toBe('done');
    expect(manifestStates(dir)[1]).toMatch(/^(pending|partial)$/);
    const first = readFileSync(join(dir, 'max-num-seqs-4.speedmatrix.json'), 'utf8');
    await page.keyboard.press('Control+2');
    await page.locator('[data-testid="server-status"][data-state="exited"]').waitFor({ timeout: 30_000 });

    await page.keyboard.press('Control+3');
    const resume = page.getByTestId('resume-sweep');
    await expect.poll(() => resume.getAttribute('class')).toMatch(/primary/);
    await resume.click();
    await expect
      .poll(() => page.getByTestId('sweep-plan').innerText())
      .toMatch(/^1 of 2 variants to run \(1 server start\), /);
    // The same progress in the dark theme, from a second window on the same core.
    const dark = await openPage(browser, bridge.url, { colorScheme: 'dark' });
    await dark.page.waitForSelector('[data-app-state="ready"]');
    await dark.page.keyboard.press('Control+3');
    await dark.page.getByTestId('sweep-variants').waitFor();
    await shot(dark.page, '75-run-sweep-progress-dark', false);
    await dark.page.keyboard.press('Control+2');
    await addAxis(dark.page, '--max-num-seqs', '4, 16');
    await dark.page.getByTestId('variant-list').waitFor();
    await dark.page.getByTestId('launch-variants').scrollIntoViewIfNeeded();
    await shot(dark.page, '76-server-variants-dark', false);
    await dark.page.context().close();
    await expect
      .poll(() => page.getByTestId('sweep-message').innerText(), { timeout: 180_000 })
      .toBe('Sweep done: 2 of 2 variants measured.');
    expect(manifestStates(dir)).toEqual(['done', 'done']);
    expect(readFileSync(join(dir, 'max-num-seqs-4.speedmatrix.json'), 'utf8')).toBe(first);
    expect((await cellOf(join(dir, 'max-num-seqs-16.speedmatrix.json')))?.status).toBe('valid');
  }, 400_000);

  test('with the varied settings removed, the Run view drops the finished sweep, after a reload too', async () => {
    await page.keyboard.press('Control+3');
    await page.getByTestId('sweep-panel').waitFor();
    await page.keyboard.press('Control+2');
    await removeAxes(page);
    await page.keyboard.press('Control+3');
    await page.getByTestId('start-run').waitFor();
    await expect.poll(() => page.getByTestId('sweep-panel').count()).toBe(0);
    expect(await page.getByTestId('view-run').innerText()).not.toMatch(/Checking the variants|Sweep of/);
    await page.reload();
    await page.waitForSelector('[data-app-state="ready"]');
    await page.keyboard.press('Control+3');
    await page.getByTestId('start-run').waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByTestId('sweep-panel').count()).toBe(0);
    await shot(page, '77-run-after-sweep-removed', false);
  });
});
