/**
 * A slow card's long prefill: on the 12 GB consumer profile a 256K scout takes about 13 simulated minutes, far over
 * the old fixed 360 s. Its deadline is scaled from the smaller prefills of the same run, so it is measured.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { BenchEvent } from '../../../src-main/engine/bench/types';
import { predict } from '../../../src-main/engine/sim/model';
import { BUILTIN_PROFILES } from '../../../src-main/engine/sim/profile';
import type { ServerTarget } from '../../../src-main/engine/server/target';
import { simTest } from '../../helpers/fixtures';
import { runBench, targetOf, tempDir } from './bench-helpers';
import { CONSUMER_CARD_ARGS } from '../../helpers/sim';

const K = 1024;
// Slow enough that the client's timing jitter is small against the prefills the estimate is fitted to.
const SPEED = 20;

const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  {
    profile: 'consumer-12gb-4b-int4',
    speed: SPEED,
    args: CONSUMER_CARD_ARGS,
  },
);

describe('patient prefill on a slow card', () => {
  let target: ServerTarget;
  it.beforeAll(async ({ sim }) => {
    target = await targetOf(sim.url);
  }, 60_000);

  it('the 256K scout gets a deadline from the 32K and 128K prefills and is measured, with its expected time shown', async () => {
    const r = await runBench(
      target,
      // One small decode cell (no contexts would mean the default matrix): the points below 256K are the 32K and 128K prefills.
      { contexts: [8 * K], concurrency: [1], prefillContexts: [32 * K, 128 * K, 256 * K], simSpeed: SPEED },
      join(tempDir(), 'slow.speedmatrix.json'),
    );
    const starts = r.events.filter(
      (e): e is Extract<BenchEvent, { type: 'prefill-start' }> => e.type === 'prefill-start',
    );
    const at256 = starts.find((e) => e.context === 256 * K)!;
    const prefill = new Map(r.session.prefill.map((p) => [p.context, p]));
    const p256 = prefill.get(256 * K)!;
    expect([p256.status, p256.reason]).toEqual(['valid', null]);
    const truth = predict(BUILTIN_PROFILES['consumer-12gb-4b-int4'], p256.promptTokens!, 1).ttftSeconds;
    expect(truth).toBeGreaterThan(600);
    expect(Math.abs(p256.ttftSeconds! - truth) / truth).toBeLessThan(0.1);
    expect(at256.deadlineSeconds!).toBeGreaterThan(p256.ttftSeconds!);
    expect(Math.abs(at256.expectedSeconds! - truth) / truth).toBeLessThan(0.3);
  }, 240_000);
});
