/** The simulator as a separate process over HTTP: routes, auth, errors, SSE shape, usage, metrics, ground truth. */
import { describe, expect } from 'vitest';
import { simTest } from '../../helpers/fixtures';
import { simSpeedFromTarget } from '../../../src-main/engine/bench/plan';
import { probeServer } from '../../../src-main/engine/server/probe';
import { chatBody, detectLoop, filler, getJson, metric, post, scrape } from './client';

const KEY = 'test-key-123';
const AUTH = { authorization: `Bearer ${KEY}` };
const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  {
    apiKey: KEY,
    debug: true,
    speed: 20,
    args: ['--max-model-len', '16K', '--served-model-name', 'fara', 'fara-alias', '--gpu-memory-utilization', '0.83'],
  },
);

describe('plain routes', () => {
  it('health, ping, version, load', async ({ sim }) => {
    expect((await fetch(`${sim.url}/health`)).status).toBe(200);
    expect(await (await fetch(`${sim.url}/health`)).text()).toBe('');
    expect((await fetch(`${sim.url}/ping`, { method: 'POST' })).status).toBe(200);
    expect((await getJson(`${sim.url}/version`)).json).toEqual({
      version: '0.30.1rc1.dev452+g73a583112',
      simulated: true,
      sim_speed: 20,
      sim_profile: 'rtx-pro-6000-fara-4b-bf16',
      sim_gpu: { name: 'NVIDIA RTX PRO 6000 Blackwell Server Edition', memory_gib: 95.59 },
    });
    expect((await getJson(`${sim.url}/load`)).json).toEqual({ server_load: 0 });
  });
  it('an attached simulator is recognised from /version: simulated, with its speed', async ({ sim }) => {
    const r = await probeServer({ baseUrl: sim.url, apiKey: KEY });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data.launch.kind).toBe('attach');
    expect(r.data).toMatchObject({ simulated: true, simSpeed: 20 });
    expect(simSpeedFromTarget(r.data)).toBe(20);
  });
  it('unknown path 404 and wrong method 405 in FastAPI shape', async ({ sim }) => {
    const a = await getJson(`${sim.url}/nope`);
    expect(a.status).toBe(404);
    expect(a.json).toEqual({ detail: 'Not Found' });
    const b = await getJson(`${sim.url}/tokenize`);
    expect(b.status).toBe(405);
    expect(b.json).toEqual({ detail: 'Method Not Allowed' });
  });
  it('/v1/models lists every served name with max_model_len', async ({ sim }) => {
    const r = await getJson(`${sim.url}/v1/models`, AUTH);
    expect(r.status).toBe(200);
    expect(r.json.object).toBe('list');
    expect(r.json.data.map((m: any) => m.id)).toEqual(['fara', 'fara-alias']);
    expect(r.json.data[0]).toMatchObject({
      object: 'model',
      owned_by: 'vllm',
      root: 'microsoft/Fara1.5-4B',
      parent: null,
      max_model_len: 16384,
    });
  });
});

describe('auth', () => {
  it('only /v1 paths need the key; the scheme is case-insensitive', async ({ sim }) => {
    const none = await getJson(`${sim.url}/v1/models`);
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ error: 'Unauthorized' });
    expect((await getJson(`${sim.url}/v1/models`, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await getJson(`${sim.url}/v1/models`, { authorization: `bearer ${KEY}` })).status).toBe(200);
    expect((await fetch(`${sim.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${sim.url}/version`)).status).toBe(200);
    const chat = await post(`${sim.url}/v1/chat/completions`, chatBody('hi', { max_tokens: 2 }));
    expect(chat.status).toBe(401);
  });
  it('the key never appears in the log', ({ sim }) => {
    expect(sim.logs()).not.toContain(KEY);
    expect(sim.logs()).toContain("'api_key': ['<redacted>']");
  });
});

describe('tokenizer endpoints', () => {
  it('/tokenize counts prompts and chats; usage agrees', async ({ sim }) => {
    const t = await post(`${sim.url}/tokenize`, { model: 'fara', prompt: filler(100) });
    expect(t.status).toBe(200);
    const body = JSON.parse(t.body);
    expect(body.count).toBe(100);
    expect(body.max_model_len).toBe(16384);
    expect(body.tokens).toHaveLength(100);
    const d = await post(`${sim.url}/detokenize`, { model: 'fara', tokens: body.tokens });
    expect(JSON.parse(d.body).prompt).toBe(filler(100));

    const msgs = [{ role: 'user', content: filler(500) }];
    const c = JSON.parse((await post(`${sim.url}/tokenize`, { model: 'fara', messages: msgs })).body).count;
    expect(c).toBe(510);
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      { model: 'fara', messages: msgs, max_tokens: 3 },
      { headers: AUTH },
    );
    expect(JSON.parse(r.body).usage).toEqual({
      prompt_tokens: 510,
      total_tokens: 513,
      completion_tokens: 3,
      prompt_tokens_details: null,
    });
  });
});

describe('errors', () => {
  const err = (r: { status: number; body: string }) => ({ status: r.status, ...JSON.parse(r.body) });
  it('prompt + max_tokens over max_model_len: 400 before any stream', async ({ sim }) => {
    const r = err(
      await post(`${sim.url}/v1/chat/completions`, chatBody(filler(9000), { max_tokens: 8192 }), { headers: AUTH }),
    );
    expect(r.status).toBe(400);
    expect(r.error.type).toBe('BadRequestError');
    expect(r.error.code).toBe(400);
    expect(r.error.message).toMatch(
      /maximum context length is 16384 tokens\. However, you requested 8192 output tokens and your prompt contains at least 9010 input tokens/,
    );
  });
  it('prompt alone over the limit', async ({ sim }) => {
    const r = err(await post(`${sim.url}/v1/completions`, { prompt: filler(17000), max_tokens: 1 }, { headers: AUTH }));
    expect(r.status).toBe(400);
    expect(r.error.message).toMatch(
      /maximum context length is 16384 tokens\. However, your request has 17000 input tokens/,
    );
  });
  it('unknown model 404, bad JSON 400, bad max_tokens 400, stream_options without stream 400', async ({ sim }) => {
    const m = err(await post(`${sim.url}/v1/chat/completions`, chatBody('x', { model: 'other' }), { headers: AUTH }));
    expect(m).toMatchObject({
      status: 404,
      error: { type: 'NotFoundError', code: 404, message: 'The model `other` does not exist.' },
    });
    const bad = await fetch(`${sim.url}/v1/completions`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.type).toBe('BadRequestError');
    expect(err(await post(`${sim.url}/v1/completions`, { prompt: 'x', max_tokens: 0 }, { headers: AUTH })).status).toBe(
      400,
    );
    expect(
      err(await post(`${sim.url}/v1/completions`, { prompt: 'x', max_tokens: 'many' }, { headers: AUTH })).status,
    ).toBe(400);
    expect(err(await post(`${sim.url}/v1/chat/completions`, { messages: [] }, { headers: AUTH })).status).toBe(400);
    const so = err(
      await post(
        `${sim.url}/v1/completions`,
        { prompt: 'x', stream_options: { include_usage: true } },
        { headers: AUTH },
      ),
    );
    expect(so.status).toBe(400);
  });
});

describe('streaming chat', () => {
  it('role chunk first, content chunks, finish_reason on the last, usage chunk, [DONE]', async ({ sim }) => {
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      chatBody(filler(50), { model: 'fara-alias', max_tokens: 20, ignore_eos: true }),
      { headers: AUTH },
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    const ev = r.events;
    expect(ev.at(-1)!.data).toBe('[DONE]');
    const first = ev[0].json!;
    expect(first.object).toBe('chat.completion.chunk');
    expect(first.model).toBe('fara-alias');
    expect(first.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(first.choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '' },
      logprobs: null,
      finish_reason: null,
    });
    expect(first.usage).toEqual({ prompt_tokens: 60, total_tokens: 60, completion_tokens: 0 });
    const content = ev.slice(1, -2);
    expect(content).toHaveLength(20);
    content.forEach((e, i) => {
      expect(e.json!.id).toBe(first.id);
      expect(typeof e.json!.choices[0].delta.content).toBe('string');
      expect(e.json!.choices[0].delta.content.length).toBeGreaterThan(0);
      expect(e.json!.usage.completion_tokens).toBe(i + 1);
      expect(e.json!.choices[0].finish_reason).toBe(i === 19 ? 'length' : null);
    });
    const usage = ev.at(-2)!.json!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 60, total_tokens: 80, completion_tokens: 20 });
  });

  it('include_usage without continuous stats: only the final usage chunk', async ({ sim }) => {
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      { ...chatBody('hello'), stream_options: { include_usage: true }, max_tokens: 5 },
      { headers: AUTH },
    );
    const withUsage = r.events.filter((e) => e.json?.usage);
    expect(withUsage).toHaveLength(1);
    expect(withUsage[0].json!.choices).toEqual([]);
    const plain = await post(
      `${sim.url}/v1/chat/completions`,
      { messages: [{ role: 'user', content: 'x' }], stream: true, max_tokens: 5 },
      { headers: AUTH },
    );
    expect(plain.events.filter((e) => e.json?.usage)).toHaveLength(0);
    expect(plain.events.at(-1)!.data).toBe('[DONE]');
  });

  it('without ignore_eos a request ends by itself with "stop"; min_tokens is honoured', async ({ sim }) => {
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      chatBody('Tell me a story', { max_tokens: 8000, min_tokens: 20 }),
      { headers: AUTH },
    );
    const last = r.events.at(-2)!.json!;
    const n = last.usage.completion_tokens;
    expect(n).toBeGreaterThanOrEqual(20);
    expect(n).toBeLessThan(8000);
    expect(r.events.at(-3)!.json!.choices[0].finish_reason).toBe('stop');
  });

  it('generated text is varied prose that the benchmark’s loop detector leaves alone', async ({ sim }) => {
    const r = await post(
      `${sim.url}/v1/completions`,
      { prompt: 'Once', max_tokens: 4096, ignore_eos: true },
      { headers: AUTH },
    );
    const text = JSON.parse(r.body).choices[0].text as string;
    const words = text.split(/\s+/).filter(Boolean);
    expect(new Set(words).size).toBeGreaterThan(150);
    expect(text).toMatch(/[A-Z][a-z]+ [a-z]+/);
    expect(text.length).toBeGreaterThan(12_000);
    expect(detectLoop(text)).toBe(false);
  });
});

describe('completions', () => {
  it('streams text_completion chunks with usage', async ({ sim }) => {
    const r = await post(
      `${sim.url}/v1/completions`,
      { prompt: filler(30), max_tokens: 6, stream: true, stream_options: { include_usage: true } },
      { headers: AUTH },
    );
    const chunks = r.events.filter((e) => e.json?.choices?.length);
    expect(chunks).toHaveLength(6);
    expect(chunks[0].json!.object).toBe('text_completion');
    expect(chunks[0].json!.id).toMatch(/^cmpl-/);
    expect(chunks[0].json!.choices[0]).toMatchObject({
      index: 0,
      logprobs: null,
      finish_reason: null,
      stop_reason: null,
    });
    expect(chunks[5].json!.choices[0].finish_reason).toBe('length');
    expect(r.events.at(-2)!.json!.usage).toEqual({ prompt_tokens: 30, total_tokens: 36, completion_tokens: 6 });
  });
  it('non-streaming answers once, with usage and finish_reason', async ({ sim }) => {
    const r = await post(`${sim.url}/v1/completions`, { prompt: [1, 2, 3], max_tokens: 4 }, { headers: AUTH });
    const body = JSON.parse(r.body);
    expect(body.object).toBe('text_completion');
    expect(body.choices[0].finish_reason).toBe('length');
    expect(body.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });
});

describe('metrics and ground truth', () => {
  it('counters match what was served; cache_config_info carries the KV budget', async ({ sim }) => {
    const before = await scrape(sim.url);
    await post(`${sim.url}/v1/chat/completions`, chatBody(filler(200), { max_tokens: 7, ignore_eos: true }), {
      headers: AUTH,
    });
    const after = await scrape(sim.url);
    const d = (name: string, l = '') => metric(after, name, l)! - (metric(before, name, l) ?? 0);
    expect(d('vllm:generation_tokens_total')).toBe(7);
    expect(d('vllm:prompt_tokens_total')).toBe(210);
    expect(d('vllm:request_success_total', 'finished_reason="length"')).toBe(1);
    expect(d('vllm:time_to_first_token_seconds_count')).toBe(1);
    expect(metric(after, 'vllm:num_requests_running')).toBe(0);
    expect(metric(after, 'vllm:num_requests_waiting')).toBe(0);
    expect(metric(after, 'vllm:kv_cache_usage_perc')).toBe(0);
    const info = [...after.keys()].find((k) => k.startsWith('vllm:cache_config_info'))!;
    expect(info).toMatch(/block_size="16"/);
    expect(info).toMatch(/num_gpu_blocks="137215"/);
    expect(info).not.toMatch(/kv_cache_size_tokens/); // vLLM's CacheConfig has no such field
    expect(info).toMatch(/\{block_size="16",cache_dtype="auto",/); // labels sorted
    expect(metric(after, 'vllm:prefix_cache_queries_total')).toBeGreaterThan(0);
  });

  it('repeating a prompt hits the prefix cache', async ({ sim }) => {
    const body = chatBody(filler(1000, 7), { max_tokens: 1 });
    await post(`${sim.url}/v1/chat/completions`, body, { headers: AUTH });
    const before = await scrape(sim.url);
    await post(`${sim.url}/v1/chat/completions`, body, { headers: AUTH });
    const after = await scrape(sim.url);
    const hits = metric(after, 'vllm:prefix_cache_hits_total')! - metric(before, 'vllm:prefix_cache_hits_total')!;
    expect(hits).toBe(Math.floor((1010 - 1) / 16) * 16);
  });

  it('/sim/requests records every write; client timings agree with it', async ({ sim }) => {
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      chatBody(filler(64, 3), { max_tokens: 10, ignore_eos: true }),
      { headers: AUTH },
    );
    const id = r.events[0].json!.id;
    const truth = (await getJson(`${sim.url}/sim/requests`)).json;
    const rec = truth.requests.find((x: any) => x.id === id);
    expect(rec).toMatchObject({
      endpoint: '/v1/chat/completions',
      stream: true,
      prompt_tokens: 74,
      max_tokens: 10,
      ignore_eos: true,
      finish_reason: 'length',
      completion_tokens: 10,
      preemptions: 0,
      looped: false,
    });
    expect(rec.emissions.reduce((s: number, e: number[]) => s + e[1], 0)).toBe(10);
    expect(rec.first_token_ms).toBe(rec.emissions[0][0]);
    expect(rec.arrival_ms).toBeLessThanOrEqual(rec.scheduled_ms);
    // The client saw the first content chunk shortly after the server wrote it.
    const firstContent = r.events.find((e) => e.json?.choices?.[0]?.delta?.content)!;
    expect(firstContent.at - rec.first_token_ms).toBeGreaterThanOrEqual(-2);
    expect(firstContent.at - rec.first_token_ms).toBeLessThan(500);
  });

  it('DELETE /sim/requests forgets finished requests', async ({ sim }) => {
    const del = await fetch(`${sim.url}/sim/requests`, { method: 'DELETE' });
    expect((await del.json()).requests).toEqual([]);
  });

  it('a client that disconnects aborts its request and frees its blocks', async ({ sim }) => {
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      chatBody(filler(2000, 9), { max_tokens: 10000, ignore_eos: true }),
      { headers: AUTH, abortAfterEvents: 3 },
    );
    expect(r.events.length).toBeGreaterThanOrEqual(3);
    const deadline = Date.now() + 5000;
    let m = await scrape(sim.url);
    while (metric(m, 'vllm:num_requests_running') !== 0 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 50));
      m = await scrape(sim.url);
    }
    expect(metric(m, 'vllm:num_requests_running')).toBe(0);
    expect(metric(m, 'vllm:kv_cache_usage_perc')).toBe(0);
    expect(metric(m, 'vllm:request_success_total', 'finished_reason="abort"')).toBeGreaterThanOrEqual(1);
    const rec = (await getJson(`${sim.url}/sim/requests`)).json.requests.find(
      (x: any) => x.id === r.events[0].json!.id,
    );
    expect(rec.finish_reason).toBe('abort');
  });
});
