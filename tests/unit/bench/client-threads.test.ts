/** The rules of a client spread over threads: how many hold a cell, its shares, a late window's edge, one health. */
import { describe, expect, it } from 'vitest';
import type { ClientHealthReading } from '../../../src-main/engine/bench/client-health';
import {
  MAX_THREADS,
  STREAMS_PER_THREAD,
  mergeHealth,
  shareSizes,
  threadsFor,
  tokensAt,
} from '../../../src-main/engine/bench/client-threads';

describe('threadsFor', () => {
  it('keeps a cell of up to 256 streams on its own thread, whatever the machine', () => {
    expect(STREAMS_PER_THREAD).toBe(256);
    expect(threadsFor(1, 16)).toBe(1);
    expect(threadsFor(256, 16)).toBe(1);
  });

  it('adds a thread for each 256 streams begun, up to the CPUs', () => {
    expect(threadsFor(257, 16)).toBe(2);
    expect(threadsFor(512, 16)).toBe(2);
    expect(threadsFor(513, 16)).toBe(3);
    expect(threadsFor(1024, 16)).toBe(4);
    expect(threadsFor(1024, 2)).toBe(2);
    expect(threadsFor(4096, 3)).toBe(3);
  });

  it('never more than 16 threads, never fewer than one', () => {
    expect(MAX_THREADS).toBe(16);
    expect(threadsFor(4096, 64)).toBe(16);
    expect(threadsFor(4097, 64)).toBe(16);
    expect(threadsFor(0, 8)).toBe(1);
    expect(threadsFor(1024, 0)).toBe(1);
  });
});

describe('shareSizes', () => {
  it('shares C workers out evenly, the larger shares first, adding up to C', () => {
    expect(shareSizes(1024, 4)).toEqual([256, 256, 256, 256]);
    expect(shareSizes(10, 3)).toEqual([4, 3, 3]);
    expect(shareSizes(11, 3)).toEqual([4, 4, 3]);
    expect(shareSizes(7, 1)).toEqual([7]);
    expect(shareSizes(2, 2)).toEqual([1, 1]);
  });
});

describe('tokensAt', () => {
  const s = { tokens: 40, lastTokenAt: 1_000, tokensBeforeLast: 32 };

  it('a stream whose last arrival came after t had read only what came before it', () => {
    expect(tokensAt(s, 999.5)).toBe(32);
  });

  it('a stream whose last arrival came at or before t had read all of it', () => {
    expect(tokensAt(s, 1_000)).toBe(40);
    expect(tokensAt(s, 1_200)).toBe(40);
  });
});

describe('mergeHealth', () => {
  const reading = (
    p99: number,
    max: number,
    run: number | null,
    cpu: number | null,
    mean: number,
  ): ClientHealthReading => ({
    health: { loopDelayP99Seconds: p99, loopDelayMaxSeconds: max, runDelayShare: run, cpuSecondsPerToken: cpu },
    meanLoopDelayMs: mean,
  });

  it("reads as the worst thread's lateness and waits, with the process's CPU per token from the cell's own probe", () => {
    const own = reading(0.001, 0.004, 0.01, 9e-6, 0.5);
    const merged = mergeHealth(own, [reading(0.02, 0.05, 0.3, 1, 4), reading(0.03, 0.04, 0.1, 2, 3)]);
    expect(merged).toEqual({
      health: {
        loopDelayP99Seconds: 0.03,
        loopDelayMaxSeconds: 0.05,
        runDelayShare: 0.3,
        cpuSecondsPerToken: 9e-6,
        threads: 2,
      },
      meanLoopDelayMs: 4,
    });
  });

  it("counts the cell's own thread when it is the latest, and a wait the OS did not give as unknown", () => {
    const own = reading(0.09, 0.2, null, null, 7);
    const merged = mergeHealth(own, [reading(0.01, 0.02, null, 1e-6, 1)]);
    expect(merged.health.loopDelayP99Seconds).toBe(0.09);
    expect(merged.health.loopDelayMaxSeconds).toBe(0.2);
    expect(merged.health.runDelayShare).toBeNull();
    expect(merged.health.cpuSecondsPerToken).toBeNull();
    expect(merged.health.threads).toBe(1);
    expect(merged.meanLoopDelayMs).toBe(7);
  });

  it('a wait known for one thread only is that one', () => {
    const merged = mergeHealth(reading(0, 0, null, 1e-6, 0), [
      reading(0, 0, 0.2, null, 0),
      reading(0, 0, null, null, 0),
    ]);
    expect(merged.health.runDelayShare).toBe(0.2);
    expect(merged.health.threads).toBe(2);
  });
});
