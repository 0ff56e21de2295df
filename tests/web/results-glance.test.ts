/**
 * The Results view answers first, in the real renderer against the real core: it opens with the
 * report model's "At a glance" figures (targets add capacity), it publishes a results site from
 * its own toolbar through the same channel as File > Publish Site…, a load session's Results
 * draw the load charts the Run view draws, and a matrix's Results draw the throughput trade-off.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { buildReportModel } from '#shared/report/report-model';
import { parseTargets } from '#shared/report/slo';
import { tradeOffLines } from '#shared/report/trade-off';
import type { Session } from '#shared/session/schema';
import { importText } from '../../src-main/workflows/importers';
import { serializeSession } from '../../src-main/platform/session/write';
import type { BridgeServer } from '../helpers/bridge-server';
import { webTest as it } from '../helpers/fixtures';
import { ROOT, SYNTHETIC_REPORT } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';

function imported(file: string): Session {
  const r = importText(readFileSync(file, 'utf8'), file.split('/').pop()!);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

async function openInResults(page: Page, bridge: BridgeServer, session: Session, name: string): Promise<void> {
  const file = join(bridge.dialogs.saveDir, `${name}.speedmatrix.json`);
  writeFileSync(file, serializeSession(session));
  bridge.dialogs.openQueue.push(file);
  await page.waitForSelector('[data-app-state="ready"]');
  await page.locator('nav button', { hasText: 'Results' }).click();
  expect((await bridge.core.invoke('session:open', [])).ok).toBe(true);
  await page.getByTestId('report').waitFor({ timeout: 10_000 });
}

/** Each glance item as the page shows it: label, value, detail. */
const glanceOf = (page: Page) =>
  page
    .getByTestId('glance-item')
    .evaluateAll((items) =>
      items.map((i) => [...i.querySelectorAll('dt, dd')].map((e) => (e as HTMLElement).innerText)),
    );

const asShown = (items: ReturnType<typeof buildReportModel>['glance']) =>
  items.map((g) => [g.label, g.value, ...(g.detail ? [g.detail] : [])]);

describe.skipIf(!hasChromium)('Results answers first, in Chromium', () => {
  it('opens with the report model’s figures at a glance, above the blocks; targets add capacity', async ({
    bridge,
    browser,
  }) => {
    const session = imported(SYNTHETIC_REPORT);
    const { page, problems } = await openPage(browser, bridge.url);
    await openInResults(page, bridge, session, 'glance');
    await page.getByTestId('glance').waitFor();
    expect(await glanceOf(page)).toEqual(asShown(buildReportModel(session).glance));
    const above = await page
      .getByTestId('glance')
      .evaluate(
        (g) => (g.compareDocumentPosition(document.querySelector('.blocks')!) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0,
      );
    expect(above).toBe(true);
    const spec = 'ttft-p90<=140ms,per-request>=80';
    await page.getByLabel('Targets').fill(spec);
    const withTargets = asShown(buildReportModel(session, { targets: parseTargets(spec) }).glance);
    expect(withTargets.map((g) => g[0])).toContain('Capacity within targets');
    await expect.poll(() => glanceOf(page)).toEqual(withTargets);
    await page.setViewportSize({ width: 1024, height: 700 });
    await shot(page, '44-results-glance-light', false);
    expect(problems).toEqual([]);
  });

  it('shows the glance in dark mode too', async ({ bridge, browser }) => {
    const { page, problems } = await openPage(browser, bridge.url, { colorScheme: 'dark' });
    await page.setViewportSize({ width: 1024, height: 700 });
    await openInResults(page, bridge, imported(SYNTHETIC_REPORT), 'glance-dark');
    await page.getByTestId('glance').waitFor();
    // The figures stand on the panel colour, not on a light box the dark theme forgot.
    const bg = await page
      .getByTestId('glance-item')
      .first()
      .evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(bg).not.toBe('rgb(255, 255, 255)');
    await shot(page, '44-results-glance-dark', false);
    expect(problems).toEqual([]);
  });

  it('publishes a results site from the Results toolbar, the folders chosen in dialogs', async ({
    bridge,
    browser,
    tempDir,
  }) => {
    const dir = tempDir('sm-publish-');
    const runs = join(dir, 'runs');
    const site = join(dir, 'site');
    mkdirSync(runs);
    writeFileSync(join(runs, 'one.speedmatrix.json'), serializeSession(imported(SYNTHETIC_REPORT)));
    const { page, problems } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    bridge.dialogs.folderQueue.push(runs, site);
    await page.getByTestId('publish-site').click();
    await page.locator('.notice', { hasText: 'Published 1 run' }).waitFor({ timeout: 20_000 });
    expect(existsSync(join(site, 'index.html'))).toBe(true);
    // Each run's page is the HTML report, so it opens with the same glance.
    const [id] = readdirSync(join(site, 'runs'));
    const runPage = readFileSync(join(site, 'runs', id, 'index.html'), 'utf8');
    const glance = buildReportModel(imported(SYNTHETIC_REPORT)).glance;
    expect(glance.length).toBeGreaterThan(0);
    for (const g of glance) expect(runPage).toContain(`<dd class="glance-value">${g.value}</dd>`);
    expect(problems).toEqual([]);
  });

  it('a load session’s Results draw its throughput and latency charts and its own glance', async ({
    bridge,
    browser,
  }) => {
    const session = imported(join(ROOT, 'tests/fixtures/peers/vllm-bench-serve-rate4.json'));
    const { page, problems } = await openPage(browser, bridge.url);
    // Sized before the charts draw: Plotly lays a chart out for the width it first meets.
    await page.setViewportSize({ width: 1024, height: 700 });
    await openInResults(page, bridge, session, 'load-charts');
    await page.getByTestId('load-throughput-chart').waitFor({ timeout: 10_000 });
    await page.getByTestId('load-latency-chart').waitFor();
    expect(await glanceOf(page)).toEqual(asShown(buildReportModel(session).glance));
    expect((await glanceOf(page)).map((g) => g[0])).toContain('Most achieved');
    await page.getByTestId('load-charts').scrollIntoViewIfNeeded();
    await shot(page, '44-results-load-charts', false);
    expect(problems).toEqual([]);
  });

  it('draws the throughput trade-off: per request against total tok/s, a line per context in order of requests', async ({
    bridge,
    browser,
  }) => {
    const session = imported(SYNTHETIC_REPORT);
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, problems } = await openPage(browser, bridge.url, { colorScheme });
      await page.setViewportSize({ width: 1024, height: 700 });
      await openInResults(page, bridge, session, `trade-off-${colorScheme}`);
      const chart = page.getByTestId('trade-off-chart');
      await chart.locator('.scatterlayer .trace').first().waitFor({ timeout: 10_000 });
      // What Plotly was given, read back from its element: names, x (total) and y (per request) per line.
      const drawn = await chart.evaluate((el) =>
        (el as unknown as { data: { name: string; x: number[]; y: number[]; customdata: number[] }[] }).data.map(
          (t) => ({ name: t.name, x: t.x, y: t.y, at: t.customdata }),
        ),
      );
      expect(drawn).toEqual(
        tradeOffLines(session.cells).map((l) => ({
          name: `${l.label} context`,
          x: l.points.map((p) => p.total),
          y: l.points.map((p) => p.perRequest),
          at: l.points.map((p) => p.concurrency),
        })),
      );
      expect(drawn.every((t) => t.at.every((c, i) => i === 0 || c > t.at[i - 1]))).toBe(true);
      await page.getByTestId('trade-off').scrollIntoViewIfNeeded();
      await shot(page, `44-results-trade-off-${colorScheme}`, false);
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });
});
