/** The simulator's pure parts: KV plan, calibration of profile (a) against a real run's figures, tokenizer, args. */
import { describe, expect, it } from 'vitest';
import { applyProfileVersion, parseServeArgs } from '../../../src-main/engine/sim/args';
import { parseMaxModelLenArg as parseMaxModelLen } from '../../../src-main/engine/server/human-int';
import { BlockPool, blockHashes } from '../../../src-main/engine/sim/blocks';
import { promFloat } from '../../../src-main/engine/sim/metrics';
import { kvBytesPerToken, planKv } from '../../../src-main/engine/sim/kv-budget';
import { kvReadSeconds, predict, prefillSeconds } from '../../../src-main/engine/sim/model';
import { BUILTIN_PROFILES, checkProfile, loadProfile } from '../../../src-main/engine/sim/profile';
import { countTokens, decode, encode, encodeChat, pieces } from '../../../src-main/engine/sim/tokenizer';
import { faraRtxPro6000, validCell } from '../../helpers/calibration';

const fara = BUILTIN_PROFILES['rtx-pro-6000-fara-4b-bf16'];

describe('profile (a) rtx-pro-6000-fara-4b-bf16 against the real run it is calibrated on', () => {
  const ref = faraRtxPro6000();
  const CONTEXTS = ref.contexts;
  const r = planKv(fara, { ...ref.server, kvCacheDtype: 'auto', blockSize: 16 });
  if (!r.ok) throw new Error(r.error.lines.join('\n'));
  const budget = r.plan.kvCacheTokens;

  it('decode-cell TTFT of cached prompts grows with concurrency like the report (within 30 %)', () => {
    // The run's TTFT (ms) of sustained-decode cells: serial frontend work queues on one API-server loop.
    for (const key of ['8Kx1', '8Kx32', '8Kx128', '64Kx8', '128Kx16']) {
      const [ctx, c] = key.split('x');
      const context = CONTEXTS[ctx];
      const ms = validCell(ref, key).ttftMs;
      const got = predict(fara, context, Number(c)).concurrentCachedTtftSeconds * 1000;
      expect(got, `${context} x ${c}`).toBeGreaterThan(ms * 0.7);
      expect(got, `${context} x ${c}`).toBeLessThan(ms * 1.3);
    }
  });

  it('has the whole matrix of the run: 6 contexts × 8 concurrency levels', () => {
    expect(Object.keys(ref.decode)).toHaveLength(48);
    expect(ref.prefill['8K'].tokensPerSecond).toBe(34600);
  });

  it('over-capacity cells are exactly the run’s at --max-model-len 262144 --gpu-memory-utilization 0.83', () => {
    const mine: string[] = [];
    const theirs: string[] = [];
    for (const [ctx, n] of Object.entries(CONTEXTS)) {
      for (const c of [1, 2, 4, 8, 16, 32, 64, 128]) {
        if (!predict(fara, n, c, { kvBudgetTokens: budget }).fits) mine.push(`${ctx}x${c}`);
        if (ref.decode[`${ctx}x${c}`]?.status === 'over-capacity') theirs.push(`${ctx}x${c}`);
      }
    }
    expect(theirs.length).toBeGreaterThan(10);
    expect(mine).toEqual(theirs);
    expect(budget % 16).toBe(0);
    expect(r.plan.numGpuBlocks * 16).toBe(budget);
  });

  it.each(['8K', '64K', '128K'])('prefill tok/s at %s within 15 percent', (ctx) => {
    const p = predict(fara, CONTEXTS[ctx], 1, { kvBudgetTokens: budget });
    const want = ref.prefill[ctx].tokensPerSecond;
    expect(Math.abs(p.prefillTokPerSec - want) / want).toBeLessThan(0.15);
  });

  it.each([
    ['8K', 1],
    ['8K', 64],
    ['64K', 8],
    ['128K', 16],
  ] as const)('decode total tok/s at (%s, %i) within 15 percent', (ctx, c) => {
    const p = predict(fara, CONTEXTS[ctx], c, { kvBudgetTokens: budget });
    const want = validCell(ref, `${ctx}x${c}`).total;
    expect(Math.abs(p.decodeTotalTokPerSec - want) / want).toBeLessThan(0.15);
  });

  it.each(['8K', '16K', '64K', '128K', '251K'])(
    'TTFT of a cached prompt alone at %s (decode cell, C=1) within 25 percent of the run',
    (ctx) => {
      const want = validCell(ref, `${ctx}x1`).ttftMs / 1000;
      const got = predict(fara, CONTEXTS[ctx], 1, { kvBudgetTokens: budget }).cachedTtftSeconds;
      expect(Math.abs(got - want) / want).toBeLessThan(0.25);
    },
  );

  it('every valid decode cell of the run is within 20% (the model is not only fitted to four points)', () => {
    for (const [key, cell] of Object.entries(ref.decode)) {
      if (cell.status !== 'valid') continue;
      const [ctx, c] = key.split('x');
      const p = predict(fara, CONTEXTS[ctx], Number(c), { kvBudgetTokens: budget });
      expect(Math.abs(p.decodeTotalTokPerSec - cell.total) / cell.total, key).toBeLessThan(0.2);
    }
  });
});

describe('profile (b) consumer-12gb-4b-int4 matches the figures its profile documents', () => {
  const p = BUILTIN_PROFILES['consumer-12gb-4b-int4'];
  // The real run's flags: --gpu-memory-utilization 0.94 --kv-cache-dtype int4_per_token_head.
  const INT4 = 'int4_per_token_head';
  const r = planKv(p, { maxModelLen: 'auto', gpuMemoryUtilization: 0.94, kvCacheDtype: INT4, blockSize: 16 });
  if (!r.ok) throw new Error(r.error.lines.join('\n'));
  const budget = r.plan.kvCacheTokens;
  const near = (v: number, want: number, tol = 0.1) => expect(Math.abs(v - want) / want).toBeLessThan(tol);
  it('prefill ~2,350 tok/s at 8K and ~600 at 128K', () => {
    near(predict(p, 8192, 1).prefillTokPerSec, 2350);
    near(predict(p, 131072, 1).prefillTokPerSec, 600);
  });
  // A 30 s window on this card holds about 500 generated tokens per request (maxOutput 1,000: 500 on average).
  const held = { kvBudgetTokens: budget, maxOutput: 1000, kvCacheDtype: INT4 };
  it('decode like the real card: 83-84 tok/s alone, ~1,270 at 64 with short prompts, 71 at 16K and 48 at 64K alone', () => {
    near(predict(p, 100, 1, held).decodeTotalTokPerSec, 84, 0.015);
    near(predict(p, 100, 64, held).decodeTotalTokPerSec, 1270);
    near(predict(p, 16384, 1, held).decodeTotalTokPerSec, 71.3, 0.015);
    near(predict(p, 65536, 1, held).decodeTotalTokPerSec, 48.6, 0.015);
  });
  it('at 16K x 16 every step reads 16 long KV caches: ~354 tok/s like the real card', () => {
    near(predict(p, 16384, 16, held).decodeTotalTokPerSec, 354, 0.05);
  });
  it('throughput at 64K flattens as concurrency rises, while short prompts still scale', () => {
    const total = (context: number, c: number) => predict(p, context, c, held).decodeTotalTokPerSec;
    const gains = [1, 2, 4].map((c) => total(65536, 2 * c) / total(65536, c));
    expect(gains[1]).toBeLessThan(gains[0]);
    expect(gains[2]).toBeLessThan(gains[1]);
    expect(gains[2]).toBeLessThan(1.25);
    expect(total(65536, 8)).toBeLessThan(3 * total(65536, 1));
    expect(total(100, 8) / total(100, 4)).toBeGreaterThan(1.6);
  });
  it('a decode cell’s TTFT after its scout like the real card: 85 ms with a short prompt, 1.3 to 1.5 s from 16K to 64K', () => {
    near(predict(p, 60, 1, held).cachedTtftSeconds, 0.085, 0.05);
    near(predict(p, 16384, 1, held).cachedTtftSeconds, 1.3, 0.02);
    near(predict(p, 65536, 1, held).cachedTtftSeconds, 1.5, 0.02);
    // A cold prompt still takes the prefill curve's time: the cached-prompt cost is part of it, not added to it.
    near(predict(p, 16384, 1, held).prefillTokPerSec, 2084, 0.02);
  });
  it('a KV cache of twice the bytes per token (fp8) makes long-context decode slower', () => {
    const fp8 = predict(p, 65536, 4, { ...held, kvCacheDtype: 'fp8' }).decodeTotalTokPerSec;
    expect(fp8).toBeLessThan(0.8 * predict(p, 65536, 4, held).decodeTotalTokPerSec);
  });
  it('the KV read stays below the card’s memory bandwidth', () => {
    const bytes = kvBytesPerToken(p, INT4);
    const bytesPerStep = 8 * (65536 + 500) * bytes;
    expect(bytesPerStep / kvReadSeconds(p, 8, 8 * (65536 + 500), bytes)).toBeLessThan(
      p.gpu.memoryBandwidthBytesPerSecond!,
    );
  });
  it('5 requests fit at 128K, 6 do not', () => {
    expect(predict(p, 131072, 5, { kvBudgetTokens: budget }).fits).toBe(true);
    expect(predict(p, 131072, 6, { kvBudgetTokens: budget }).fits).toBe(false);
  });
  it('fp8 KV holds about half as many tokens as int4 per token head (its scales take 4 B per 128)', () => {
    const fp8 = planKv(p, { maxModelLen: 'auto', gpuMemoryUtilization: 0.94, kvCacheDtype: 'fp8', blockSize: 16 });
    expect(fp8.ok && fp8.plan.kvCacheTokens / budget).toBeCloseTo(8448 / 16384, 4);
  });
});

describe('planKv errors in vLLM’s words', () => {
  it('max model len above the derived one', () => {
    const r = planKv(BUILTIN_PROFILES['h200-8b-bf16'], {
      maxModelLen: 262144,
      gpuMemoryUtilization: 0.9,
      kvCacheDtype: 'auto',
      blockSize: 16,
    });
    expect(!r.ok && r.error.lines[0]).toMatch(
      /User-specified max_model_len \(262144\) is greater than the derived max_model_len/,
    );
  });
  it('utilization above free memory', () => {
    const r = planKv(fara, { maxModelLen: 8192, gpuMemoryUtilization: 0.995, kvCacheDtype: 'auto', blockSize: 16 });
    expect(!r.ok && r.error.lines[0]).toMatch(
      /^ValueError: Free memory on device \(94\.50\/95\.59 GiB\) on startup is less than desired GPU memory utilization \(0\.995, /,
    );
  });
  it('one request at max model len does not fit', () => {
    const r = planKv(fara, { maxModelLen: 262144, gpuMemoryUtilization: 0.15, kvCacheDtype: 'auto', blockSize: 16 });
    expect(!r.ok && r.error.lines[0]).toMatch(
      /To serve at least one request with the models's max seq len \(262144\).*estimated maximum model length is \d+/,
    );
  });
  it('-tp N adds up the memory of N cards', () => {
    const one = planKv(fara, { maxModelLen: 262144, gpuMemoryUtilization: 0.83, kvCacheDtype: 'auto', blockSize: 16 });
    const two = planKv(fara, {
      maxModelLen: 262144,
      gpuMemoryUtilization: 0.83,
      kvCacheDtype: 'auto',
      blockSize: 16,
      tensorParallelSize: 2,
    });
    expect(one.ok && two.ok && two.plan.kvCacheTokens > 2 * one.plan.kvCacheTokens).toBe(true);
  });
  it('no memory left for the cache', () => {
    const r = planKv(fara, { maxModelLen: 8192, gpuMemoryUtilization: 0.12, kvCacheDtype: 'auto', blockSize: 16 });
    expect(!r.ok && r.error.lines[0]).toMatch(/No available memory for the cache blocks|CUDA out of memory/);
  });
});

describe('prefill curve', () => {
  it('is additive over chunks and grows with context', () => {
    const whole = prefillSeconds(fara, 0, 65536);
    let sum = 0;
    for (let p = 0; p < 65536; p += 8192) sum += prefillSeconds(fara, p, p + 8192);
    expect(sum).toBeCloseTo(whole, 9);
    expect(prefillSeconds(fara, 131072, 139264)).toBeGreaterThan(prefillSeconds(fara, 0, 8192));
  });
});

describe('tokenizer', () => {
  it('is deterministic, documented and reversible', () => {
    const text = 'Hello, world! A longer word: extraordinary. 42 ünïcode 🙂\n';
    expect(pieces(' hello')).toEqual([' hel', 'lo']);
    expect(decode(encode(text))).toBe(text);
    expect(countTokens(text)).toBe(encode(text).length);
    expect(encode(text)).toEqual(encode(text));
  });
  it('the fast encoder gives one id per documented piece', () => {
    const text = 'Hi  a ab abcdefghi, x\t9z é 🙂 ok \ud800y Zz';
    const ids = encode(text);
    expect(ids).toHaveLength(pieces(text).length);
    expect(decode(ids)).toBe(text);
    expect(pieces(text).map((p) => decode(encode(p)))).toEqual(pieces(text));
  });
  it('handles prompts of hundreds of thousands of tokens', () => {
    const content = ' abc'.repeat(300_000);
    expect(encodeChat([{ role: 'user', content }])).toHaveLength(300_010);
  });
  it('chat template adds a fixed overhead per message', () => {
    const one = encodeChat([{ role: 'user', content: 'abc' }]).length - encode('abc').length;
    const two =
      encodeChat([
        { role: 'user', content: 'abc' },
        { role: 'user', content: 'abc' },
      ]).length -
      2 * encode('abc').length;
    expect(one).toBe(10);
    expect(two - one).toBe(5);
  });
});

describe('serve argv', () => {
  it('accepts vLLM spellings and warns on unknown flags', () => {
    const r = parseServeArgs(
      [
        'org/model',
        '--max-model-len',
        '256K',
        '-tp',
        '2',
        '--weird',
        'x',
        '--flag=1',
        '--served-model-name',
        'a',
        'b',
        '--api-key',
        'k',
      ],
      {},
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data.model).toBe('org/model');
    expect(r.data.maxModelLen).toBe(262144);
    expect(r.data.tensorParallelSize).toBe(2);
    expect(r.data.servedModelNames).toEqual(['a', 'b']);
    expect(r.data.apiKeys).toEqual(['k']);
    expect(r.data.warnings).toHaveLength(2);
    expect(JSON.stringify(r.data.nonDefault)).not.toContain('"k"');
  });
  it('max model len forms', () => {
    expect(parseMaxModelLen('32768')).toBe(32768);
    expect(parseMaxModelLen('32K')).toBe(32768);
    expect(parseMaxModelLen('32k')).toBe(32000);
    expect(parseMaxModelLen('auto')).toBe('auto');
    expect(parseMaxModelLen('-1')).toBe('auto');
    expect(parseMaxModelLen('lots')).toBeUndefined();
  });
  it('bad values read like argparse errors', () => {
    const r = parseServeArgs(['--kv-cache-dtype', 'fp3'], {});
    const v = r.ok ? applyProfileVersion(r.data, '0.11.0') : r;
    expect(!v.ok && v.error).toMatch(/argument --kv-cache-dtype: invalid choice: 'fp3'/);
    const s = parseServeArgs(['--sim-speed', '0'], {});
    expect(s.ok).toBe(false);
  });
  it('takes the key from VLLM_API_KEY', () => {
    const r = parseServeArgs([], { VLLM_API_KEY: 'env-key' });
    expect(r.ok && r.data.apiKeys).toEqual(['env-key']);
  });
});

describe('profiles', () => {
  it('a cached-prompt TTFT curve out of order is refused with the field named', () => {
    const bad = {
      ...structuredClone(fara),
      cachedPrompt: {
        ttft: [
          [16384, 1.3],
          [0, 0.085],
        ],
      },
    };
    expect(checkProfile(bad, 'x.json')).toEqual({
      ok: false,
      error: expect.stringMatching(/field cachedPrompt\.ttft must be sorted/),
    });
    const noBandwidth = structuredClone(BUILTIN_PROFILES['consumer-12gb-4b-int4']);
    delete noBandwidth.gpu.memoryBandwidthBytesPerSecond;
    expect(checkProfile(noBandwidth, 'y.json')).toEqual({
      ok: false,
      error: expect.stringMatching(/field gpu\.memoryBandwidthBytesPerSecond/),
    });
  });
  it('every built-in profile passes the checks and a bad file gets a clear error', () => {
    for (const p of Object.values(BUILTIN_PROFILES)) expect(checkProfile(p, p.name).ok).toBe(true);
    expect(checkProfile({ name: 'x' }, 'x.json')).toEqual({
      ok: false,
      error: expect.stringMatching(/field gpu\.memoryGiB/),
    });
    expect(loadProfile('no-such-profile')).toEqual({
      ok: false,
      error: expect.stringMatching(/unknown simulator profile/),
    });
  });
});

describe('metrics and blocks', () => {
  it('prints numbers like Python prometheus_client', () => {
    expect(promFloat(0)).toBe('0.0');
    expect(promFloat(12)).toBe('12.0');
    expect(promFloat(1048576)).toBe('1.048576e+06');
    expect(promFloat(0.25)).toBe('0.25');
    expect(promFloat(Infinity)).toBe('+Inf');
  });
  it('prefix blocks are shared and evicted only when needed', () => {
    const pool = new BlockPool(4, 16, true);
    const ids = Array.from({ length: 40 }, (_, i) => i);
    const hashes = blockHashes(ids, 16);
    expect(hashes).toHaveLength(2);
    const a = { plainBlocks: 0, cachedBlocks: [] as never[] };
    expect(pool.allocate(a, 3)).toBe(true);
    expect(pool.promote(a, hashes[0]) && pool.promote(a, hashes[1])).toBe(true);
    pool.release(a);
    expect(pool.free).toBe(4);
    expect(pool.lookup(hashes, 2)).toHaveLength(2);
    const b = { plainBlocks: 0, cachedBlocks: [] as never[] };
    expect(pool.allocate(b, 4)).toBe(true); // evicts both cached blocks
    expect(pool.lookup(hashes, 2)).toHaveLength(0);
    expect(pool.allocate(b, 1)).toBe(false);
  });
});
