import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serializeSession } from '../../src-main/session/write';
import { startBridgeServer } from '../helpers/bridge-server';
import { launchChromium, openPage } from '../web/browser';
import { bigSession } from './lib/big-session';
async function main() {
  const bridge = await startBridgeServer();
  const browser = await launchChromium();
  try {
    const file = join(bridge.dialogs.saveDir, 'big.speedmatrix.json');
    writeFileSync(file, serializeSession(bigSession()));
    const { page } = await openPage(browser, bridge.url);
    await page.addInitScript(`(() => { const W = window.WebSocket; window.__log = []; window.WebSocket = class extends W { constructor(u,p){ super(u,p); this.addEventListener('message', (e) => window.__log.push([performance.now(), String(e.data).length, String(e.data).slice(0,80)])); } }; })()`);
    await page.reload();
    await page.waitForSelector('[data-app-state="ready"]');
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('results-empty').waitFor();
    bridge.dialogs.openQueue.push(file);
    const t0 = performance.now();
    const pt0 = await page.evaluate('performance.now()') as number;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    const r = await bridge.core.invoke('session:open', []);
    const t1 = performance.now();
    await page.locator('[data-testid="heatmap"] [data-cell="131072x512"]').waitFor({ timeout: 30000 });
    const pt2 = await page.evaluate('performance.now()') as number;
    const { profile } = (await cdp.send('Profiler.stop')) as any;
    const self = new Map<string, number>();
    const dt = new Map<number, number>();
    profile.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    for (const n of profile.nodes) { const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (dt.get(n.id) ?? 0)); }
    console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / 1000).toFixed(1)} ms ${k}`).join('\n'));
    const t2 = performance.now();
    const log = (await page.evaluate('window.__log')) as any[];
    console.log('invoke', (t1 - t0).toFixed(0), 'total', (t2 - t0).toFixed(0));
    for (const [t, n, head] of log) if (t > pt0) console.log((t - pt0).toFixed(0), n, head);
    console.log('page drawn at', (pt2 - pt0).toFixed(0));
  } finally { await browser.close(); await bridge.close(); }
}
void main();
