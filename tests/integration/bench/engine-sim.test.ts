/**
 * The benchmark engine end to end against the real simulator process, at sim speed: figures
 * checked against the simulator's ground truth (/sim/requests), exact prompt sizes, the KV
 * budget's Over capacity cells and Requests queued.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { createHttp } from '../../../src-main/engine/bench/http';
import { countTokens, exactPrompt, promptTag, tolerance } from '../../../src-main/engine/bench/prompts';
import type { BenchEvent } from '../../../src-main/engine/bench/types';
import type { DecodeCell } from '#shared/session/schema';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { simTest } from '../../helpers/fixtures';
import { cellsOf, emittedBetween, median, runBench, simRequests, targetOf, tempDir } from './bench-helpers';

const SPEED = 20;
/** Ground-truth comparisons run slower: at 20x, event-loop delays on a loaded machine move tokens across window edges. */
const TRUTH_SPEED = 5;
const K = 1024;
/**
 * Simulated seconds per window: 8 s of wall time at speed 5. Under the full suite a 2-core
 * machine has stalled the event loop about 120 ms at a window's edge (2.9% of a 4 s window);
 * against 8 s that stays inside the 2% the token count is held to.
 */
const WINDOW_SECONDS = 40;

/** The median over a cell's window requests of each one's own rate: (tokens - 1) / (last - first token). */
function medianOwnRate(cell: DecodeCell): number {
  const r = cell.requests!;
  const rates = r.sentAt.flatMap((sentAt, i) => {
    const [first, last, tokens] = [r.firstTokenAt[i], r.lastTokenAt[i], r.outputTokens[i]];
    const inWindow = sentAt <= cell.windowSeconds! && last !== null && last >= 0;
    return inWindow && first !== null && last > first && tokens >= 2 ? [(tokens - 1) / (last - first)] : [];
  });
  return median(rates);
}

// The file's simulator is the ground truth of the first block; the others start their own for one test.
const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  {
    speed: TRUTH_SPEED,
    debug: true,
    args: ['--max-model-len', '262144', '--gpu-memory-utilization', '0.83', '--served-model-name', 'fara'],
  },
);

describe('sustained decode against the simulator (profile a, speed 5)', () => {
  let result: Awaited<ReturnType<typeof runBench>>;
  it.beforeAll(async ({ sim }) => {
    const target = await targetOf(sim.url);
    result = await runBench(
      target,
      {
        contexts: [0, 8 * K],
        concurrency: [1, 4],
        prefillContexts: [8 * K],
        secondsPerMeasurement: WINDOW_SECONDS,
        simSpeed: TRUTH_SPEED,
        warmup: false,
      },
      join(tempDir(), 'small.speedmatrix.json'),
    );
  }, 120_000);

  it('measures every cell Valid and saves the session (no journal left behind)', async () => {
    const { session, file } = result;
    expect(session.cells.map((c) => `${c.context}x${c.concurrency}:${c.status}`)).toEqual([
      '0x1:valid',
      '0x4:valid',
      '8192x1:valid',
      '8192x4:valid',
    ]);
    const saved = await readSessionFile(file);
    expect(saved.ok).toBe(true);
    if (saved.ok) expect(saved.data.cells.length).toBe(4);
    expect(() => readFileSync(`${file}.journal`)).toThrow();
    expect(session.checksUnavailable).toEqual([]);
    // Times are in simulated seconds, and the session says so.
    expect(session.events.some((e) => /sim-speed 5:/.test(e.message))).toBe(true);
  });

  // At 5x, event-loop delay on a busy machine still moves up to ~1% of a window's tokens across
  // its edges; bench:client checks the 0.5% goal at speed 1.
  it('counts window tokens as the simulator emitted them (within 2% + one token per stream)', async ({ sim }) => {
    const reqs = await simRequests(sim.url);
    const done = result.events.filter((e): e is Extract<BenchEvent, { type: 'cell-done' }> => e.type === 'cell-done');
    expect(done.length).toBe(4);
    for (const e of done) {
      const w = e.window!;
      const truth = emittedBetween(reqs, w.startMs, w.endMs);
      const mine = e.cell.outputTokens!;
      expect(Math.abs(mine - truth)).toBeLessThanOrEqual(truth * 0.02 + e.cell.concurrency);
      // Window length and total tok/s in simulated seconds.
      expect(e.cell.windowSeconds).toBeCloseTo(WINDOW_SECONDS, 0);
      expect(e.cell.totalTokensPerSecond).toBeCloseTo(mine / e.cell.windowSeconds!, 6);
      expect(e.cell.fairShareTokensPerSecond).toBeCloseTo(e.cell.totalTokensPerSecond! / e.cell.concurrency, 6);
      // Per request: the median over the window's requests of each one's own rate, from the cell's
      // own request records (server seconds from the window start).
      expect(e.cell.perRequestTokensPerSecond! / medianOwnRate(e.cell)).toBeCloseTo(1, 2);
      // The server ran every request the client kept in flight, but for turnover: a request that ends in the
      // window is replaced, and a scrape between the two (about one step) reads one fewer running.
      expect(e.cell.avgActiveRequests).toBeLessThanOrEqual(e.cell.concurrency);
      expect(e.cell.avgActiveRequests).toBeGreaterThan(e.cell.concurrency * 0.95);
      expect(e.cell.maxWaitingSeen).toBe(0);
      expect(e.cell.queueEvidence).toMatchObject({ longestWaitingRun: 0, avgRunning: e.cell.avgActiveRequests });
      expect(e.cell.failedRequests).toBe(0);
    }
  });

  it('measures time between tokens as the simulator emitted them', async ({ sim }) => {
    const reqs = await simRequests(sim.url);
    const cell = cellsOf(result.session)['8192x4'];
    // Ground truth per request of this cell: its emissions, in simulated seconds.
    const start = Date.parse(cell.startedAt!);
    const end = Date.parse(cell.finishedAt!);
    const truth = reqs
      .filter((r) => r.max_tokens === 4096 && r.arrival_ms >= start && r.arrival_ms <= end && r.emissions.length > 2)
      .map((r) => {
        const first = r.emissions[0][0];
        const last = r.emissions[r.emissions.length - 1][0];
        const n = r.emissions.reduce((a, [, k]) => a + k, 0);
        return (((last - first) / 1000) * TRUTH_SPEED) / (n - 1);
      });
    expect(truth.length).toBeGreaterThanOrEqual(4);
    const mine = cell.timeBetweenTokens!.p50;
    expect(Math.abs(mine - median(truth)) / median(truth)).toBeLessThan(0.03);
    // Per-request timings are kept, columnar.
    const rq = cell.requests!;
    expect(rq.sentAt.length).toBe(truth.length);
    expect(rq.windowTokens.reduce((a, b) => a + b, 0)).toBe(cell.outputTokens);
  });

  it('sizes prompts within max(64 tokens, 0.5%) below the target and records real prompt tokens', async ({ sim }) => {
    const c = cellsOf(result.session)['8192x1'];
    expect(c.promptTokens).not.toBeNull();
    expect(c.promptTokens!).toBeLessThanOrEqual(8 * K);
    expect(c.promptTokens!).toBeGreaterThanOrEqual(8 * K - tolerance(8 * K));
    const p = result.session.prefill.find((x) => x.context === 8 * K)!;
    expect(p.status).toBe('valid');
    // The prefill records the real tokens of the measurement it kept: the context's sized prompt, or, when the
    // client's delay had it taken again, a fresh prompt sized to the same target (a few tokens apart), whose own
    // count is the figure's numerator (docs/method.md, "Prefill").
    if (!p.clientDelay?.retakes) expect(p.promptTokens).toBe(c.promptTokens);
    const cold = (await simRequests(sim.url)).filter((q) => q.max_tokens === 1 && q.cached_prompt_tokens <= 16);
    expect(cold.map((q) => q.prompt_tokens)).toContain(p.promptTokens);
    expect(p.promptTokens!).toBeLessThanOrEqual(8 * K);
    expect(p.promptTokens!).toBeGreaterThanOrEqual(8 * K - tolerance(8 * K));
    expect(p.tokensPerSecond).toBeCloseTo(p.promptTokens! / p.ttftSeconds!, 6);
    // Context 0: a short prompt with no filler.
    expect(cellsOf(result.session)['0x1'].promptTokens!).toBeLessThan(200);
  });
});

describe('prompts of an exact size (POST /tokenize)', () => {
  it('lands within max(64 tokens, 0.5%) at or below every target, tagged by run and context', async ({ launchSim }) => {
    const sim = await launchSim({
      args: ['--max-model-len', '262144', '--gpu-memory-utilization', '0.83', '--served-model-name', 'fara'],
    });
    const http = createHttp(await targetOf(sim.url));
    try {
      for (const target of [1000, 20_000, 100_000, 250_000]) {
        const p = await exactPrompt(http, promptTag('abc123', `CTX ${target}`), target);
        const counted = await countTokens(http, p.messages);
        expect(counted).toBe(p.tokens);
        expect(p.tokens).toBeLessThanOrEqual(target);
        expect(p.tokens).toBeGreaterThanOrEqual(target - tolerance(target));
        expect(p.messages[0].content.startsWith(`[RUN abc123 CTX ${target}]`)).toBe(true);
        expect(p.messages.at(-1)?.content).toMatch(/very long, original article/);
      }
    } finally {
      await http.agent.close();
    }
  }, 60_000);
});

describe('queueing and over capacity', () => {
  it('gives Requests queued when --max-num-seqs is below C, and Over capacity from the KV budget', async ({
    launchSim,
  }) => {
    const sim = await launchSim({
      speed: SPEED,
      args: [
        '--max-num-seqs',
        '2',
        '--max-model-len',
        '32768',
        '--gpu-memory-utilization',
        '0.2',
        '--served-model-name',
        'fara',
      ],
    });
    const target = await targetOf(sim.url);
    expect(target.kvBudget.tokens).not.toBeNull();
    const budget = target.kvBudget.tokens!;
    // Choose a context so that C=4 fits the budget and C=64 does not.
    const ctx = 2 * K;
    expect(4 * (ctx + 4096)).toBeLessThanOrEqual(budget);
    const r = await runBench(
      target,
      {
        contexts: [ctx],
        concurrency: [1, 4, 64],
        prefillContexts: [],
        secondsPerMeasurement: 6,
        simSpeed: SPEED,
        warmup: false,
      },
      join(tempDir(), 'q.speedmatrix.json'),
    );
    const cells = cellsOf(r.session);
    expect(cells[`${ctx}x1`].status).toBe('valid');
    expect(cells[`${ctx}x4`].status).toBe('queued');
    expect(cells[`${ctx}x4`].maxWaitingSeen).toBeGreaterThan(0);
    expect(cells[`${ctx}x4`].queueEvidence!.longestWaitingRun).toBeGreaterThanOrEqual(2);
    expect(cells[`${ctx}x4`].avgActiveRequests).toBeLessThanOrEqual(2);
    expect(cells[`${ctx}x4`].totalTokensPerSecond).toBeGreaterThan(0); // the figure is kept
    expect(64 * (ctx + 4096)).toBeGreaterThan(budget);
    expect(cells[`${ctx}x64`].status).toBe('over-capacity');
    expect(cells[`${ctx}x64`].requests).toBeNull(); // never run
    expect(cells[`${ctx}x64`].reason).toContain(budget.toLocaleString('en-US'));
  }, 120_000);
});
