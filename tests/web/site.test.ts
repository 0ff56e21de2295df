/**
 * The results site in Chromium from file://, with every request that is not a local file
 * refused: the index lists a simulated session, an imported llm-inference-bench result and a
 * real two-variant sweep (run by the CLI on the simulator); filtering by GPU and sorting by
 * decode tok/s work and live in the URL; a run page is the exported HTML report; two selected
 * runs open a comparison equal to `speedmatrix compare`'s.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeSession } from '../../src-main/platform/session/write';
import { runCli } from '../helpers/cli';
import { ROOT } from '../helpers/paths';
import { sampleSession } from '../helpers/sample-session';
import { SWEEP_FILES, makeSweepFolder } from '../integration/compare/real-sweep';
import { hasChromium, launchChromium, shot } from './browser';

const SEED = join(ROOT, 'tests/unit/importers/fixtures/fara-benchmark_results.json');

let root: string;
let site: string;
let sweepDir: string;
let browser: Browser;

/** A page that may load only file:// URLs; it records errors, CSP violations and refused requests. */
async function offlinePage(
  url: string,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, colorScheme });
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file://')) return route.continue();
    problems.push(`network request refused: ${u}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  return { page, problems };
}

const indexUrl = () => pathToFileURL(join(site, 'index.html')).href;

async function openIndex(
  hash = '',
  colorScheme: 'light' | 'dark' = 'light',
): Promise<{ page: Page; problems: string[] }> {
  const opened = await offlinePage(indexUrl() + hash, colorScheme);
  await opened.page.waitForSelector('body[data-ready="true"]');
  return opened;
}

/** The visible rows: run name (first line of the Run cell) and the cells by column key. */
function visibleRows(page: Page): Promise<Record<string, string>[]> {
  return page.locator('#runs').evaluate((table: HTMLTableElement) => {
    const keys = [...table.tHead!.rows[0].cells].map((h) => h.dataset.key ?? '');
    return [...table.tBodies[0].rows]
      .filter((tr) => !tr.hidden)
      .map((tr) => {
        const row: Record<string, string> = { run: tr.cells[1].querySelector('a, :first-child')!.textContent! };
        row.marks = [...tr.cells[1].querySelectorAll('.mark')].map((m) => m.textContent).join(' ');
        keys.forEach((k, i) => {
          if (k) row[k] = tr.cells[i].dataset.v ?? tr.cells[i].textContent!;
        });
        return row;
      });
  });
}

const mainOf = (page: Page) => page.locator('main.report').evaluate((m) => m.innerHTML);

async function mainOfFile(file: string): Promise<string> {
  const { page } = await offlinePage(pathToFileURL(file).href);
  return mainOf(page);
}

describe.skipIf(!hasChromium)('the results site in Chromium, offline from file://', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sm-web-site-'));
    const runs = join(root, 'runs');
    mkdirSync(runs);
    ({ dir: sweepDir } = await makeSweepFolder(runs));
    const demo = sampleSession();
    demo.simulated = true;
    demo.hardware.gpus[0].name = 'H200';
    demo.hardware.gpus[0].vramBytes = 141 * 1024 ** 3;
    mkdirSync(join(runs, 'demo'));
    writeFileSync(join(runs, 'demo', 'demo.speedmatrix.json'), serializeSession(demo));
    copyFileSync(SEED, join(runs, 'benchmark_results.json'));
    site = join(root, 'site');
    const built = await runCli(['site', runs, '-o', site]);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    expect(built.stdout).toContain('Built the site of 4 runs');
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists the simulated session, the imported result and both sweep variants with their marks and figures', async () => {
    const { page, problems } = await openIndex();
    const rows = await visibleRows(page);
    const byRun = Object.fromEntries(rows.map((r) => [r.run, r]));
    expect(Object.keys(byRun).sort()).toEqual(
      [
        '--max-model-len=32768 --max-num-seqs=16',
        '--max-model-len=32768 --max-num-seqs=4',
        'benchmark_results.json',
        'demo.speedmatrix.json',
      ].sort(),
    );
    expect(byRun['demo.speedmatrix.json'].marks).toBe('SIMULATED');
    expect(byRun['benchmark_results.json'].marks).toBe('imported');
    // The index fits the 1400 px window: its table wraps rather than widening the page.
    await shot(page, '83-site-index-1400');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1400);
    expect(byRun['--max-model-len=32768 --max-num-seqs=4'].marks).toBe('SIMULATED');
    // The sample session's figures: 34,600 prompt tok/s at 8K; one request alone 141.4 tok/s; best 282.8 at 8K × 2.
    expect(byRun['demo.speedmatrix.json']).toMatchObject({
      gpu: 'H200 141GB',
      prefill8k: '34600',
      decodeSingle: '141.4',
      best: '282.8',
      largestContext: '16384',
    });
    expect(problems).toEqual([]);
  });

  it('filters by GPU and sorts by decode tok/s, and the URL carries both to a new page', async () => {
    const { page, problems } = await openIndex();
    await page.locator('select[data-filter="gpu"]').selectOption('H200 141GB');
    expect((await visibleRows(page)).map((r) => r.run)).toEqual(['demo.speedmatrix.json']);
    expect(new URL(page.url()).hash).toBe('#gpu=H200+141GB');

    await page.locator('select[data-filter="gpu"]').selectOption('');
    await page.locator('th[data-key="decodeSingle"] button').press('Enter');
    const hash = new URL(page.url()).hash;
    expect(hash).toBe('#sort=decodeSingle&dir=desc');
    expect(await page.locator('th[data-key="decodeSingle"]').getAttribute('aria-sort')).toBe('descending');
    const sorted = (await visibleRows(page))
      .map((r) => r.decodeSingle)
      .filter(Boolean)
      .map(Number);
    expect(sorted.length).toBeGreaterThanOrEqual(3);
    expect(sorted).toEqual([...sorted].sort((a, b) => b - a));

    const linked = await openIndex(`${hash}&gpu=H200+141GB`);
    expect((await visibleRows(linked.page)).map((r) => r.run)).toEqual(['demo.speedmatrix.json']);
    expect(await linked.page.locator('select[data-filter="gpu"]').inputValue()).toBe('H200 141GB');
    expect([...problems, ...linked.problems]).toEqual([]);
  });

  it('filters by free text, reads light on dark in dark mode, and prints the table without its controls', async () => {
    const { page, problems } = await openIndex('', 'dark');
    await page.locator('input[data-filter="q"]').fill('benchmark_results');
    expect((await visibleRows(page)).map((r) => r.run)).toEqual(['benchmark_results.json']);
    expect(new URL(page.url()).hash).toBe('#q=benchmark_results');
    const colours = await page.evaluate(() => {
      const cs = (el: Element) => getComputedStyle(el);
      const td = document.querySelector('#runs tbody td.text')!;
      return { bg: cs(document.documentElement).backgroundColor, fg: cs(td).color };
    });
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    expect(luminance(colours.bg)).toBeLessThan(60);
    expect(luminance(colours.fg)).toBeGreaterThan(180);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('form.filters').isVisible()).toBe(false);
    expect(await page.locator('#runs th.pick').isVisible()).toBe(false);
    expect(await page.locator('#runs').isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });

  it("opens a run's page: the exported HTML report, a link back to the index and the session file to download", async () => {
    const { page, problems } = await openIndex();
    await page.getByRole('link', { name: 'demo.speedmatrix.json' }).click();
    await page.waitForSelector('main.report h1');
    const exported = join(root, 'demo.html');
    const r = await runCli(['report', join(root, 'runs/demo/demo.speedmatrix.json'), '-f', 'html', '-o', exported]);
    expect(r.code).toBe(0);
    expect(await mainOf(page)).toBe(await mainOfFile(exported));

    const download = page.getByRole('link', { name: 'Download demo.speedmatrix.json' });
    const href = await download.evaluate((a: HTMLAnchorElement) => a.href);
    expect(readFileSync(new URL(href), 'utf8')).toBe(
      readFileSync(join(root, 'runs/demo/demo.speedmatrix.json'), 'utf8'),
    );
    await page.getByRole('link', { name: '← All runs' }).click();
    await page.waitForSelector('body[data-ready="true"]');
    expect(problems).toEqual([]);
  });

  it('compares two selected runs in the browser, equal to `speedmatrix compare`', async () => {
    const { page, problems } = await openIndex();
    await page.getByRole('checkbox', { name: /max-num-seqs-4\.speedmatrix\.json/ }).check();
    await page.getByRole('checkbox', { name: /max-num-seqs-16\.speedmatrix\.json/ }).check();
    await page.getByRole('button', { name: 'Compare 2 selected' }).click();
    await page.waitForSelector('main.report h2');
    expect(new URL(page.url()).hash).toMatch(/^#runs=.+,.+$/);

    const exported = join(root, 'compare.html');
    const r = await runCli([
      'compare',
      join(sweepDir, SWEEP_FILES.fewSeqs),
      join(sweepDir, SWEEP_FILES.manySeqs),
      '-f',
      'html',
      '-o',
      exported,
    ]);
    expect(r.code).toBe(0);
    expect(await mainOf(page)).toBe(await mainOfFile(exported));
    expect(await page.getByRole('link', { name: '← All runs' }).count()).toBe(1);

    // The sessions overlaid: as measured first; the switch shows one normalisation at a time, with no script.
    const panel = (mode: string) => page.locator(`.overlay-panel[data-normalisation="${mode}"]`);
    expect(await panel('measured').isVisible()).toBe(true);
    expect(await panel('per-gpu').isVisible()).toBe(false);
    await page.locator('label[for="overlay-per-gpu"]').click();
    expect(await panel('per-gpu').isVisible()).toBe(true);
    expect(await panel('measured').isVisible()).toBe(false);
    expect(await panel('per-gpu').locator('.overlay-ranking li').first().innerText()).toMatch(
      /^1\. [AB] · .+ × 1 · SpeedMatrix .+: [\d,.]+ tok\/s per GPU at \d+K × \d+$/,
    );
    await page.locator('label[for="overlay-per-watt"]').click();
    expect(await panel('per-watt').innerText()).toMatch(/no GPU power telemetry/);
    await page.locator('.overlay').scrollIntoViewIfNeeded();
    await shot(page, '81-site-compare-overlay', false);
    expect(problems).toEqual([]);
  });
});
