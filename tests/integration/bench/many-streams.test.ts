/**
 * A client that holds thousands of streams: a decode cell at C = 1,024 (and at the ceiling, 4,096) against a
 * simulator with room for all of them opens every stream, measures, and reads the simulator's truth. The
 * simulator's request log (GET /sim/requests, --sim-debug) is the ground truth: which requests ran through the
 * whole window, and how many tokens it emitted inside it.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { BenchEvent } from '../../../src-main/engine/bench/types';
import type { DecodeCell } from '#shared/session/schema';
import { type LaunchSim, simTest } from '../../helpers/fixtures';
import { ROOMY_PROFILE, ROOMY_STREAM_RATE } from '../../helpers/paths';
import { emittedBetween, median, runBench, simRequests, type SimRequest, targetOf, tempDir } from './bench-helpers';

/** Requests the simulator ran from before the window opened until after it closed: all held at once. */
function heldThroughout(reqs: readonly SimRequest[], w: { startMs: number; endMs: number }): number {
  return reqs.filter(
    (r) => r.first_token_ms !== null && r.first_token_ms <= w.startMs && (r.finished_ms ?? Infinity) >= w.endMs,
  ).length;
}

/** One request's own rate from the simulator's emissions: (tokens - 1) / (last - first emission), per second. */
function ownRateOf(emissions: ReadonlyArray<[number, number]>): number | null {
  if (emissions.length < 2) return null;
  const tokens = emissions.reduce((a, [, k]) => a + k, 0);
  return (tokens - 1) / ((emissions[emissions.length - 1][0] - emissions[0][0]) / 1000);
}

async function measureCell(
  launch: LaunchSim,
  concurrency: number,
): Promise<{ cell: DecodeCell; window: { startMs: number; endMs: number }; reqs: SimRequest[] }> {
  const sim = await launch({
    profile: ROOMY_PROFILE,
    debug: true,
    args: ['--max-num-seqs', '4096', '--disable-uvicorn-access-log', '--disable-log-stats'],
  });
  const result = await runBench(
    await targetOf(sim.url),
    { contexts: [0], concurrency: [concurrency], prefillContexts: [], secondsPerMeasurement: 10, warmup: false },
    join(tempDir(), 'many.speedmatrix.json'),
  );
  const done = result.events.find((e): e is Extract<BenchEvent, { type: 'cell-done' }> => e.type === 'cell-done');
  expect(done?.window, 'the cell measured a window').toBeTruthy();
  return { cell: done!.cell as DecodeCell, window: done!.window!, reqs: await simRequests(sim.url) };
}

describe('a decode cell with thousands of streams against a roomy simulator', () => {
  simTest(
    'C=1024 opens every stream, the simulator runs all 1024 at once through the window, and the figures read its truth',
    async ({ launchSim }) => {
      const { cell, window, reqs } = await measureCell(launchSim, 1024);
      expect(cell.status).toBe('valid');
      expect(heldThroughout(reqs, window)).toBe(1024);
      expect(cell.avgActiveRequests).toBe(1024);
      expect(cell.failedRequests).toBe(0);
      // The client's count against the tokens the simulator emitted inside the same window (a token in transit at
      // either edge moves the count by at most one chunk of 8 per stream; they mostly cancel).
      const truth = emittedBetween(reqs, window.startMs, window.endMs);
      expect(cell.outputTokens! / truth).toBeGreaterThan(0.97);
      expect(cell.outputTokens! / truth).toBeLessThan(1.03);
      // And against the profile's rate: 16 tok/s per stream, whatever the batch.
      expect(cell.totalTokensPerSecond! / (1024 * ROOMY_STREAM_RATE)).toBeGreaterThan(0.97);
      expect(cell.totalTokensPerSecond! / (1024 * ROOMY_STREAM_RATE)).toBeLessThan(1.03);
      // Per request, each stream's own rate by the client's rule ((tokens - 1) / (last - first token)), against the
      // same rule over the simulator's emissions (8-token chunks put it a little above 16).
      const ownRate = median(reqs.map((r) => ownRateOf(r.emissions)).filter((v): v is number => v !== null));
      expect(cell.perRequestTokensPerSecond! / ownRate).toBeGreaterThan(0.97);
      expect(cell.perRequestTokensPerSecond! / ownRate).toBeLessThan(1.03);
    },
    180_000,
  );

  simTest(
    'C=4096, the most the client holds, opens every stream and measures them all',
    async ({ launchSim }) => {
      const { cell, window, reqs } = await measureCell(launchSim, 4096);
      expect(cell.status).toBe('valid');
      expect(heldThroughout(reqs, window)).toBe(4096);
      const truth = emittedBetween(reqs, window.startMs, window.endMs);
      expect(cell.outputTokens! / truth).toBeGreaterThan(0.95);
      expect(cell.outputTokens! / truth).toBeLessThan(1.05);
    },
    240_000,
  );
});
