import { createServer as createTls } from 'node:https';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeBaseUrl, probeServer } from '../../../src-main/engine/server/probe';
import { planRun } from '../../../src-main/engine/bench/plan';
import { llamacpp, serveRoutes, sglang, tgi, vllmTp, type FakeEngine } from '../../helpers/fake-servers/engines';
import { freePort } from '../../helpers/fake-servers';

const open: FakeEngine[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
});
const track = async (p: Promise<FakeEngine>) => {
  const e = await p;
  open.push(e);
  return e;
};

describe('probeServer: other engines', () => {
  it('SGLang: KV budget from /get_server_info', async () => {
    const e = await track(sglang());
    const r = await probeServer({ baseUrl: e.url });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toMatchObject({
      engineKind: 'sglang',
      model: 'Qwen/Qwen3-8B',
      maxModelLen: 40960,
      metricsAvailable: true,
      tokenize: null,
      simulated: false,
    });
    expect(r.data.kvBudget).toMatchObject({
      tokens: 612345,
      source: 'engine-info',
      detail: 'SGLang /get_server_info max_total_num_tokens',
    });
    expect(r.data.engine).toMatchObject({
      name: 'sglang',
      version: '0.4.9.post2',
      repository: 'github.com/sgl-project/sglang',
    });
    expect(r.data.launch).toMatchObject({ kind: 'attach', argv: [], display: `attach ${e.url}`, url: e.url });
  });

  it('llama.cpp: KV pool = per-slot n_ctx x total_slots from /props', async () => {
    const e = await track(llamacpp());
    const r = await probeServer({ baseUrl: e.url });
    expect(r.ok && r.data).toMatchObject({
      engineKind: 'llamacpp',
      maxModelLen: 8192,
      metricsAvailable: false,
      kvBudget: { tokens: 32768, source: 'engine-info' },
      engine: { name: 'llama.cpp' },
    });
  });

  it('TGI: KV budget from /info max_batch_total_tokens, commit from sha', async () => {
    const e = await track(tgi());
    const r = await probeServer({ baseUrl: e.url });
    expect(r.ok && r.data).toMatchObject({
      engineKind: 'tgi',
      maxModelLen: 8192,
      kvBudget: { tokens: 262144, source: 'engine-info' },
      engine: { name: 'tgi', version: '3.3.4', commit: '9f38d9305f3b' },
    });
  });

  it('vLLM with tensor parallelism: rank 0 cache_config_info, 1.048576e+06 blocks x 16; ROCm backend from the version', async () => {
    const e = await track(vllmTp());
    const r = await probeServer({ baseUrl: `${e.url}/v1/` });
    expect(r.ok && r.data).toMatchObject({
      baseUrl: e.url,
      engineKind: 'vllm',
      maxModelLen: 131072,
      tokenize: 'messages',
      kvBudget: {
        tokens: 1048576 * 16,
        source: 'metrics-cache-config',
        detail: 'vllm:cache_config_info num_gpu_blocks 1048576 x block_size 16',
      },
      engine: { version: '0.9.2+rocm631', backend: 'rocm' },
    });
  });

  it('--max-model-len auto reduced by the engine: the plan marks cells beyond the reduced length Too long', async () => {
    // A front end that did not hear of the auto-fit (vLLM before the fitted length was synced back) states the full length.
    const e = await track(
      serveRoutes({
        '/v1/models': () => ({ json: { data: [{ id: 'm', owned_by: 'vllm', max_model_len: 262144 }] } }),
        '/health': () => ({ text: '' }),
      }),
    );
    const r = await probeServer({ baseUrl: e.url, logMaxModelLen: 98304, userKvTokens: 10_000_000 });
    expect(r.ok && r.data.maxModelLen).toBe(98304);
    expect(r.ok && r.data.launch.maxModelLen).toBe(98304);
    if (!r.ok) return;
    const plan = planRun({ contexts: [65536, 131072], concurrency: [1], maxOutputTokens: 1024 }, r.data);
    expect(plan.cells.map((c) => [c.context, c.action])).toEqual([
      [65536, 'run'],
      [131072, 'too-long'],
    ]);
    const stated = await probeServer({ baseUrl: e.url });
    expect(stated.ok && stated.data.maxModelLen).toBe(262144);
  });

  it('KV budget priority: log, then the user figure, then unknown', async () => {
    const e = await track(
      serveRoutes({
        '/v1/models': () => ({ json: { data: [{ id: 'm', owned_by: 'vllm', max_model_len: 4096 }] } }),
        '/health': () => ({ text: '' }),
      }),
    );
    const logKv = { tokens: 302945, detail: 'startup log', maxConcurrency: 1.16, tokensPerRequest: 262144, engines: 1 };
    const a = await probeServer({ baseUrl: e.url, logKv, userKvTokens: 5000 });
    expect(a.ok && a.data.kvBudget).toEqual({
      tokens: 302945,
      source: 'startup-log',
      detail: 'startup log',
      maxConcurrency: 1.16,
      tokensPerRequest: 262144,
    });
    const b = await probeServer({ baseUrl: e.url, userKvTokens: 5000 });
    expect(b.ok && b.data.kvBudget).toMatchObject({ tokens: 5000, source: 'user' });
    const c = await probeServer({ baseUrl: e.url });
    expect(c.ok && c.data.kvBudget).toMatchObject({ tokens: null, source: 'unknown' });
  });
});

describe('probeServer: which KV figure, and the model really served', () => {
  const hybridVllm = (root: string) =>
    serveRoutes({
      '/v1/models': () => ({
        json: { object: 'list', data: [{ id: 'qwen', object: 'model', owned_by: 'vllm', root, max_model_len: 32768 }] },
      }),
      '/health': () => ({ text: '' }),
      '/version': () => ({ json: { version: '0.21.0' } }),
      // vllm/v1/metrics/loggers.py log_metrics_info: every CacheConfig field as a label, no token count.
      '/metrics': () => ({
        text: 'vllm:num_requests_running{engine="0",model_name="qwen"} 0.0\nvllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="3000"} 1.0\n',
      }),
    });
  const launch = (argv: string[]) => ({
    kind: 'vllm-native' as const,
    url: '',
    argv,
    env: {},
    display: '',
    model: 'Qwen/Qwen3-Next-80B-A3B',
    servedModel: 'qwen',
    revision: null,
    maxModelLen: null,
  });

  it('the startup log\'s "GPU KV cache size" comes before num_gpu_blocks x block_size (hybrid models), and the source is named', async () => {
    const e = await track(hybridVllm('Qwen/Qwen3-Next-80B-A3B'));
    const logKv = {
      tokens: 1_200_000,
      detail: 'startup log "GPU KV cache size: 1,200,000 tokens"',
      maxConcurrency: 36.6,
      tokensPerRequest: 32768,
      engines: 1,
    };
    const withLog = await probeServer({ baseUrl: e.url, logKv });
    expect(withLog.ok && withLog.data.kvBudget).toMatchObject({
      tokens: 1_200_000,
      source: 'startup-log',
      detail: logKv.detail,
    });
    const blocksOnly = await probeServer({ baseUrl: e.url });
    expect(blocksOnly.ok && blocksOnly.data.kvBudget).toMatchObject({
      tokens: 48_000,
      source: 'metrics-cache-config',
      detail: 'vllm:cache_config_info num_gpu_blocks 3000 x block_size 16',
    });
  });

  it('data parallelism: a log with fewer engines than the launch yields to the metric, which holds the sum', async () => {
    const e = await track(hybridVllm('Qwen/Qwen3-Next-80B-A3B'));
    const oneEngine = {
      tokens: 24_000,
      detail: 'startup log',
      maxConcurrency: null,
      tokensPerRequest: null,
      engines: 1,
    };
    const dp2 = launch(['vllm', 'serve', 'Qwen/Qwen3-Next-80B-A3B', '--data-parallel-size', '2']);
    const r = await probeServer({ baseUrl: e.url, logKv: oneEngine, launch: dp2 });
    expect(r.ok && r.data.kvBudget).toMatchObject({ tokens: 48_000, source: 'metrics-cache-config' });
    const both = await probeServer({
      baseUrl: e.url,
      logKv: { ...oneEngine, tokens: 50_000, engines: 2 },
      launch: dp2,
    });
    expect(both.ok && both.data.kvBudget).toMatchObject({ tokens: 50_000, source: 'startup-log' });
    const fromArgs = await probeServer({ baseUrl: e.url, logKv: oneEngine, logArgs: { data_parallel_size: 2 } });
    expect(fromArgs.ok && fromArgs.data.kvBudget).toMatchObject({ source: 'metrics-cache-config' });
  });

  it('decode context parallelism in the launch multiplies the block count', async () => {
    const e = await track(hybridVllm('Qwen/Qwen3-Next-80B-A3B'));
    const r = await probeServer({
      baseUrl: e.url,
      launch: launch(['vllm', 'serve', 'Qwen/Qwen3-Next-80B-A3B', '-tp', '8', '-dcp', '8']),
    });
    expect(r.ok && r.data.kvBudget).toMatchObject({
      tokens: 3000 * 16 * 8,
      detail: 'vllm:cache_config_info num_gpu_blocks 3000 x block_size 16 x context parallel -dcp 8',
    });
  });

  it('refuses a server whose model root is not the model asked for (an old image serving its default model under the asked name)', async () => {
    const e = await track(hybridVllm('facebook/opt-125m'));
    const lo = {
      engineKind: 'vllm-docker' as const,
      model: 'Qwen/Qwen3-8B',
      servedModelName: 'qwen',
      host: '127.0.0.1',
      port: 8000,
    };
    const r = await probeServer({ baseUrl: e.url, model: 'qwen', launchOptions: lo });
    expect(!r.ok && r.error).toMatch(
      /^The server serves the model "facebook\/opt-125m" \(as "qwen"\), not the "Qwen\/Qwen3-8B" that was asked for; nothing was measured\./,
    );
    const right = await track(hybridVllm('Qwen/Qwen3-8B/'));
    expect((await probeServer({ baseUrl: right.url, model: 'qwen', launchOptions: lo })).ok).toBe(true);
  });

  it("SGLang's max_running_requests is kept for the plan", async () => {
    const e = await track(sglang());
    const r = await probeServer({ baseUrl: e.url });
    expect(r.ok && r.data.maxRunningRequests).toBe(4096);
  });
});

describe('probeServer: clear errors', () => {
  it('connection refused', async () => {
    const port = await freePort();
    const r = await probeServer({ baseUrl: `http://127.0.0.1:${port}` });
    expect(!r.ok && r.error).toBe(
      `Connection refused at http://127.0.0.1:${port}/v1/models: nothing listens there. Is the server running, and is the port right?`,
    );
  });

  it('unreachable host name', async () => {
    const r = await probeServer({ baseUrl: 'http://no-such-host.invalid:8000' });
    expect(!r.ok && r.error).toMatch(/^Host not found for http:\/\/no-such-host\.invalid:8000\/v1\/models/);
  });

  it('TLS failure: https to a server that speaks plain TCP', async () => {
    const plain: Server = createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const { port } = plain.address() as { port: number };
    try {
      const r = await probeServer({ baseUrl: `https://127.0.0.1:${port}`, timeoutMs: 5000 });
      expect(!r.ok && r.error).toMatch(/^TLS failed for https:\/\/127\.0\.0\.1:\d+\/v1\/models .*use http:\/\//);
    } finally {
      plain.close();
    }
  });

  it('TLS failure: an https server that fails the handshake', async () => {
    const srv = createTls({}, (_q, s) => s.end());
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as { port: number };
    try {
      const r = await probeServer({ baseUrl: `https://127.0.0.1:${port}`, timeoutMs: 5000 });
      expect(!r.ok && r.error).toMatch(/^TLS failed for https:/);
    } finally {
      srv.close();
    }
  });

  it('401: wrong key and missing key', async () => {
    const e = await track(vllmTp('right-key'));
    const wrong = await probeServer({ baseUrl: e.url, apiKey: 'wrong-key' });
    expect(!wrong.ok && wrong.error).toBe(
      'The server refused the API key (HTTP 401 on /v1/models): check the key it was started with (--api-key / VLLM_API_KEY).',
    );
    const none = await probeServer({ baseUrl: e.url });
    expect(!none.ok && none.error).toMatch(/^The server needs an API key/);
  });

  it('model not served', async () => {
    const e = await track(sglang());
    const r = await probeServer({ baseUrl: e.url, model: 'other/model' });
    expect(!r.ok && r.error).toBe(`The model "other/model" is not served at ${e.url}; it serves: Qwen/Qwen3-8B.`);
  });

  it('not an OpenAI-compatible server; engine unhealthy', async () => {
    const e = await track(serveRoutes({ '/': () => ({ text: 'hello' }) }));
    const r = await probeServer({ baseUrl: e.url });
    expect(!r.ok && r.error).toMatch(/did not answer like an OpenAI-compatible server \(HTTP 404\)/);
    const sick = await track(
      serveRoutes({
        '/v1/models': () => ({ json: { data: [{ id: 'm' }] } }),
        '/health': () => ({ status: 503, text: '' }),
      }),
    );
    const s = await probeServer({ baseUrl: sick.url });
    expect(!s.ok && s.error).toMatch(/\/health answered 503/);
  });

  it('URL checks', () => {
    expect(normalizeBaseUrl('http://h:8000/v1/')).toEqual({ ok: true, data: 'http://h:8000' });
    expect(normalizeBaseUrl('https://example.com/vllm/')).toEqual({ ok: true, data: 'https://example.com/vllm' });
    expect(normalizeBaseUrl('localhost:8000')).toMatchObject({ ok: false });
    expect(normalizeBaseUrl('ftp://h')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/http:\/\/ or https:\/\//),
    });
    expect(normalizeBaseUrl('http://user:secret@h:1')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/API key field/),
    });
    expect(normalizeBaseUrl('not a url')).toMatchObject({ ok: false, error: expect.stringMatching(/is not a URL/) });
  });
});
