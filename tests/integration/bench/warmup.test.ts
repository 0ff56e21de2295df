/**
 * The warm-ups, as the simulator saw them: a 64-token decode, an 8K prefill, then a cold scout
 * and a hidden 3 s decode at the largest runnable context, all before the first measured
 * prefill, and none of them sharing a cache entry with a measured prompt.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { simTest as it } from '../../helpers/fixtures';
import { runBench, simRequests, targetOf, tempDir } from './bench-helpers';

const K = 1024;
// Slow enough that a loaded machine's late timers (hundreds of ms) stay well inside the 3 s decode's bounds.
const SPEED = 2;

describe('warm-ups before the first measurement', () => {
  it('short decode, 8K prefill, then the largest runnable context: cold scout and about 3 s of decode at C=1', async ({
    launchSim,
  }) => {
    const sim = await launchSim({
      speed: SPEED,
      debug: true,
      args: ['--max-model-len', '65536', '--served-model-name', 'fara'],
    });
    const target = await targetOf(sim.url);
    const r = await runBench(
      target,
      {
        contexts: [8 * K, 32 * K],
        concurrency: [1],
        prefillContexts: [8 * K, 32 * K],
        secondsPerMeasurement: 5,
        simSpeed: SPEED,
        maxOutputTokens: 1024,
      },
      join(tempDir(), 'w.speedmatrix.json'),
    );
    expect(r.session.cells.map((c) => c.status)).toEqual(['valid', 'valid']);
    const reqs = (await simRequests(sim.url)).sort((a, b) => a.arrival_ms - b.arrival_ms);
    const [shortDecode, prefill8k, scout, decode, firstMeasured] = reqs;
    expect([shortDecode.max_tokens, shortDecode.completion_tokens]).toEqual([64, 64]);
    expect(shortDecode.prompt_tokens).toBeLessThan(200);
    expect(prefill8k.max_tokens).toBe(1);
    expect(prefill8k.prompt_tokens).toBeGreaterThan(8 * K - 64);
    expect(prefill8k.prompt_tokens).toBeLessThanOrEqual(8 * K);
    // The largest runnable context (32K): a cold scout, then a decode that hits the scout's cache.
    expect(scout.max_tokens).toBe(1);
    expect(scout.prompt_tokens).toBeGreaterThan(32 * K - 200);
    expect(scout.cached_prompt_tokens).toBeLessThan(1024);
    expect(decode.max_tokens).toBe(1024);
    expect(decode.prompt_tokens).toBe(scout.prompt_tokens);
    expect(decode.cached_prompt_tokens).toBeGreaterThan(scout.prompt_tokens - 1024);
    const decodeSeconds = ((decode.finished_ms! - decode.first_token_ms!) / 1000) * SPEED;
    expect(decodeSeconds).toBeGreaterThan(2.5);
    expect(decodeSeconds).toBeLessThan(6);
    expect(decode.completion_tokens).toBeLessThan(1024);
    // Then the measured 8K prefill: cold, because the warm-ups used their own tags. A busy machine may have it
    // measured again under fresh tags (the least delayed is kept), so the kept one is any of these, each cold.
    const measured8k = reqs
      .slice(reqs.indexOf(firstMeasured))
      .filter((q) => q.max_tokens === 1 && q.prompt_tokens <= 8 * K);
    expect(measured8k[0]).toBe(firstMeasured);
    expect(measured8k.map((q) => q.prompt_tokens)).toContain(
      r.session.prefill.find((p) => p.context === 8 * K)!.promptTokens,
    );
    for (const q of measured8k) expect(q.cached_prompt_tokens).toBeLessThan(1024);
  }, 120_000);
});
