/**
 * Figure 10, results site: 500 sessions (the imported llm-inference-bench fixture, 500 times
 * with other models, GPUs (the sample session's, renamed) and figures) built into a site through the real builder, rebuilt
 * with nothing changed, and its index opened in Chromium from file://: time until the table
 * sorts and filters, and one sort of all 500 rows. `npm run bench:site`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importFile } from '../../../src-main/workflows/importers';
import { openSessionOrImport } from '../../../src-main/workflows/importers/open';
import { buildSite } from '../../../src-main/workflows/site/build';
import { INDEX_READY } from '../../../src-main/workflows/site/pages';
import { serializeSession } from '../../../src-main/platform/session/write';
import type { Session } from '#shared/session/schema';
import { ROOT } from '../../helpers/paths';
import { sampleSession } from '../../helpers/sample-session';
import { launchChromium } from '../../web/browser';
import { spread } from '../lib/stats';
import { type Row, row } from '../lib/table';

const RUNS = 500;
const GPUS = ['H200', 'H100 80GB HBM3', 'RTX PRO 6000 Blackwell Server Edition', 'L40S', 'A100-SXM4-80GB'];
const MODELS = ['Qwen/Qwen3-8B', 'meta-llama/Llama-3.1-8B-Instruct', 'microsoft/Fara1.5-4B', 'mistralai/Mistral-7B'];

async function baseSession(): Promise<Session> {
  const r = await importFile(join(ROOT, 'tests/unit/importers/fixtures/fara-benchmark_results.json'));
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

/** Run i: another model, GPU and speed, so sorting and filtering have work to do. */
function variant(base: Session, i: number): Session {
  const s = structuredClone(base);
  const scale = 0.5 + ((i * 37) % 100) / 100;
  s.server.model = MODELS[i % MODELS.length];
  s.hardware.gpus = [{ ...sampleSession().hardware.gpus[0], name: GPUS[i % GPUS.length] }];
  s.createdAt = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
  for (const c of s.cells)
    if (c.totalTokensPerSecond !== null) c.totalTokensPerSecond = Number((c.totalTokensPerSecond * scale).toFixed(1));
  return s;
}

/** Loads of the index: the first in a browser just started, then with the browser open. */
const LOADS = 4;

async function timeIndex(site: string): Promise<{ interactive: number[]; sort: number }> {
  const browser = await launchChromium();
  try {
    const interactive: number[] = [];
    let sort = Number.NaN;
    for (let i = 0; i < LOADS; i++) {
      const page = await browser.newPage();
      await page.route('**/*', (r) => (r.request().url().startsWith('file://') ? r.continue() : r.abort()));
      await page.goto(pathToFileURL(join(site, 'index.html')).href);
      await page.waitForSelector('body[data-ready="true"]');
      // From the start of navigation to the script having set the table up (sorting, filters).
      interactive.push(await page.evaluate((mark) => performance.getEntriesByName(mark)[0].startTime, INDEX_READY));
      sort = await page.evaluate(() => {
        const t0 = performance.now();
        document.querySelector<HTMLButtonElement>('th[data-key="decodeSingle"] button')!.click();
        return performance.now() - t0;
      });
      await page.close();
    }
    return { interactive, sort };
  } finally {
    await browser.close();
  }
}

export async function siteFigure(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-bench-site-'));
  try {
    const base = await baseSession();
    const runs = join(dir, 'runs');
    mkdirSync(runs);
    for (let i = 0; i < RUNS; i++)
      writeFileSync(join(runs, `run-${i}.speedmatrix.json`), serializeSession(variant(base, i)));
    const site = join(dir, 'site');
    const timed = async (): Promise<number> => {
      const t0 = performance.now();
      const r = await buildSite([runs], site, openSessionOrImport);
      if (!r.ok) throw new Error(r.error);
      if (r.data.runs.length !== RUNS) throw new Error(`the site lists ${r.data.runs.length} runs, not ${RUNS}`);
      return (performance.now() - t0) / 1000;
    };
    const build = await timed();
    const rebuild = await timed();
    const index = await timeIndex(site);
    const f = '10 Results site';
    return [
      row(f, `${RUNS} sessions: build from nothing`, spread([build]), 's', 1, { text: '< 30 s', ok: (v) => v < 30 }),
      row(f, `${RUNS} sessions: rebuild, nothing changed`, spread([rebuild]), 's', 1),
      row(f, 'index interactive, browser just started (file://)', spread(index.interactive.slice(0, 1)), 'ms', 0),
      row(f, 'index interactive, browser open (file://)', spread(index.interactive.slice(1)), 'ms', 0, {
        text: '< 1,000 ms',
        ok: (v) => v < 1000,
      }),
      row(f, `sort ${RUNS} rows by decode tok/s`, spread([index.sort]), 'ms', 0),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
