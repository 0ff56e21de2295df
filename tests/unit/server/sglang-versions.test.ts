/**
 * SGLang's own response shapes (tests/fixtures/sglang, with where each comes from) through the
 * probe, the queue reader and exact prompt sizing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHttp } from '../../../src-main/engine/bench/http';
import { queueSample } from '../../../src-main/engine/bench/metrics';
import { sizedPrompt, tolerance } from '../../../src-main/engine/bench/prompts';
import { launchOptionsFromCommand } from '../../../src-main/engine/server/command-line';
import { probeServer } from '../../../src-main/engine/server/probe';
import { encodeChat } from '../../../src-main/engine/sim/tokenizer';
import { sglang0510, sglangFixture, type FakeSglang } from '../../helpers/fake-servers/sglang';

const open: FakeSglang[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
});
const start = async (options?: Parameters<typeof sglang0510>[0]) => {
  const e = await sglang0510(options);
  open.push(e);
  return e;
};

/** The launch as typed: --model is SGLang's alias of --model-path. */
const launched = launchOptionsFromCommand([
  'python3',
  '-m',
  'sglang.launch_server',
  '--model',
  'Qwen/Qwen3-8B',
  '--served-model-name',
  'qwen3',
  '--dp-size',
  '2',
  '--enable-priority-scheduling',
  '--port',
  '30000',
]);

describe('SGLang 0.5.10 with --served-model-name, --dp-size 2 and priority scheduling', () => {
  it('is not refused as the wrong model: /v1/models states the served name as its root', async () => {
    const e = await start();
    const r = await probeServer({ baseUrl: e.url, launchOptions: launched });
    expect(r.ok && r.data).toMatchObject({ engineKind: 'sglang', model: 'qwen3', maxModelLen: 40960 });
  });

  it("adds up the replicas' KV pools and request caps (max_total_num_tokens is one replica's), from /server_info only", async () => {
    const e = await start();
    const r = await probeServer({ baseUrl: e.url });
    expect(r.ok && r.data.kvBudget).toMatchObject({
      tokens: 412_345 + 411_520,
      source: 'engine-info',
      detail: 'SGLang /server_info memory_usage.token_capacity summed over 2 data parallel replicas',
    });
    expect(r.ok && r.data.maxRunningRequests).toBe(4096);
    expect(r.ok && r.data.engine.version).toBe('0.5.10');
    expect(e.asked).toContain('GET /server_info');
    expect(e.asked).not.toContain('GET /get_server_info');
  });

  it('without per-replica states: max_total_num_tokens x dp_size; before 0.5.6 from /get_server_info', async () => {
    const info = JSON.parse(sglangFixture('v0.5.10-server-info-dp2.json')) as Record<string, unknown>;
    delete info.internal_states;
    const e = await start({ serverInfo: info });
    const r = await probeServer({ baseUrl: e.url });
    expect(r.ok && r.data.kvBudget).toMatchObject({
      tokens: 412_345 * 2,
      detail: 'SGLang /server_info max_total_num_tokens x dp_size 2',
    });
    const old = await start({ serverInfo: info, before056: true });
    const o = await probeServer({ baseUrl: old.url });
    expect(o.ok && o.data.kvBudget.detail).toBe('SGLang /get_server_info max_total_num_tokens x dp_size 2');
  });

  it('counts running and waiting requests once: the priority="" total, not the per-priority series as well', () => {
    const text = sglangFixture('v0.5.10-metrics-priority-dp2.txt');
    expect(queueSample(text, 'sglang')).toEqual({ running: 9 + 7, waiting: 2 });
  });

  it('sizes prompts exactly although /tokenize takes only `prompt` (0.5.4-0.5.11): texts counted, the template measured once', async () => {
    const e = await start();
    const r = await probeServer({ baseUrl: e.url });
    expect(r.ok && r.data.tokenize).toBe('prompt');
    if (!r.ok) return;
    const http = createHttp(r.data);
    try {
      for (const target of [0, 4096, 20_000]) {
        const p = await sizedPrompt(http, 'exact', `[RUN t CTX ${target}]`, target);
        const served = encodeChat(p.messages).length;
        expect(p.exact).toBe(true);
        expect(p.tokens).toBe(served);
        if (target === 0) continue;
        expect(served).toBeLessThanOrEqual(target);
        expect(served).toBeGreaterThanOrEqual(target - tolerance(target));
      }
      expect(e.asked.filter((a) => a === 'POST /v1/chat/completions').length).toBe(2);
    } finally {
      await http.agent.close();
    }
  });
});

describe('SGLang 0.4.10 to 0.5.18 /metrics with a series per rank', () => {
  it('counts each scheduler group once with --enable-metrics-for-all-schedulers: TP ranks repeat it, DP groups add up', () => {
    const tp2 = sglangFixture('v0.5.18-metrics-all-schedulers-tp2.txt');
    expect(queueSample(tp2, 'sglang')).toEqual({ running: 7, waiting: 3 });
    const dpAttention = sglangFixture('v0.5.18-metrics-all-schedulers-dp-attention.txt');
    expect(queueSample(dpAttention, 'sglang')).toEqual({ running: 5 + 4, waiting: 2 + 1 });
  });

  it('counts the requests of a pipeline once: the first stage, not every stage that holds them', () => {
    expect(queueSample(sglangFixture('v0.5.18-metrics-pp2.txt'), 'sglang')).toEqual({ running: 6, waiting: 1 });
  });
});
