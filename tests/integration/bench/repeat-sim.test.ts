/**
 * Repeated measurements against the real simulator process: every cell measured in each pass,
 * its 95% interval holding the rate the simulator really served (its ground truth), and a longer
 * window giving a narrower interval.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { BenchEvent } from '../../../src-main/engine/bench/types';
import { throughputInterval, type MeanInterval } from '#shared/report/confidence';
import { requestsView } from '#shared/report/requests';
import type { DecodeCell } from '#shared/session/schema';
import { simTest } from '../../helpers/fixtures';
import type { SimHandle } from '../../helpers/sim';
import { cellsOf, emittedBetween, runBench, simRequests, targetOf, tempDir } from './bench-helpers';

const SPEED = 5;
const CONTEXT = 2048;
const CELLS = [1, 8];

const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  { speed: SPEED, debug: true, args: ['--max-model-len', '32768', '--served-model-name', 'fara'] },
);

interface Measured {
  cells: Record<string, DecodeCell>;
  /** Per cell: the simulator's own rate over all of the cell's windows (tokens emitted / simulated seconds). */
  truth: Record<string, number>;
  intervals: Record<string, MeanInterval>;
  doneEvents: Array<Extract<BenchEvent, { type: 'cell-done' }>>;
}

async function measure(sim: SimHandle, seconds: number): Promise<Measured> {
  const target = await targetOf(sim.url);
  const r = await runBench(
    target,
    {
      contexts: [CONTEXT],
      concurrency: CELLS,
      prefillContexts: [],
      warmup: false,
      simSpeed: SPEED,
      secondsPerMeasurement: seconds,
      maxOutputTokens: 2048,
      repeat: 3,
    },
    join(tempDir(), 'repeat.speedmatrix.json'),
  );
  const reqs = await simRequests(sim.url);
  const doneEvents = r.events.filter((e): e is Extract<BenchEvent, { type: 'cell-done' }> => e.type === 'cell-done');
  const tokens: Record<string, number> = {};
  const simSeconds: Record<string, number> = {};
  for (const e of doneEvents) {
    const key = `${e.cell.context}x${e.cell.concurrency}`;
    const w = e.window!;
    tokens[key] = (tokens[key] ?? 0) + emittedBetween(reqs, w.startMs, w.endMs);
    simSeconds[key] = (simSeconds[key] ?? 0) + ((w.endMs - w.startMs) / 1000) * SPEED;
  }
  const cells = cellsOf(r.session);
  const truth = Object.fromEntries(Object.keys(tokens).map((k) => [k, tokens[k] / simSeconds[k]]));
  const intervals = Object.fromEntries(Object.entries(cells).map(([k, c]) => [k, throughputInterval(c)!]));
  return { cells, truth, intervals, doneEvents };
}

/**
 * The client and the simulator may put a token on either side of a window's edge: one token per
 * stream at each edge, as a rate. The interval must hold the truth within that.
 */
const edgeTolerance = (concurrency: number, windowSeconds: number): number => (2 * concurrency) / windowSeconds;

describe('--repeat against the simulator', () => {
  let short: Measured;
  let long: Measured;

  it('measures every cell three times, in interleaved passes, and its interval holds the true rate', async ({
    sim,
  }) => {
    short = await measure(sim, 2);
    expect(short.doneEvents.map((e) => `${e.cell.concurrency}#${e.repetition}`)).toEqual([
      '1#1',
      '8#1',
      '1#2',
      '8#2',
      '1#3',
      '8#3',
    ]);
    for (const c of CELLS) {
      const key = `${CONTEXT}x${c}`;
      const cell = short.cells[key];
      expect(cell.repetitions?.map((r) => [r.repetition, r.status])).toEqual([
        [1, 'valid'],
        [2, 'valid'],
        [3, 'valid'],
      ]);
      expect(cell.status).toBe('valid');
      // Every repetition's requests, each over its own window, not only the last one's.
      expect(
        requestsView(cell).sets.map((r) => [r.repetition, r.windowSeconds, (r.requests?.sentAt.length ?? 0) > 0]),
      ).toEqual(cell.repetitions!.map((r) => [r.repetition, r.windowSeconds, true]));
      const ci = short.intervals[key];
      expect(ci.n).toBe(3);
      expect(cell.totalTokensPerSecond).toBeCloseTo(ci.mean, 6);
      console.log(
        `${key} 2 s window: ${ci.mean.toFixed(1)} ± ${ci.halfWidth!.toFixed(2)} tok/s (cv ${(ci.cv! * 100).toFixed(2)}%), truth ${short.truth[key].toFixed(1)}`,
      );
      expect(ci.low! - edgeTolerance(c, 2)).toBeLessThanOrEqual(short.truth[key]);
      expect(ci.high! + edgeTolerance(c, 2)).toBeGreaterThanOrEqual(short.truth[key]);
    }
  }, 240_000);

  it('gives a narrower interval with a longer window', async ({ sim }) => {
    long = await measure(sim, 20);
    // Relative half-width over the matrix's cells: three repetitions give a rough spread per cell,
    // so one cell's width alone is a coin toss between two lucky or unlucky triples.
    const width = (m: Measured) =>
      CELLS.reduce((a, c) => a + m.intervals[`${CONTEXT}x${c}`].halfWidth! / m.intervals[`${CONTEXT}x${c}`].mean, 0) /
      CELLS.length;
    console.log(
      `relative half-width: ${(width(short) * 100).toFixed(2)}% at 2 s, ${(width(long) * 100).toFixed(2)}% at 20 s`,
    );
    expect(width(long)).toBeLessThan(width(short));
    for (const c of CELLS) {
      const key = `${CONTEXT}x${c}`;
      const ci = long.intervals[key];
      console.log(
        `${key} 20 s window: ${ci.mean.toFixed(1)} ± ${ci.halfWidth!.toFixed(2)} tok/s (cv ${(ci.cv! * 100).toFixed(2)}%), truth ${long.truth[key].toFixed(1)}`,
      );
      expect(ci.low! - edgeTolerance(c, 20)).toBeLessThanOrEqual(long.truth[key]);
      expect(ci.high! + edgeTolerance(c, 20)).toBeGreaterThanOrEqual(long.truth[key]);
    }
  }, 240_000);

  it('resumes a stopped repeated run without measuring any repetition twice', async ({ sim }) => {
    const target = await targetOf(sim.url);
    const file = join(tempDir(), 'resume.speedmatrix.json');
    const config = {
      contexts: [CONTEXT],
      concurrency: CELLS,
      prefillContexts: [],
      warmup: false,
      simSpeed: SPEED,
      secondsPerMeasurement: 2,
      maxOutputTokens: 1024,
      repeat: 2,
    };
    const doneOf = (events: BenchEvent[]) =>
      events.flatMap((e) =>
        e.type === 'cell-done' && e.cell.repetitions?.find((r) => r.repetition === e.repetition)?.status === 'valid'
          ? [`${e.cell.concurrency}#${e.repetition}`]
          : [],
      );
    let stopping = false;
    const first = await runBench(target, config, file, {
      onEventAlso: (e, stop) => {
        // Stop inside the second pass's first cell.
        if (e.type === 'cell-start' && e.repetition === 2 && !stopping) {
          stopping = true;
          setTimeout(() => void stop(), 100);
        }
      },
    });
    expect(doneOf(first.events)).toEqual(['1#1', '8#1']);
    const stopped = cellsOf(first.session)[`${CONTEXT}x1`];
    expect(stopped.status).toBe('cancelled');
    expect(stopped.reason).toMatch(/^repetition 2 of 2: /);
    const second = await runBench(target, config, file, { resume: true });
    expect(doneOf(second.events)).toEqual(['1#2', '8#2']);
    for (const c of Object.values(cellsOf(second.session))) {
      expect(c.repetitions?.map((r) => [r.repetition, r.status])).toEqual([
        [1, 'valid'],
        [2, 'valid'],
      ]);
      expect(c.status).toBe('valid');
    }
    // The first pass's figures survive untouched.
    expect(cellsOf(second.session)[`${CONTEXT}x8`].repetitions![0]).toEqual(
      cellsOf(first.session)[`${CONTEXT}x8`].repetitions![0],
    );
    // And its requests: the file keeps both repetitions' requests, each once.
    for (const c of Object.values(cellsOf(second.session))) {
      expect(c.repetitionRequests?.map((r) => [r.repetition, r.windowSeconds])).toEqual([
        [1, c.repetitions![0].windowSeconds],
      ]);
      expect(c.requests?.sentAt.length).toBeGreaterThan(0);
    }
    expect(cellsOf(second.session)[`${CONTEXT}x8`].repetitionRequests![0].requests).toEqual(
      cellsOf(first.session)[`${CONTEXT}x8`].requests,
    );
  }, 240_000);
});
