/**
 * In the real renderer, against the real core: a cell that kept its figure with failed requests
 * shows "(N failed)" beside it in the heatmap, the measurements table and the cell's detail; a
 * Stream stalled cell keeps its figure with its word, and its detail shows the gap.
 */
import { describe, expect } from 'vitest';
import { serializeSession } from '../../src-main/platform/session/write';
import { webTest as it } from '../helpers/fixtures';
import { sampleCell, sampleSession } from '../helpers/sample-session';
import { hasChromium, shot } from './browser';

function session() {
  const s = sampleSession();
  s.runConfig.contexts = [8192];
  s.runConfig.concurrency = [1, 8, 16];
  s.cells = [
    sampleCell(8192, 1),
    sampleCell(8192, 8, {
      totalTokensPerSecond: 1234.5,
      failedRequests: 2,
      windowRequests: 40,
      fairShareTokensPerSecond: 154.3,
      queueEvidence: { scrapes: 30, waitingShare: 0.1, longestWaitingRun: 1, avgRunning: 8 },
      reason:
        '2 of 40 requests in the window failed and were replaced (the figure stands up to 10%); the first: HTTP 500',
    }),
    sampleCell(8192, 16, {
      status: 'stalled',
      reason: 'a stream produced nothing for 4.2 s inside the window',
      stall: { gapSeconds: 4.2, endedAtSeconds: 27, thresholdSeconds: 2 },
    }),
  ];
  return s;
}

describe.skipIf(!hasChromium)('failed requests and stalls in Chromium', () => {
  it('shows the count beside the figure in the heatmap, the table and the detail', async ({
    bridge,
    app: { page },
  }) => {
    expect(
      (
        await bridge.core.invoke('session:open-data', [
          { name: 'failed.speedmatrix.json', text: serializeSession(session()) },
        ])
      ).ok,
    ).toBe(true);
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('report').waitFor({ timeout: 10_000 });
    const heat = page.getByTestId('heatmap');
    expect(await heat.locator('[data-cell="8192x8"]').innerText()).toMatch(/1,234\.5 tok\/s \(2 failed\)/);
    expect(await heat.locator('[data-cell="8192x16"]').innerText()).toMatch(/2,262\.4 tok\/s[\s\S]*Stream stalled/);
    const rows = page.getByTestId('measurements').locator('tbody tr');
    expect(await rows.filter({ hasText: '1,234.5 (2 failed)' }).count()).toBe(1);
    await shot(page, 'failed-requests-results');
    await heat.locator('[data-cell="8192x8"]').click();
    const detail = page.getByTestId('cell-detail');
    await detail.waitFor();
    const text = await detail.innerText();
    expect(text).toMatch(/1,234\.5 tok\/s \(2 failed\)/);
    expect(text).toMatch(/2 of 40/);
    expect(text).toMatch(/waiting in 10% of 30 checks \(at most 1 in a row\), 8\.0 running on average/);
    await shot(page, 'failed-requests-detail');
    await heat.locator('[data-cell="8192x16"]').click();
    await expect
      .poll(async () => page.getByTestId('cell-detail').innerText())
      .toMatch(/Longest stall\s+4\.2 s \(over 2\.0 s\)/);
  }, 60_000);
});
