/** The continuous-batching engine, observed from outside: queueing, KV pressure, preemption, chunked prefill, timing truth. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES } from '../../../src-main/sim/profile';
import { startSim, type SimHandle } from '../../helpers/sim';
import { chatBody, filler, getJson, metric, post, scrape } from './client';

const started: SimHandle[] = [];
afterEach(async () => {
  while (started.length) await started.pop()!.stop();
});
async function sim(opts: Parameters<typeof startSim>[0]): Promise<SimHandle> {
  const h = await startSim(opts);
  started.push(h);
  return h;
}

const dir = mkdtempSync(join(tmpdir(), 'sim-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A user profile file: the Fara profile on a card whose KV cache holds exactly 256 blocks (4,096 tokens). */
function tinyKvProfile(): string {
  const p = structuredClone(BUILTIN_PROFILES['rtx-pro-6000-fara-4b-bf16']);
  p.name = 'tiny-kv';
  p.gpu = { name: 'Tiny test card', memoryGiB: 12, freeGiB: 12 };
  // 0.9 x 12 GiB - 9 GiB weights - nonKv = 0.125 GiB (+ a hair) = 256 blocks x 16 tokens x 32 KiB.
  p.memory = { nonKvGiB: 10.8 - 9 - 0.125 - 1e-9 };
  const file = join(dir, 'tiny-kv.json');
  writeFileSync(file, JSON.stringify(p));
  return file;
}

/** Poll metrics until `done` resolves, keeping the max of running and waiting seen. */
async function watch(url: string, done: Promise<unknown>) {
  let finished = false;
  void done.then(() => (finished = true));
  const seen = { running: 0, waiting: 0, usage: 0 };
  while (!finished) {
    const m = await scrape(url);
    seen.running = Math.max(seen.running, metric(m, 'vllm:num_requests_running')!);
    seen.waiting = Math.max(seen.waiting, metric(m, 'vllm:num_requests_waiting')!);
    seen.usage = Math.max(seen.usage, metric(m, 'vllm:kv_cache_usage_perc')!);
    await new Promise((r) => setTimeout(r, 15));
  }
  return seen;
}

describe('admission', () => {
  it('queues above --max-num-seqs', async () => {
    const h = await sim({ speed: 10, args: ['--max-num-seqs', '2', '--max-model-len', '32768'] });
    const all = Promise.all([0, 1, 2, 3].map((i) => post(`${h.url}/v1/chat/completions`, chatBody(filler(100, i), { max_tokens: 300, ignore_eos: true }))));
    const seen = await watch(h.url, all);
    const results = await all;
    expect(seen.running).toBe(2);
    expect(seen.waiting).toBeGreaterThanOrEqual(1);
    for (const r of results) expect(r.events.at(-2)!.json!.usage.completion_tokens).toBe(300);
  });

  it('queues when the KV cache is full, preempts when it runs out mid-decode, and counts it', async () => {
    const h = await sim({ speed: 20, debug: true, profile: tinyKvProfile(), args: ['--max-model-len', '4096'] });
    const info = [...(await scrape(h.url)).keys()].find((k) => k.startsWith('vllm:cache_config_info'))!;
    expect(info).toContain('num_gpu_blocks="256"');
    const all = Promise.all([0, 1, 2, 3].map((i) => post(`${h.url}/v1/chat/completions`, chatBody(filler(1200, i), { max_tokens: 800, ignore_eos: true }))));
    const seen = await watch(h.url, all);
    const results = await all;
    expect(seen.waiting).toBeGreaterThanOrEqual(1);
    expect(seen.running).toBeLessThan(4);
    expect(seen.usage).toBeGreaterThan(0.9);
    const m = await scrape(h.url);
    expect(metric(m, 'vllm:num_preemptions_total')).toBeGreaterThan(0);
    expect(metric(m, 'vllm:kv_cache_usage_perc')).toBe(0);
    // Preempted requests are recomputed and still deliver every token.
    for (const r of results) expect(r.events.at(-2)!.json!.usage.completion_tokens).toBe(800);
    const truth = (await getJson(`${h.url}/sim/requests`)).json.requests;
    expect(truth.reduce((s: number, t: any) => s + t.preemptions, 0)).toBe(metric(m, 'vllm:num_preemptions_total'));
  });
});

describe('timing', () => {
  const gaps = (em: number[][]) => em.slice(1).map((e, i) => e[0] - em[i][0]);
  /** Mean ms per token after the first emission (one write may carry several tokens when steps are short). */
  const perToken = (em: number[][]) => (em.at(-1)![0] - em[0][0]) / em.slice(1).reduce((s, e) => s + e[1], 0);

  it('at speed 1 the ground truth matches the model: TTFT of an 8K prefill and the decode step time', async () => {
    const h = await sim({ debug: true });
    const r = await post(`${h.url}/v1/completions`, { prompt: filler(8192), max_tokens: 200, ignore_eos: true, stream: true });
    expect(r.status).toBe(200);
    const rec = (await getJson(`${h.url}/sim/requests`)).json.requests[0];
    const ttft = rec.first_token_ms - rec.arrival_ms;
    expect(ttft).toBeGreaterThan(236 * 0.95);
    expect(ttft).toBeLessThan(236 * 1.25);
    const mean = perToken(rec.emissions);
    // Step at context ~8.3K, batch 1: 6.972 + 0.125 + 0.0216 x 8.3 = ~7.28 ms.
    expect(mean).toBeGreaterThan(7.28 * 0.95);
    expect(mean).toBeLessThan(7.28 * 1.1);
  });

  it('--sim-speed 4 makes every duration 4 times shorter', async () => {
    const h = await sim({ debug: true, speed: 4 });
    await post(`${h.url}/v1/completions`, { prompt: filler(8192), max_tokens: 400, ignore_eos: true, stream: true });
    const rec = (await getJson(`${h.url}/sim/requests`)).json.requests[0];
    const mean = perToken(rec.emissions);
    expect(mean).toBeGreaterThan((7.28 / 4) * 0.9);
    expect(mean).toBeLessThan((7.28 / 4) * 1.2);
    expect(rec.first_token_ms - rec.arrival_ms).toBeLessThan(236 / 4 + 40);
  });

  it('a long prefill is chunked and interleaved with decode, not blocking it', async () => {
    const h = await sim({ debug: true, speed: 5, args: ['--max-model-len', '131072'] });
    const a = post(`${h.url}/v1/completions`, { prompt: filler(200, 1), max_tokens: 300, ignore_eos: true, stream: true });
    await new Promise((r) => setTimeout(r, 100));
    const b = await post(`${h.url}/v1/completions`, { prompt: filler(65536, 2), max_tokens: 1, stream: true });
    await a;
    const recs = (await getJson(`${h.url}/sim/requests`)).json.requests;
    const [ra, rb] = recs;
    expect(rb.prompt_tokens).toBe(65536);
    const prefillMs = rb.first_token_ms - rb.arrival_ms;
    expect(prefillMs).toBeGreaterThan((2533 / 5) * 0.9);
    // A kept getting tokens while B prefilled: its longest gap is about one 8K chunk (~65 ms), not the whole prefill.
    const during = ra.emissions.filter((e: number[]) => e[0] > rb.arrival_ms && e[0] < rb.first_token_ms);
    expect(during.length).toBeGreaterThan(4);
    expect(Math.max(...gaps(ra.emissions))).toBeLessThan(prefillMs / 2.5);
    void b;
  });
});
