/**
 * `npm run dev` shows the app, not a blank window: the renderer's Vite dev server (the config's
 * own renderer section and plugins) in real Chromium, with the CSP header main sends in
 * development. The React plugin's inline preamble runs, hot reload connects, and nothing is
 * refused. The same page under the production header stays blank, which is the bug this guards.
 */
import { type Browser } from 'playwright-core';
import { type ViteDevServer, createServer } from 'vite';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import config from '../../../electron.vite.config';
import { CSP, devCsp } from '../../../src-main/hosts/electron/csp';
import { freePort } from '../../helpers/sim';
import { webTest as it } from '../../helpers/fixtures';
import { hasChromium } from '../../web/browser';

describe.skipIf(!hasChromium)('the Vite dev server page in Chromium', () => {
  let server: ViteDevServer;
  let url = '';
  beforeAll(async () => {
    const port = await freePort();
    const renderer = (config as { renderer: Record<string, unknown> }).renderer;
    server = await createServer({
      ...renderer,
      configFile: false,
      logLevel: 'silent',
      server: { host: 'localhost', port, strictPort: true },
    });
    await server.listen();
    // What electron-vite hands main as ELECTRON_RENDERER_URL.
    url = `http://localhost:${port}`;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  /** Loads the page with `header` as the CSP response header, as main's session does; returns what rendered and what was refused. */
  async function load(browser: Browser, header: string, waitMs = 20_000) {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    let hmrSocket = false;
    page.on('websocket', (ws) => {
      if (ws.url().startsWith(url.replace('http', 'ws'))) hmrSocket = true;
    });
    await page.route(`${url}/**`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, headers: { ...res.headers(), 'content-security-policy': header } });
    });
    await page.goto(`${url}/`);
    const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    const rendered = await page
      .waitForFunction(() => (document.getElementById('root')?.childElementCount ?? 0) > 0, null, { timeout: waitMs })
      .then(() => true)
      .catch(() => false);
    const text = rendered ? await page.locator('#root').innerText() : '';
    await page.close();
    return { meta, rendered, text, refused, hmrSocket };
  }

  it('with the development CSP the app renders, hot reload connects, and nothing is refused', async ({ browser }) => {
    const r = await load(browser, devCsp(url));
    expect(r.meta).toBe(devCsp(`${url}/`));
    expect(r.rendered).toBe(true);
    // No bridge outside Electron: the app itself says so, which only a running React app can.
    expect(r.text).toMatch(/No connection to the SpeedMatrix core/);
    expect(r.hmrSocket).toBe(true);
    expect(r.refused).toEqual([]);
  }, 60_000);

  it('under the production CSP the same page stays blank: the inline preamble is refused', async ({ browser }) => {
    // The first test already waited for Vite's first transform, so a few seconds tell.
    const r = await load(browser, CSP, 6_000);
    expect(r.rendered).toBe(false);
    expect(r.refused.join('\n')).toMatch(/inline script/i);
  }, 60_000);
});
