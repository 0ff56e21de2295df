/**
 * Profile (a) served as in the real run it is calibrated on (tests/fixtures/calibration/) reproduces its Over capacity cells exactly
 * and, within 15%, its sustained-decode figures at (8K,1), (8K,64), (64K,8) and (128K,16).
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { planRun } from '../../../src-main/engine/bench/plan';
import type { ServerTarget } from '../../../src-main/engine/server/target';
import { faraRtxPro6000 } from '../../helpers/calibration';
import { simTest } from '../../helpers/fixtures';
import { cellsOf, runBench, targetOf, tempDir } from './bench-helpers';

const K = 1024;
// Speed 3, not more: a faster simulated clock has sub-millisecond decode steps at C=1, which a
// loaded 2-core machine cannot keep on time, and the simulator then falls behind its own model.
const SPEED = 3;
const NEEDED: Array<[number, number]> = [
  [8 * K, 1],
  [8 * K, 64],
  [64 * K, 8],
  [128 * K, 16],
];
/** The real run's sustained-decode cells: context in tokens, C, status, total and per-request tok/s. */
function referenceRows(): Array<{ context: number; c: number; status: string; total?: number; perRequest?: number }> {
  const ref = faraRtxPro6000();
  return Object.entries(ref.decode).map(([key, cell]) => {
    const [label, c] = key.split('x');
    return { context: ref.contexts[label], c: Number(c), ...cell };
  });
}

const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  {
    speed: SPEED,
    args: ['--max-model-len', '262144', '--gpu-memory-utilization', '0.83', '--served-model-name', 'fara'],
  },
);

describe('real-run calibration (profile a, --max-model-len 262144 --gpu-memory-utilization 0.83)', () => {
  let target: ServerTarget;
  it.beforeAll(async ({ sim }) => {
    target = await targetOf(sim.url);
  }, 60_000);

  it('plans exactly the real run’s Over capacity cells from the KV budget the server reports', () => {
    const ref = referenceRows();
    expect(ref.length).toBe(48);
    const plan = planRun({}, target);
    expect(plan.config.contexts.slice(1)).toEqual(Object.values(faraRtxPro6000().contexts));
    const planned = new Map(plan.cells.map((c) => [`${c.context}x${c.concurrency}`, c.action]));
    for (const r of ref)
      expect([`${r.context}x${r.c}`, planned.get(`${r.context}x${r.c}`) === 'over-capacity']).toEqual([
        `${r.context}x${r.c}`,
        r.status === 'over-capacity',
      ]);
  });

  it('measures the named cells Valid and within 15% of the real run’s figures', async () => {
    const contexts = [8 * K, 64 * K, 128 * K];
    const concurrency = [1, 8, 16, 64];
    const skip = contexts.flatMap((context) =>
      concurrency
        .filter((c) => !NEEDED.some(([x, y]) => x === context && y === c))
        .map((c) => ({ context, concurrency: c })),
    );
    const r = await runBench(
      target,
      { contexts, concurrency, skip, prefillContexts: [], secondsPerMeasurement: 15, simSpeed: SPEED },
      join(tempDir(), 'ref.speedmatrix.json'),
    );
    const cells = cellsOf(r.session);
    const ref = referenceRows();
    for (const [context, c] of NEEDED) {
      const mine = cells[`${context}x${c}`];
      const theirs = ref.find((x) => x.context === context && x.c === c)!;
      expect([context, c, mine.status, mine.reason]).toEqual([context, c, 'valid', null]);
      const err = Math.abs(mine.totalTokensPerSecond! - theirs.total!) / theirs.total!;
      expect(
        `${context}x${c}: ${mine.totalTokensPerSecond?.toFixed(1)} vs ${theirs.total} tok/s, ${err < 0.15 ? 'within' : 'NOT within'} 15%`,
      ).toMatch(/ within 15%$/);
      // Per request: the median of each request's own rate, as the real run reported it.
      const perErr = Math.abs(mine.perRequestTokensPerSecond! - theirs.perRequest!) / theirs.perRequest!;
      expect(
        `${context}x${c}: ${mine.perRequestTokensPerSecond?.toFixed(1)} vs ${theirs.perRequest} per request, ${perErr < 0.15 ? 'within' : 'NOT within'} 15%`,
      ).toMatch(/ within 15%$/);
      expect(mine.fairShareTokensPerSecond).toBeCloseTo(mine.totalTokensPerSecond! / c, 6);
    }
    expect(r.session.cells.filter((c) => c.status === 'skipped').length).toBe(8);
  }, 150_000);
});
