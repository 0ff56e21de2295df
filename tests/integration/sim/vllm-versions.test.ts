/** The simulator follows the vLLM version its profile claims: flags, defaults and choices. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { parseLog, parseLogLine } from '../../../src-main/engine/server/log-parse';
import { applyProfileVersion, parseServeArgs } from '../../../src-main/engine/sim/args';
import { BUILTIN_PROFILES } from '../../../src-main/engine/sim/profile';
import { simTest as it } from '../../helpers/fixtures';
import { chatBody, filler, getJson, post } from './client';
import { checkKvCacheDtype, kvCacheDtypeChoices, vllmTraits } from '../../../src-main/engine/sim/vllm-traits';
import { CONSUMER_CARD_ARGS } from '../../helpers/sim';

const parse = (args: string[], version: string) => {
  const r = parseServeArgs(args, {});
  if (!r.ok) return r;
  return applyProfileVersion(r.data, version);
};

describe('--kv-cache-dtype by version', () => {
  it('int4 is no vLLM value: refused as argparse refuses it, with the choices of the version', () => {
    const r = parse(['--kv-cache-dtype', 'int4'], '0.11.0');
    expect(!r.ok && r.error).toBe(
      "argument --kv-cache-dtype: invalid choice: 'int4' (choose from 'auto', 'float16', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_ds_mla')",
    );
  });

  it("today's choices (vllm/config/cache.py CacheDType) are accepted without a word", () => {
    for (const d of ['int8_per_token_head', 'fp8_per_token_head', 'nvfp4', 'turboquant_k8v4']) {
      const r = parse(['--kv-cache-dtype', d], '0.21.0');
      expect(r.ok && r.data.warnings).toEqual([]);
    }
    expect(kvCacheDtypeChoices('0.9.2')).not.toContain('int8_per_token_head');
  });

  it("a newer release's value (int4_per_token_head) is accepted with a warning, an unknown word is not", () => {
    const r = parse(['--kv-cache-dtype', 'int4_per_token_head'], '0.11.0');
    expect(r.ok && r.data.warnings).toEqual([
      "--kv-cache-dtype int4_per_token_head is not a choice of vLLM 0.11.0 (the profile's version); simulated by its bits per element, as a newer vLLM would store it.",
    ]);
    expect(checkKvCacheDtype('banana', '0.30.1')).toMatchObject({ ok: false });
  });
});

describe('defaults and behaviour by version', () => {
  it('--gpu-memory-utilization defaults to 0.9, and to 0.92 from April 2026; a given value stays', () => {
    expect(
      parse([], '0.11.0').ok &&
        (parse([], '0.11.0') as { data: { gpuMemoryUtilization: number } }).data.gpuMemoryUtilization,
    ).toBe(0.9);
    const now = parse([], '0.30.1rc1.dev452+g73a583112');
    expect(now.ok && now.data.gpuMemoryUtilization).toBe(0.92);
    const given = parse(['--gpu-memory-utilization', '0.5'], '0.30.1');
    expect(given.ok && given.data.gpuMemoryUtilization).toBe(0.5);
  });

  it('--max-model-len reads k as 1,000 and K as 1,024', () => {
    const k = parse(['--max-model-len', '32k'], '0.21.0');
    const K = parse(['--max-model-len', '32K'], '0.21.0');
    expect([k.ok && k.data.maxModelLen, K.ok && K.data.maxModelLen]).toEqual([32000, 32768]);
  });

  it('version line, reasoning field and guarded paths', () => {
    expect(vllmTraits('0.11.0')).toMatchObject({
      versionLine: 'api-server',
      reasoningFields: ['reasoning_content'],
      guardedPrefixes: ['/v1'],
      statsPreemptions: false,
    });
    expect(vllmTraits('0.30.1rc1.dev452+g73a583112')).toMatchObject({
      versionLine: 'logo',
      reasoningFields: ['reasoning'],
      guardedPrefixes: ['/v1', '/v2', '/inference'],
      statsPreemptions: true,
    });
  });
});

describe('the simulator process, by the version its profile claims', () => {
  // eslint-disable-next-line no-control-regex -- ANSI colour codes are control characters
  const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

  it("starts with a real vLLM 0.32 launch line on the consumer profile (int4_per_token_head: a newer release's value, warned about)", async ({
    launchSim,
  }) => {
    const h = await launchSim({
      profile: 'consumer-12gb-4b-int4',
      args: CONSUMER_CARD_ARGS,
    });
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    const log = plain(h.logs());
    expect(log).toMatch(/WARNING .*--kv-cache-dtype int4_per_token_head is not a choice of vLLM 0\.11\.0/);
    expect(parseLog(log.split('\n')).version).toBe('0.11.0');
    expect(await (await fetch(`${h.url}/metrics`)).text()).toMatch(/cache_dtype="int4_per_token_head"/);
  });

  it('a 0.11 profile: "vLLM API server version", reasoning_content, and the key guards /v1 only', async ({
    launchSim,
  }) => {
    const h = await launchSim({ profile: 'firehose', apiKey: 'k', args: ['--max-model-len', '4096'] });
    expect(plain(h.logs())).toMatch(/\[api_server\.py:\d+\] vLLM API server version 0\.11\.0\n/);
    const r = await getJson(`${h.url}/v1/chat/completions`);
    expect(r.status).toBe(401);
    expect((await fetch(`${h.url}/v2/models`)).status).toBe(404);
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(chatBody('Hello', { max_completion_tokens: 3, stream: false, stream_options: undefined })),
    });
    const msg = (await res.json()).choices[0].message;
    expect(Object.keys(msg)).toEqual(['role', 'content', 'reasoning_content', 'tool_calls']);
  });

  it('a 2026 profile: the logo, the reasoning field alone, and the key guards /v1, /v2 and /inference', async ({
    launchSim,
  }) => {
    const h = await launchSim({ apiKey: 'k', args: ['--max-model-len', '4096'] });
    expect(parseLog(plain(h.logs()).split('\n'))).toMatchObject({ version: '0.30.1rc1.dev452+g73a583112' });
    for (const p of ['/v1/models', '/v2/models', '/inference/v1/generate'])
      expect((await fetch(`${h.url}${p}`)).status, p).toBe(401);
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(chatBody('Hello', { max_completion_tokens: 3, stream: false, stream_options: undefined })),
    });
    expect(Object.keys((await res.json()).choices[0].message)).toEqual(['role', 'content', 'reasoning', 'tool_calls']);
  });

  it('--sim-reasoning-tokens N: the first N tokens stream in the reasoning field, the rest as content', async ({
    launchSim,
  }) => {
    const h = await launchSim({ profile: 'firehose', args: ['--sim-reasoning-tokens', '40'] });
    const r = await post(`${h.url}/v1/chat/completions`, chatBody('think', { max_tokens: 100, ignore_eos: true }));
    const chunks = r.events.flatMap((e) => (e.json?.choices?.length ? [e.json] : []));
    const tokensAt = (kind: 'reasoning_content' | 'content') =>
      chunks.filter((j) => j.choices[0].delta[kind]).map((j) => j.usage.completion_tokens);
    // Continuous usage counts tokens: reasoning up to token 40, content after it to 100; no chunk carries both.
    expect(Math.max(...tokensAt('reasoning_content'))).toBe(40);
    expect(Math.min(...tokensAt('content'))).toBeGreaterThan(40);
    expect(Math.max(...tokensAt('content'))).toBe(100);
    expect(chunks.some((j) => j.choices[0].delta.reasoning_content && j.choices[0].delta.content)).toBe(false);
    const whole = await (
      await fetch(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          chatBody('think', { max_tokens: 100, ignore_eos: true, stream: false, stream_options: undefined }),
        ),
      })
    ).json();
    const msg = whole.choices[0].message;
    expect(msg.reasoning_content.length).toBeGreaterThan(40);
    expect(msg.content.length).toBeGreaterThan(60);
  });

  it('under KV pressure the periodic stats line carries "Preemptions: N", and KV usage is still read from it', async ({
    launchSim,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-preempt-'));
    try {
      // The 2026 profile on a card whose KV cache holds 256 blocks of 16 tokens.
      const p = structuredClone(BUILTIN_PROFILES['rtx-pro-6000-fara-4b-bf16']);
      p.name = 'tiny-kv';
      p.gpu = { name: 'Tiny test card', memoryGiB: 12, freeGiB: 12 };
      p.memory = { peakActivationGiB: 10.8 - 9 - 0.125 - 1e-9, nonTorchGiB: 0, cudaGraphGiB: 0 };
      writeFileSync(join(dir, 'tiny.json'), JSON.stringify(p));
      const h = await launchSim({
        speed: 1,
        profile: join(dir, 'tiny.json'),
        args: ['--max-model-len', '4096', '--gpu-memory-utilization', '0.9'],
      });
      // Four requests that each want most of the pool keep preempting one another until the sim stops.
      for (const i of [0, 1, 2, 3])
        post(`${h.url}/v1/chat/completions`, chatBody(filler(1200, i), { max_tokens: 2800, ignore_eos: true })).catch(
          () => undefined,
        );
      const deadline = Date.now() + 15_000;
      let stats: ReturnType<typeof parseLogLine> = [];
      while (Date.now() < deadline && stats.length === 0) {
        await new Promise((r) => setTimeout(r, 250));
        stats = plain(h.logs())
          .split('\n')
          .filter((l) => l.includes('Preemptions:'))
          .flatMap(parseLogLine);
      }
      expect(stats[0]).toMatchObject({ kind: 'stats' });
      const s = (stats[0] as { stats: { preemptions: number; kvCacheUsage: number; prefixCacheHitRate: number } })
        .stats;
      expect(s.preemptions).toBeGreaterThan(0);
      expect(s.kvCacheUsage).toBeGreaterThan(0.5);
      expect(s.prefixCacheHitRate).not.toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
