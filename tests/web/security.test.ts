/**
 * Security in real Chromium: the page's CSP (meta and header, script-src 'self')
 * stops injected inline script; files from the fuzz corpus, hostile imports and the exported
 * HTML and PDF reports never put markup from a file into a DOM. Every view is walked while a
 * hostile session is open.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { serializeSession } from '../../src-main/platform/session/write';
import { CSP } from '../helpers/bridge-server';
import { webTest as it } from '../helpers/fixtures';
import { HOSTILE_STRINGS, fuzzCorpus, hostileSession } from '../helpers/fuzz-corpus';
import { ROOT } from '../helpers/paths';
import { hasChromium, openPage, shot } from './browser';

/** Anything in the DOM that could only have come from markup in a file. */
async function injected(page: Page): Promise<{
  pwned: unknown;
  onAttrs: string[];
  jsLinks: number;
  frames: number;
  stray: number;
  inlineScripts: number;
}> {
  return page.evaluate(() => {
    const all = [...document.querySelectorAll('*')];
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      // Event handlers, or a URL-bearing attribute holding a file's string (a title or aria-label holding one is plain text).
      onAttrs: all.flatMap((el) =>
        [...el.attributes]
          .filter(
            (a) =>
              /^on/i.test(a.name) ||
              (/^(href|src|srcdoc|action|formaction|xlink:href|style)$/i.test(a.name) && a.value.includes('__pwned')),
          )
          .map((a) => `${el.tagName}[${a.name}]`),
      ),
      jsLinks: document.querySelectorAll('a[href^="javascript:" i], [src^="javascript:" i]').length,
      frames: document.querySelectorAll('iframe, frame, object, embed').length,
      stray: document.querySelectorAll('img[src="x"], b, svg[onload]').length,
      inlineScripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    };
  });
}
const CLEAN = { pwned: null, onAttrs: [], jsLinks: 0, frames: 0, stray: 0, inlineScripts: 0 };

async function pickFile(page: Page, name: string, data: string | Uint8Array): Promise<void> {
  await page.getByTestId('file-input').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(data) });
}

describe.skipIf(!hasChromium)('security in Chromium', () => {
  it("CSP: meta tag and header say script-src 'self'; an injected inline script does not run", async ({
    bridge,
    browser,
  }) => {
    const { page } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(meta).toContain("script-src 'self'");
    const res = await page.request.get(bridge.url);
    expect(res.headers()['content-security-policy']).toBe(CSP);
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inline = 1';
      document.body.appendChild(s);
      const d = document.createElement('div');
      d.innerHTML = '<img src="data:," onerror="window.__inline = 2">';
      document.body.appendChild(d);
      await new Promise((r) => setTimeout(r, 300));
      return (window as unknown as { __inline?: number }).__inline ?? null;
    });
    expect(ran).toBeNull();
    await expect.poll(() => violations.length).toBeGreaterThan(0);
  });

  it('a session with markup in every string field: every view shows it as text, nothing becomes markup', async ({
    bridge,
    browser,
  }) => {
    const { page } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    await pickFile(page, 'hostile.speedmatrix.json', serializeSession(hostileSession()));
    await page.getByTestId('report').waitFor();
    await expect.poll(() => page.getByTestId('report-title').textContent()).toMatch(/<svg onload=|<script>window/);
    // Open the looped cell's evidence and each cell's detail that exists.
    const cells = page.locator('[data-cell] button');
    for (let i = 0; i < (await cells.count()); i++) await cells.nth(i).click();
    expect(await injected(page)).toEqual(CLEAN);
    for (const view of ['Hardware', 'Server', 'Run', 'Results']) {
      await page.locator('nav button', { hasText: view }).click();
      await page.getByTestId(`view-${view.toLowerCase()}`).waitFor();
      expect(await injected(page), view).toEqual(CLEAN);
    }
    const text = await page.locator('body').innerText();
    expect(text).toContain(HOSTILE_STRINGS[0]);
    await shot(page, 'security-hostile-session');
  });

  it('broken files from the fuzz corpus: each shows its error as text, the app stays usable', async ({
    bridge,
    browser,
  }) => {
    const corpus = fuzzCorpus();
    const picks = [
      corpus.find((c) => c.name.startsWith('truncated'))!,
      corpus.find((c) => c.name.startsWith('"NaN" at'))!,
      corpus.find((c) => c.name.startsWith('wrong type at engine'))!,
      corpus.find((c) => c.name.startsWith('invalid UTF-8'))!,
      corpus.find((c) => c.name === 'duplicate cells key (last is markup)')!,
      corpus.find((c) => c.name === 'HTML page')!,
      corpus.find((c) => c.name === 'deep nesting unclosed')!,
    ];
    const { page } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    const err = page.getByTestId('open-error');
    for (const [i, c] of picks.entries()) {
      // File names are strings from outside too (no slash: a name cannot hold one).
      const name = `case-${i}-<img src=x onerror="window.__pwned=1">.speedmatrix.json`;
      await pickFile(page, name, c.data);
      await expect
        .poll(() => err.textContent({ timeout: 2_000 }).catch(() => 'no open-error shown'), {
          message: c.name,
          timeout: 10_000,
        })
        .toContain(name);
      if (c.name.startsWith('invalid UTF-8')) expect(await err.textContent()).toContain('is not valid UTF-8 text');
      expect(await injected(page), c.name).toEqual(CLEAN);
    }
    expect(await page.locator('[data-app-state="ready"]').count()).toBe(1);
  });

  it('an imported file (llm-inference-bench JSON) with markup in its strings renders as text', async ({
    bridge,
    browser,
  }) => {
    const seed = JSON.parse(
      readFileSync(join(ROOT, 'tests/unit/importers/fixtures/fara-benchmark_results.json'), 'utf8'),
    );
    seed.metadata.model = HOSTILE_STRINGS[0];
    seed.metadata.engine = HOSTILE_STRINGS[1];
    seed.metadata.server = HOSTILE_STRINGS[2];
    const { page } = await openPage(browser, bridge.url);
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    await pickFile(page, 'benchmark_results.json', JSON.stringify(seed));
    await page.getByTestId('report').waitFor();
    await expect.poll(() => page.getByTestId('report-title').textContent()).toContain(HOSTILE_STRINGS[0]);
    expect(await injected(page)).toEqual(CLEAN);
  });

  it('the exported HTML and PDF of the hostile session carry the payloads only as text', async ({
    bridge,
    browser,
  }) => {
    const core = bridge.core;
    expect(
      (
        await core.invoke('session:open-data', [
          { name: 'hostile.speedmatrix.json', text: serializeSession(hostileSession()) },
        ])
      ).ok,
    ).toBe(true);
    const html = await core.invoke('report:export', ['html']);
    if (!html.ok) throw new Error(html.error);
    const { page } = await openPage(browser, pathToFileURL(html.data.file).href);
    await page.waitForLoadState('load');
    expect(await injected(page)).toEqual(CLEAN);
    expect(await page.locator('body').innerText()).toContain(HOSTILE_STRINGS[0]);
    const pdf = await core.invoke('report:export', ['pdf']);
    if (!pdf.ok) throw new Error(pdf.error);
    const text = execFileSync('pdftotext', [pdf.data.file, '-'], { encoding: 'utf8' });
    expect(text).toContain('<script>window.__pwned');
    writeFileSync(join(bridge.dialogs.saveDir, 'pdf.txt'), text);
  }, 90_000);
});
