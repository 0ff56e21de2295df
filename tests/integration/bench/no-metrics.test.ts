/**
 * Engines without /metrics or /tokenize: the same simulator behind a small pass-through proxy
 * that answers 404 for those paths (as llama.cpp without --metrics, or an OpenAI-compatible
 * gateway, would). Readiness and active requests then come from the client side, prompts are
 * estimated, and the session says which checks could not be made.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { simTest } from '../../helpers/fixtures';
import { cellsOf, runBench, targetOf, tempDir } from './bench-helpers';

const HIDDEN = new Set(['/metrics', '/tokenize']);

function proxyTo(port: number): Promise<Server> {
  const srv = createServer((req, res) => {
    if (HIDDEN.has((req.url ?? '').split('?')[0])) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      return;
    }
    const up = request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

const it = simTest.override('simOptions', { scope: 'file' }, { speed: 10, args: ['--served-model-name', 'fara'] });

describe('a server without /metrics and /tokenize', () => {
  let proxy: Server;
  it.beforeAll(async ({ sim }) => {
    proxy = await proxyTo(sim.port);
  }, 60_000);
  afterAll(() => {
    proxy?.close();
  });

  it('measures with client-side readiness and estimated prompts, and records the checks it could not make', async () => {
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const target = await targetOf(url);
    expect(target.metricsAvailable).toBe(false);
    expect(target.tokenize).toBeNull();
    const r = await runBench(
      target,
      { contexts: [8192], concurrency: [1, 4], prefillContexts: [8192], secondsPerMeasurement: 6, simSpeed: 10 },
      join(tempDir(), 'nm.speedmatrix.json'),
    );
    const cells = cellsOf(r.session);
    expect(cells['8192x1'].status).toBe('valid');
    expect(cells['8192x4'].status).toBe('valid');
    // Active requests counted by the client; no waiting count without /metrics.
    expect(cells['8192x4'].avgActiveRequests).toBe(4);
    expect(cells['8192x4'].maxWaitingSeen).toBeNull();
    expect(r.session.checksUnavailable.join(' ')).toMatch(/No \/metrics/);
    expect(r.session.checksUnavailable.join(' ')).toMatch(/No \/tokenize/);
    // Estimated from one max_tokens: 1 request: close to 8K, and the real count is recorded.
    const pt = cells['8192x1'].promptTokens!;
    expect(Math.abs(pt - 8192) / 8192).toBeLessThan(0.1);
    expect(r.session.runConfig.tokenTargeting).toBe('exact'); // asked for; the note says what happened
  }, 90_000);
});
