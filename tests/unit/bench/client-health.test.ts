/** When the client, not the server, set a decode window's pace, and the note its cell then carries. */
import { describe, expect, it } from 'vitest';
import {
  BUSY_LOOP_DELAY_P99_SECONDS,
  BUSY_RUN_DELAY_SHARE,
  clientBusyNote,
  clientWasBusy,
} from '../../../src-main/engine/bench/client-busy';
import { startClientHealth } from '../../../src-main/engine/bench/client-health';
import type { ClientHealth } from '#shared/session/schema';
import { ClientHealthSchema, DecodeCellSchema } from '#shared/session/schema';

const quiet: ClientHealth = {
  loopDelayP99Seconds: 0.005,
  loopDelayMaxSeconds: 0.02,
  runDelayShare: 0.03,
  cpuSecondsPerToken: 2e-6,
};

describe('clientWasBusy', () => {
  it('a quiet client did not set the pace', () => {
    expect(clientWasBusy(quiet)).toBe(false);
  });

  it('an event loop late at its 99th percentile by the threshold or more did, just under it did not', () => {
    expect(BUSY_LOOP_DELAY_P99_SECONDS).toBe(0.04);
    expect(clientWasBusy({ ...quiet, loopDelayP99Seconds: 0.04 })).toBe(true);
    expect(clientWasBusy({ ...quiet, loopDelayP99Seconds: 0.0399 })).toBe(false);
    // The maximum alone (one GC pause) is no evidence.
    expect(clientWasBusy({ ...quiet, loopDelayMaxSeconds: 5 })).toBe(false);
  });

  it('a thread kept waiting for a CPU the threshold share of the window or more did, just under it did not', () => {
    expect(BUSY_RUN_DELAY_SHARE).toBe(0.25);
    expect(clientWasBusy({ ...quiet, runDelayShare: 0.25 })).toBe(true);
    expect(clientWasBusy({ ...quiet, runDelayShare: 0.2499 })).toBe(false);
    expect(clientWasBusy({ ...quiet, runDelayShare: null })).toBe(false);
    expect(clientWasBusy({ ...quiet, runDelayShare: null, loopDelayP99Seconds: 0.05 })).toBe(true);
  });

  it('CPU per token alone decides nothing: a costly parser on an idle machine keeps up', () => {
    expect(clientWasBusy({ ...quiet, cpuSecondsPerToken: 1e-3 })).toBe(false);
  });
});

describe('clientBusyNote', () => {
  it('says nothing for a quiet client or a cell measured before client health was recorded', () => {
    expect(clientBusyNote(quiet)).toBeNull();
    expect(clientBusyNote(undefined)).toBeNull();
    expect(clientBusyNote(null)).toBeNull();
  });

  it('gives the figures in a person’s units: ms of delay, % of the window, µs of CPU per token', () => {
    expect(
      clientBusyNote({
        loopDelayP99Seconds: 0.0484,
        loopDelayMaxSeconds: 0.1203,
        runDelayShare: 0.304,
        cpuSecondsPerToken: 12.04e-6,
      }),
    ).toBe(
      'the client was busy: event loop delayed p99 48 ms (max 120 ms), waited 30% of the window for a CPU, 12.0 µs of CPU per token; figures may be low',
    );
  });

  it('names the threads a client read over, and says nothing of one', () => {
    const busy = { ...quiet, loopDelayP99Seconds: 0.05, loopDelayMaxSeconds: 0.2 };
    expect(clientBusyNote({ ...busy, threads: 4 })).toMatch(/^the client \(4 threads reading\) was busy: event loop/);
    expect(clientBusyNote({ ...busy, threads: 1 })).toMatch(/^the client was busy: /);
  });

  it('leaves out what the OS did not say and what a window without tokens cannot give', () => {
    expect(
      clientBusyNote({
        loopDelayP99Seconds: 0.05,
        loopDelayMaxSeconds: 0.2,
        runDelayShare: null,
        cpuSecondsPerToken: null,
      }),
    ).toBe('the client was busy: event loop delayed p99 50 ms (max 200 ms); figures may be low');
  });
});

describe('startClientHealth', () => {
  it('reads a blocked event loop, the CPU it burned per token, and (on Linux) the thread’s waits', async () => {
    const outer0 = process.cpuUsage();
    const probe = startClientHealth();
    await new Promise((r) => setTimeout(r, 50));
    const until = performance.now() + 120;
    while (performance.now() < until);
    await new Promise((r) => setTimeout(r, 30));
    const { health, meanLoopDelayMs } = probe.stop(1000);
    const outer = process.cpuUsage(outer0);
    // 120 ms of wall time spinning: the loop was that late, however little CPU a loaded machine gave it.
    expect(health.loopDelayMaxSeconds).toBeGreaterThan(0.09);
    expect(health.loopDelayP99Seconds).toBeGreaterThan(0.09);
    expect(meanLoopDelayMs).toBeGreaterThan(0);
    // The process's CPU in the probe's span, per token: some, and no more than the span around it measured.
    expect(health.cpuSecondsPerToken).toBeGreaterThan(0);
    expect(health.cpuSecondsPerToken! * 1000).toBeLessThanOrEqual((outer.user + outer.system) / 1e6 + 1e-6);
    if (process.platform === 'linux') expect(health.runDelayShare).toBeGreaterThanOrEqual(0);
    else expect(health.runDelayShare).toBeNull();
    expect(ClientHealthSchema.parse(health)).toEqual(health);
    expect(probe.stop(0).health.cpuSecondsPerToken).toBeNull();
  });

  it('a decode cell without client health (an older file) still reads', () => {
    const old = { context: 0, concurrency: 1, status: 'valid', totalTokensPerSecond: 1, perRequestTokensPerSecond: 1 };
    const parsed = DecodeCellSchema.safeParse({
      ...old,
      ttft: null,
      timeBetweenTokens: null,
      avgActiveRequests: 1,
      completedRequests: 0,
      outputTokens: 10,
      windowSeconds: 10,
    });
    expect(parsed.success).toBe(true);
    if (parsed.success) expect(parsed.data.clientHealth).toBeUndefined();
  });
});
