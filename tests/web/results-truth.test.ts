/**
 * What the Results and Server views say, in real Chromium against the real core: the legend of an
 * imported report keeps its source's definitions and lists only the statuses that occur, a repeated
 * cell explains its interval and repetitions, an "Exported" note goes when another file is opened,
 * a new variant row is not marked wrong before anything is typed, and a failed Attach says so.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { webTest as it } from '../helpers/fixtures';
import { importText } from '../../src-main/workflows/importers';
import { serializeSession } from '../../src-main/platform/session/write';
import type { DecodeCell, Session } from '#shared/session/schema';
import type { BridgeServer } from '../helpers/bridge-server';
import { SYNTHETIC_REPORT } from '../helpers/paths';
import { repeatedSession, sampleCell } from '../helpers/sample-session';
import { buildReportModel } from '#shared/report/report-model';
import { requestsView } from '#shared/report/requests';
import { foldRepetition } from '../../src-main/engine/bench/repetitions';
import { hasChromium, shot } from './browser';

/** Opens `session` in the app's Results view as if chosen in the Open dialog. */
async function openInResults(page: Page, bridge: BridgeServer, session: Session, name: string): Promise<void> {
  const file = join(bridge.dialogs.saveDir, name);
  writeFileSync(file, serializeSession(session));
  bridge.dialogs.openQueue.push(file);
  await page.locator('nav button', { hasText: 'Results' }).click();
  expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
  await expect.poll(() => page.getByTestId('file-title').textContent()).toContain(name);
}

/** The synthetic report with its 8K × 4 cell marked Requests queued by the tool that wrote it. */
function importedWithQueued(): Session {
  const text = readFileSync(SYNTHETIC_REPORT, 'utf8').replace(
    '| Sustained decode | 8K | 4 | Valid |',
    '| Sustained decode | 8K | 4 | Requests queued |',
  );
  const r = importText(text, 'queued-report.txt');
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

describe.skipIf(!hasChromium)('Results and Server views tell the truth, in Chromium', () => {
  it('says which files can be opened, and the file input takes them all', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Results' }).click();
    expect(await page.getByTestId('results-empty').innerText()).toMatch(
      /\.speedmatrix\.json session, a speed test matrix report saved as text, or llm-inference-bench's results JSON/,
    );
    expect(await page.getByTestId('file-input').getAttribute('accept')).toBe(
      '.json,.txt,.md,application/json,text/plain,text/markdown',
    );
  });

  it("explains an imported report's statuses as its source defined them, only those that occur", async ({
    app: { page },
    bridge,
  }) => {
    await openInResults(page, bridge, importedWithQueued(), 'imported.speedmatrix.json');
    const legend = await page.getByTestId('heatmap-legend').innerText();
    expect(legend).toMatch(/Looped: the model kept repeating the same text/);
    expect(legend).toMatch(
      /Requests queued: as defined by the source tool \(llm-inference-bench v0\.7\.6\); SpeedMatrix's own rule/,
    );
    expect(legend).not.toMatch(/once-a-second checks/);
    expect(legend).not.toMatch(/Stream stalled|Error:/);
  });

  it('shows a repeated cell with its count, its 95% interval and every repetition, and says what ± means', async ({
    app: { page },
    bridge,
  }) => {
    const s = repeatedSession({ '8192x1': [1000, 1010, 990], '8192x2': [900, 1000, 1100] });
    await openInResults(page, bridge, s, 'repeated.speedmatrix.json');
    expect(await page.getByTestId('repeat-note').innerText()).toMatch(/^± is the 95% confidence interval of the mean/);
    await page.locator('[data-cell="8192x2"] button').click();
    const detail = page.getByTestId('cell-repetitions');
    await detail.waitFor();
    expect(await detail.locator('h4').innerText()).toBe('Repetitions (3)');
    expect(await detail.locator('p').innerText()).toBe(
      '1,000.0 ± 248.4 tok/s: the 95% confidence interval of the mean of 3 repetitions (751.6 to 1,248.4); unstable: they vary by 10%',
    );
    const rows = await page.getByTestId('repetitions-table').locator('tbody tr').allInnerTexts();
    expect(rows.map((r) => r.split('\t').slice(0, 3))).toEqual([
      ['1', 'Valid', '900.0'],
      ['2', 'Valid', '1,000.0'],
      ['3', 'Valid', '1,100.0'],
    ]);
    expect(await page.getByTestId('cell-detail').innerText()).toMatch(/Total\s+1,000\.0 ± 248\.4 unstable tok\/s/);
    await detail.scrollIntoViewIfNeeded();
    await shot(page, '45-results-repetitions', false);
  });

  it("shows a prefill point's caveats (client delay, time cap) by the prefill chart, as the exports' notes say them", async ({
    app: { page },
    bridge,
  }) => {
    const s = repeatedSession({});
    s.prefill[0] = {
      ...s.prefill[0],
      reason:
        'this machine kept the client from running for 3.2% of the time to first token in a kept measurement (after 2 retakes), so the figure may read up to that much low',
    };
    s.prefill[1] = {
      ...s.prefill[1],
      precision: { measurements: 1, halfWidthRelative: null, stopReason: 'max-duration' },
    };
    await openInResults(page, bridge, s, 'caveats.speedmatrix.json');
    const notes = page.getByTestId('prefill-notes');
    // The notes come with the prefill section, which may render after the title: wait for them.
    await expect
      .poll(async () => (await notes.locator('li').allInnerTexts()).map((t) => t.trim()))
      .toEqual(buildReportModel(s).prefillNotes);
    expect(await notes.innerText()).toMatch(
      /Prefill at 8K: Valid: this machine kept the client from running for 3\.2%/,
    );
    expect(await notes.innerText()).toMatch(/Prefill at 16K: Valid: measured 1 time before the time cap stopped it/);
    await notes.scrollIntoViewIfNeeded();
    await shot(page, '47-results-prefill-caveats', false);
  });

  it("pools a repeated cell's repetitions in its histograms and draws each repetition's timeline over its own window, labelled", async ({
    app: { page },
    bridge,
  }) => {
    const s = repeatedSession({});
    const timed = (seconds: number): DecodeCell => ({
      ...sampleCell(8192, 2),
      windowSeconds: seconds,
      requests: {
        sentAt: [0, 0],
        firstTokenAt: [0.1, 0.2],
        lastTokenAt: [seconds, seconds],
        outputTokens: [300, 300],
        windowTokens: [300, 300],
        promptTokens: [8192, 8192],
        outcome: ['done', 'done'],
      },
    });
    const cell = foldRepetition(foldRepetition(undefined, timed(30), 1, 2), timed(10), 2, 2);
    s.cells = s.cells.map((c) => (c.context === 8192 && c.concurrency === 2 ? cell : c));
    await openInResults(page, bridge, s, 'repeated-requests.speedmatrix.json');
    // The selected cell outlives the file opened (an earlier test may have selected 8192x2): a click would close it.
    const title = page.getByTestId('cell-detail-title');
    if (!(await title.isVisible()) || !/^8K context · 2 requests/.test(await title.innerText()))
      await page.locator('[data-cell="8192x2"] button').click();
    const label = page.getByTestId('requests-source');
    await label.waitFor();
    expect(await label.innerText()).toBe(requestsView(cell).label);
    expect(await label.innerText()).toMatch(/^Requests of all 2 repetitions \(pooled\)/);
    // Both repetitions' 2 requests each in the histograms.
    expect(await page.getByTestId('ttft-hist').getAttribute('aria-label')).toBe('TTFT distribution over 4 requests');
    const timelines = page.getByTestId('timeline-repetition');
    expect(await timelines.allInnerTexts()).toEqual([
      expect.stringMatching(/^Repetition 1 of 2 · 30\.0 s/),
      expect.stringMatching(/^Repetition 2 of 2 · 10\.0 s/),
    ]);
    await label.scrollIntoViewIfNeeded();
    await shot(page, '48-results-repeated-requests', false);
  });

  it('makes the heatmap one Tab stop with arrow keys; Enter opens the detail, the grid keeps the focus and its place, Escape closes it back on the cell, at 1280x800', async ({
    app: { page },
    bridge,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openInResults(page, bridge, importedWithQueued(), 'keys.speedmatrix.json');
    const grid = page.getByTestId('heatmap');
    // The heatmap may render after the title: wait for its Tab stop before counting.
    await grid.locator('button.hm-btn[tabindex="0"]').waitFor();
    // Every cell with a figure or a status is a button, but only one is in the Tab order.
    const stops = await grid.locator('button.hm-btn').evaluateAll((bs) => bs.map((b) => (b as HTMLElement).tabIndex));
    expect(stops.filter((t) => t === 0)).toHaveLength(1);
    expect(stops.length).toBeGreaterThan(1);
    await grid.locator('button.hm-btn[tabindex="0"]').focus();
    // Focus moves in React's next render: poll rather than read once.
    const focusedCell = () => page.evaluate(() => document.activeElement?.closest('td')?.dataset.cell ?? null);
    await expect.poll(focusedCell).toBe('8192x1');
    await page.keyboard.press('ArrowRight');
    await expect.poll(focusedCell).toBe('8192x4');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focusedCell).toBe('32768x4');
    await page.keyboard.press('ArrowUp');
    await expect.poll(focusedCell).toBe('8192x4');
    await page.keyboard.press('ArrowRight');
    await expect.poll(focusedCell).toBe('8192x16');
    // Tab leaves the grid in one press; Shift+Tab comes back to the cell last focused.
    await page.keyboard.press('Tab');
    await expect.poll(focusedCell).toBeNull();
    await page.keyboard.press('Shift+Tab');
    await expect.poll(focusedCell).toBe('8192x16');
    const gridTop = () => grid.evaluate((t) => Math.round(t.getBoundingClientRect().top));
    const top = await gridTop();
    await page.keyboard.press('Enter');
    const title = page.getByTestId('cell-detail-title');
    await title.waitFor();
    expect(await title.innerText()).toMatch(/^8K context · 16 requests at once/);
    // The grid stays where it was, with the focus on the cell: the arrow keys go on from there.
    await page.waitForTimeout(300);
    expect(await focusedCell()).toBe('8192x16');
    expect(await gridTop()).toBe(top);
    await shot(page, '46-results-cell-detail-keyboard', false);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(focusedCell).toBe('8192x4');
    await page.keyboard.press('Enter');
    await expect.poll(() => title.innerText()).toMatch(/^8K context · 4 requests at once/);
    await expect.poll(focusedCell).toBe('8192x4');
    // Escape closes the detail and leaves the focus on the cell it was opened from, also from inside the detail.
    await page.keyboard.press('Escape');
    await expect.poll(() => title.count()).toBe(0);
    await expect.poll(focusedCell).toBe('8192x4');
    await page.keyboard.press('Enter');
    await title.waitFor();
    await page.getByTestId('cell-detail').getByRole('button', { name: 'Close' }).focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => title.count()).toBe(0);
    await expect.poll(focusedCell).toBe('8192x4');
  });

  it('drops the "Exported" note when another file is opened', async ({ app: { page }, bridge }) => {
    await openInResults(page, bridge, importedWithQueued(), 'first.speedmatrix.json');
    await page.keyboard.press('Control+e');
    await page.getByTestId('last-export').waitFor();
    expect(await page.getByTestId('last-export').innerText()).toMatch(/Exported first\.md/);
    await openInResults(page, bridge, repeatedSession({}), 'second.speedmatrix.json');
    expect(await page.getByTestId('last-export').count()).toBe(0);
  });

  it('leaves a new, untouched variant row unmarked, and marks it once something wrong is typed', async ({
    app: { page },
  }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.getByTestId('add-variant-axis').click();
    const flag = page.locator('#var-flag-0');
    await page.waitForTimeout(300);
    expect(await flag.getAttribute('aria-invalid')).not.toBe('true');
    expect(await page.locator('#var-values-0').getAttribute('aria-invalid')).not.toBe('true');
    await flag.fill('--port');
    await expect.poll(() => flag.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: /^Remove/ }).click();
  });

  it('marks every bad field of the server form at once, the KV cache dtype included', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.locator('input[name="kind"][value="vllm-native"]').check();
    const bad = { gpuMemoryUtilization: '1.5', maxModelLen: '256kk', maxNumSeqs: '-3', kvCacheDtype: 'fp9' };
    for (const [key, value] of Object.entries(bad)) await page.locator(`#srv-${key}`).fill(value);
    for (const key of Object.keys(bad))
      await expect
        .poll(() => page.locator(`#srv-${key}`).getAttribute('aria-invalid'), { timeout: 10_000 })
        .toBe('true');
    const kvMessage = await page.locator('#srv-kvCacheDtype').getAttribute('aria-errormessage');
    expect(await page.locator(`#${kvMessage}`).innerText()).toMatch(/"fp9" is not one of vLLM's choices/);
    await shot(page, '47-server-every-bad-field', false);
    for (const key of Object.keys(bad)) await page.locator(`#srv-${key}`).fill('');
    await page.locator('input[name="kind"][value="simulator"]').check();
  });

  it('drops a busy-port failure once the port is changed', async ({ app: { page } }) => {
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const address = busy.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await page.locator('nav button', { hasText: 'Server' }).click();
      await page.locator('#srv-port').fill(String(port));
      await page.getByTestId('start-server').click();
      await page.getByTestId('server-failure').waitFor({ timeout: 10_000 });
      await page.locator('#srv-port').fill('');
      await expect.poll(() => page.getByTestId('server-failure').count()).toBe(0);
    } finally {
      busy.close();
    }
  }, 30_000);

  it('titles a failed Attach as such, and explains a port that HTTP clients refuse', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    await page.locator('input[name="kind"][value="attach"]').check();
    await page.getByLabel('Server URL').fill('http://127.0.0.1:9');
    await page.getByTestId('start-server').click();
    const failure = page.getByTestId('server-failure');
    await failure.waitFor({ timeout: 15_000 });
    expect(await failure.locator('h2').innerText()).toBe('Could not attach to the server');
    const text = await failure.innerText();
    expect(text).toMatch(/Port 9 is one that HTTP clients refuse to use/);
    expect(text).not.toMatch(/bad port/);
    await page.locator('input[name="kind"][value="simulator"]').check();
  }, 30_000);
});
