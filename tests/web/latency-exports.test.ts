/**
 * Latency percentiles and the data exports in the real renderer against the real core: the
 * Results view tables each cell's TTFT, time between tokens and end-to-end latency with their
 * counts, the metric switch colours the heatmap by a percentile, and the export buttons write
 * HTML, per-cell CSV and per-request JSON Lines through the core (docs/ipc.md, report:export).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { webTest as it } from '../helpers/fixtures';
import { chooseExport } from '../helpers/results-dom';
import { serializeSession } from '../../src-main/platform/session/write';
import type { BridgeServer } from '../helpers/bridge-server';
import { sampleCell, sampleSession } from '../helpers/sample-session';
import { hasChromium, openPage, shot } from './browser';

const stats = (p50: number, count: number) => ({ p50, p90: p50 * 2, p95: p50 * 3, p99: p50 * 4, mean: p50, count });

/** A measured session: 8K × 4 stands on 40 requests, 128K × 4 on 3 first tokens and no finished request. */
function session() {
  const s = sampleSession();
  s.runConfig.contexts = [8192, 131072];
  s.runConfig.concurrency = [4];
  s.cells = [
    sampleCell(8192, 4, { ttft: stats(0.5, 40), timeBetweenTokens: stats(0.01, 40), e2eLatency: stats(20, 36) }),
    sampleCell(131072, 4, {
      ttft: stats(1.956, 3),
      timeBetweenTokens: stats(0.02, 3),
      e2eLatency: null,
      // Four requests; the third stalls 2 s (over 10× the 20 ms median between tokens) and ends at 12 s.
      requests: {
        sentAt: [-3, -2.9, -2.8, 5],
        firstTokenAt: [-1, -0.9, -0.8, 7],
        lastTokenAt: [30, 30, 12, 30],
        outputTokens: [1550, 1545, 640, 1150],
        windowTokens: [1500, 1500, 600, 1150],
        promptTokens: [131072, 131072, 131072, 131072],
        outcome: ['cancelled', 'cancelled', 'done', 'cancelled'],
        longestGap: [0.05, 0.04, 2, null],
        longestGapEndedAt: [3, 4, 10, null],
      },
    }),
  ];
  return s;
}

async function openSession(page: Page, bridge: BridgeServer, name: string): Promise<void> {
  const file = join(bridge.dialogs.saveDir, name);
  writeFileSync(file, serializeSession(session()));
  bridge.dialogs.openQueue.push(file);
  await page.waitForSelector('[data-app-state="ready"]');
  await page.locator('nav button', { hasText: 'Results' }).click();
  expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
  await page.getByTestId('heatmap').waitFor({ timeout: 10_000 });
}

const rowsOf = (page: Page, testId: string) =>
  page
    .getByTestId(testId)
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as HTMLElement).innerText.trim())));

describe.skipIf(!hasChromium)('Latency percentiles and data exports in Chromium', () => {
  it('tables each cell’s latency percentiles with their counts and flags the TTFT from three requests', async ({
    bridge,
    browser,
  }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await page.setViewportSize({ width: 1280, height: 800 });
    await openSession(page, bridge, 'latency.speedmatrix.json');
    const rows = await rowsOf(page, 'latency-table');
    expect(rows[0]).toEqual([
      '8K',
      '4',
      '500 ms',
      '1,000 ms',
      '2,000 ms',
      '40',
      '10.0 ms',
      '20.0 ms',
      '40.0 ms',
      '40',
      '20,000 ms',
      '40,000 ms',
      '80,000 ms',
      '36',
    ]);
    expect(rows[1].slice(0, 6)).toEqual(['128K', '4', '1,956 ms', '3,912 ms', '7,824 ms', '3 (few)']);
    const section = await page.getByTestId('latency-section').innerText();
    expect(section).toMatch(/"few" marks fewer than 10/);
    // "(from N)" is explained over the table that shows it, All measurements.
    const caption = await page.getByTestId('measurements-caption').innerText();
    expect(caption).toMatch(/\(from N\): the latency stands on fewer than 10 requests/);
    const measurements = await rowsOf(page, 'measurements');
    expect(measurements.find((r) => r[1] === '128K')).toContain('1,956 ms (from 3)');
    await page.getByTestId('latency-section').scrollIntoViewIfNeeded();
    await shot(page, '60-results-latency-1280');

    await page.getByLabel('Show').selectOption('e2e-p99');
    const cell = (key: string) => page.getByTestId('heatmap').locator(`[data-cell="${key}"]`).innerText();
    expect(await cell('8192x4')).toMatch(/^80,000 ms/);
    await page.getByLabel('Show').selectOption('ttft-p90');
    expect(await cell('131072x4')).toMatch(/^3,912 ms\s+from 3 requests/);
    expect(await page.getByTestId('heatmap-key').innerText()).toMatch(/TTFT \(p90\)/);

    // The cell detail draws every request of the window, the stalled one's gap marked.
    await page.getByTestId('heatmap').locator('[data-cell="131072x4"]').click();
    const timeline = page.getByTestId('cell-timeline');
    await timeline.waitFor({ timeout: 10_000 });
    expect(await timeline.locator('svg > g[class^="tl-"]').count()).toBe(4);
    expect(await timeline.locator('g[data-gap="large"]').count()).toBe(1);
    expect(await timeline.locator('g[data-gap="large"] title').textContent()).toMatch(
      /Request 3: .*a 2,000 ms gap between tokens ending at 10\.0 s/,
    );
    expect(await timeline.locator('figcaption').innerText()).toMatch(
      /Gaps between tokens of 200 ms or more are marked \(1 here\)/,
    );
    await timeline.scrollIntoViewIfNeeded();
    await shot(page, '61-cell-timeline-1280', false);
    expect(problems).toEqual([]);
  });

  it('exports the open session as HTML, cells as CSV and requests as JSON Lines from the Results buttons', async ({
    bridge,
    browser,
  }) => {
    const { page, problems } = await openPage(browser, bridge.url);
    await openSession(page, bridge, 'exports.speedmatrix.json');
    const out = (ext: string) => join(bridge.dialogs.saveDir, `exports${ext}`);

    await chooseExport(page, 'export-html');
    await expect.poll(() => existsSync(out('.html')), { timeout: 30_000 }).toBe(true);
    const html = readFileSync(out('.html'), 'utf8');
    expect(html).toContain('<table class="latency">');
    expect(html).toMatch(
      /<details class="timeline" data-cell="131072x4"><summary>128K context × 4 at once: 4 requests, 1 large gap<\/summary>/,
    );
    expect(await page.getByTestId('last-export').innerText()).toBe('Exported exports.html');

    await chooseExport(page, 'export-csv');
    await expect.poll(() => existsSync(out('.csv')), { timeout: 30_000 }).toBe(true);
    const [head, ...lines] = readFileSync(out('.csv'), 'utf8').trimEnd().split('\r\n');
    const names = head.split(',');
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])));
    expect(rows.map((r) => [r.context, r.ttft_p99_s, r.ttft_count, r.e2e_count])).toEqual([
      ['8192', '2', '40', '36'],
      ['131072', '7.824', '3', ''],
    ]);

    await chooseExport(page, 'export-jsonl');
    await expect.poll(() => existsSync(out('.jsonl')), { timeout: 30_000 }).toBe(true);
    const requests = readFileSync(out('.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    // 8K × 4 keeps sampleCell's one request (sent 2.5 s before the window, first token 37 ms later), 128K × 4 four.
    expect(requests).toHaveLength(5);
    expect(requests.slice(1).map((r) => [r.concurrency, r.request, r.outcome, r.longest_gap_s])).toEqual([
      [4, 0, 'cancelled', 0.05],
      [4, 1, 'cancelled', 0.04],
      [4, 2, 'done', 2],
      [4, 3, 'cancelled', null],
    ]);
    expect(requests[0]).toMatchObject({
      context: 8192,
      concurrency: 4,
      repetition: 1,
      sent_at_s: -2.5,
      output_tokens: 4243,
    });
    expect(requests[0].ttft_s).toBeCloseTo(0.037, 9);
    expect(problems).toEqual([]);
  });
});
