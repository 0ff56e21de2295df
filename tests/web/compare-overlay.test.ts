/**
 * Compare's overlaid sessions in Chromium against the real core: one line per session per context,
 * each named by its hardware (GPU × count) and method; the normalisation switch re-draws the lines
 * per GPU, per watt or per price per hour and re-ranks the sessions, so a run on four GPUs ranks
 * fairly beside a run on one; a session without power telemetry has no per-watt figure, and the
 * page says why. Screenshots light and dark at 1024×700 and 1920×1080.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { serializeSession } from '../../src-main/platform/session/write';
import type { Session } from '#shared/session/schema';
import { webTest as it } from '../helpers/fixtures';
import { powerTelemetry, sampleCell, sampleSession } from '../helpers/sample-session';
import { hasChromium, shot } from './browser';

let root: string;
const files: string[] = [];

/** A session on `gpus` GPUs named `gpu`, launched with `display`; each cell's total by requests at once, power if given. */
function session(gpu: string, gpus: number, display: string, totals: number[], watts: number | null): Session {
  const s = sampleSession();
  s.hardware.gpus = Array.from({ length: gpus }, (_, i) => ({ ...s.hardware.gpus[0], index: i, name: gpu }));
  s.server.display = display;
  s.runConfig.concurrency = totals.map((_, i) => 2 ** i);
  s.cells = [8192, 16384].flatMap((context, k) =>
    totals.map((t, i) =>
      sampleCell(context, 2 ** i, {
        totalTokensPerSecond: t * (1 - k * 0.2),
        perRequestTokensPerSecond: (t * (1 - k * 0.2)) / 2 ** i,
        telemetry: powerTelemetry(watts, t),
      }),
    ),
  );
  return s;
}

const legend = (page: Page, testId: string) =>
  page
    .getByTestId(testId)
    .locator('.legendtext')
    .evaluateAll((els) => els.map((e) => e.textContent));

describe.skipIf(!hasChromium)('sessions overlaid and normalised in Compare', () => {
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sm-web-overlay-'));
    const one = session('H100 80GB HBM3', 1, 'vllm serve m', [100, 190, 350, 600], 650);
    const four = session('L40S', 4, 'vllm serve m --tensor-parallel-size 4', [120, 230, 440, 1600], null);
    for (const [name, s] of [
      ['one-gpu', one],
      ['four-gpus', four],
    ] as const) {
      const file = join(root, `${name}.speedmatrix.json`);
      writeFileSync(file, serializeSession(s));
      files.push(file);
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('draws a line per session named by its hardware and method, and ranks per GPU fairly across GPU counts', async ({
    app: { page, problems },
    bridge,
  }) => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.locator('nav button', { hasText: 'Results' }).click();
    bridge.dialogs.pathsQueue.push(files);
    await page.getByTestId('compare-sessions').click();
    const overlay = page.getByTestId('overlay');
    await overlay.waitFor({ timeout: 15_000 });
    // The Sessions table names each file once and tells the sessions apart by what ran.
    const listed = await page
      .getByTestId('comparison-variants')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(0, 3).map((c) => (c as HTMLElement).innerText)));
    expect(listed).toEqual([
      ['A', 'Fara1.5-4B on H100 80GB HBM3 96GB · vllm 0.30.1rc1.dev452+g73a583112', 'one-gpu.speedmatrix.json'],
      ['B', 'Fara1.5-4B on 4 × L40S 96GB · vllm 0.30.1rc1.dev452+g73a583112', 'four-gpus.speedmatrix.json'],
    ]);
    await page.getByTestId('overlay-chart').locator('.legendtext').first().waitFor();

    // The longest context both measured, one line each, named by GPU × count and the tool that measured.
    expect(await page.locator('#overlay-context').inputValue()).toBe('16384');
    expect(await legend(page, 'overlay-chart')).toEqual([
      'A · H100 80GB HBM3 × 1 · SpeedMatrix 0.1.0 · 16K',
      'B · L40S × 4 · SpeedMatrix 0.1.0 · 16K',
    ]);
    const ranking = () => page.getByTestId('overlay-ranking').locator('li').allInnerTexts();
    expect((await ranking())[0]).toMatch(/^1\. B · L40S × 4 .*: 1,280\.0 tok\/s at 16K × 8$/);
    await shot(page, '80-compare-overlay-1024');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '80-compare-overlay-1024-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Per GPU: four GPUs' 1,280 is 320 each, below one GPU's 480.
    await page.locator('#overlay-normalisation').selectOption('per-gpu');
    await expect
      .poll(ranking)
      .toEqual([
        '1. A · H100 80GB HBM3 × 1 · SpeedMatrix 0.1.0: 480.0 tok/s per GPU at 16K × 8',
        '2. B · L40S × 4 · SpeedMatrix 0.1.0: 320.0 tok/s per GPU at 16K × 8',
      ]);
    expect(await page.getByTestId('overlay-chart').locator('.g-ytitle').textContent()).toBe('Total tok/s per GPU');

    // Per watt: B has no telemetry, so no line, and the page says why.
    await page.locator('#overlay-normalisation').selectOption('per-watt');
    await expect
      .poll(() => legend(page, 'overlay-chart'))
      .toEqual(['A · H100 80GB HBM3 × 1 · SpeedMatrix 0.1.0 · 16K']);
    expect(await page.getByTestId('overlay-missing').innerText()).toMatch(/B: no GPU power telemetry/);
    expect((await ranking())[1]).toMatch(/^B · L40S × 4 .*: — \(B: no GPU power telemetry/);

    // Per price per hour: the server's price is the GPU's × the GPUs it used.
    await page.locator('#overlay-normalisation').selectOption('per-price');
    await page.locator('#overlay-gpu-price').fill('2 EUR');
    await expect
      .poll(ranking)
      .toEqual([
        '1. A · H100 80GB HBM3 × 1 · SpeedMatrix 0.1.0: 240.0 tok/s per EUR/h at 16K × 8',
        '2. B · L40S × 4 · SpeedMatrix 0.1.0: 160.0 tok/s per EUR/h at 16K × 8',
      ]);

    // Every context: a line per session per context, and the trade-off overlaid the same way.
    await page.locator('#overlay-normalisation').selectOption('measured');
    await page.locator('#overlay-context').selectOption('all');
    await expect.poll(async () => (await legend(page, 'overlay-chart')).length).toBe(4);
    expect(await legend(page, 'overlay-trade-off-chart')).toEqual([
      'A · H100 80GB HBM3 × 1 · SpeedMatrix 0.1.0 · 8K',
      'A · H100 80GB HBM3 × 1 · SpeedMatrix 0.1.0 · 16K',
      'B · L40S × 4 · SpeedMatrix 0.1.0 · 8K',
      'B · L40S × 4 · SpeedMatrix 0.1.0 · 16K',
    ]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
    await page.setViewportSize({ width: 1920, height: 1080 });
    await overlay.scrollIntoViewIfNeeded();
    await shot(page, '80-compare-overlay-1920', false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '80-compare-overlay-1920-dark', false);
    expect(problems).toEqual([]);
  });
});
