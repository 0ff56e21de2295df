import { describe, expect, it } from 'vitest';
import { K, measurementsToRun, planRun } from '../../../src-main/engine/bench/plan';
import type { PlanTarget } from '../../../src-main/engine/bench/plan';
import { unmeasuredCell } from '../../../src-main/engine/bench/cells';
import { doneMeasurements, foldRepetition, repetitionKey } from '../../../src-main/engine/bench/repetitions';
import { SessionSchema, type CellStatus, type DecodeCell } from '#shared/session/schema';
import { sampleSession } from '../../helpers/sample-session';

const target: PlanTarget = {
  maxModelLen: 262_144,
  kvBudget: {
    tokens: 2_200_000,
    source: 'metrics-cache-config',
    detail: null,
    maxConcurrency: null,
    tokensPerRequest: null,
  },
};

const label = (s: ReturnType<typeof planRun>['steps'][number]): string =>
  s.kind === 'warmup'
    ? 'W'
    : s.kind === 'prefill'
      ? `P${s.context / K}${s.measured ? '' : 'r'}`
      : `D${s.context / K}x${s.concurrency}#${s.repetition}`;

function measured(total: number, status: CellStatus = 'valid', reason: string | null = null): DecodeCell {
  return {
    ...unmeasuredCell(8 * K, 4, status, reason),
    totalTokensPerSecond: total,
    perRequestTokensPerSecond: total / 4,
    fairShareTokensPerSecond: total / 4,
    ttft: { p50: 0.2, p90: 0.3, p99: 0.4, mean: 0.25 },
    timeBetweenTokens: { p50: 4 / total, p90: 5 / total, p99: 6 / total, mean: 4 / total },
    outputTokens: Math.round(total * 30),
    completedRequests: 4,
    windowSeconds: 30,
    startedAt: `2026-11-30T10:00:0${Math.round(total) % 10}Z`,
  };
}

describe('repeated runs in the plan', () => {
  it('visits the same decode cells again in later passes, in the same order, each context re-warmed first', () => {
    const plan = planRun({ contexts: [0, 8 * K], concurrency: [1, 2], prefillContexts: [8 * K], repeat: 3 }, target);
    expect(plan.steps.map(label)).toEqual([
      'W',
      'D0x1#1',
      'P8',
      'D8x1#1',
      'D0x2#1',
      'P8r',
      'D8x2#1',
      'D0x1#2',
      'P8r',
      'D8x1#2',
      'D0x2#2',
      'P8r',
      'D8x2#2',
      'D0x1#3',
      'P8r',
      'D8x1#3',
      'D0x2#3',
      'P8r',
      'D8x2#3',
    ]);
    expect(plan.config.repeat).toBe(3);
    expect(measurementsToRun(plan)).toBe(12);
  });

  it('counts every pass in the ETA', () => {
    const once = planRun({ contexts: [8 * K], concurrency: [1, 2], secondsPerMeasurement: 30 }, target);
    const thrice = planRun({ contexts: [8 * K], concurrency: [1, 2], secondsPerMeasurement: 30, repeat: 3 }, target);
    // Two more passes of two cells, each a 30 s window plus overhead, and one re-warm scout per pass.
    expect(thrice.etaSeconds - once.etaSeconds).toBeGreaterThanOrEqual(2 * 2 * 30);
    expect(thrice.etaSeconds).toBeLessThan(once.etaSeconds * 3);
  });

  it('plans one pass without --repeat, as before', () => {
    const plan = planRun({ contexts: [0], concurrency: [1, 2], prefillContexts: [] }, target);
    expect(plan.config.repeat).toBe(1);
    expect(plan.steps.map(label)).toEqual(['W', 'D0x1#1', 'D0x2#1']);
  });
});

describe('folding repetitions into a cell', () => {
  it('keeps each repetition and gives the means as the cell figures', () => {
    let cell = foldRepetition(undefined, measured(1000), 1, 3);
    cell = foldRepetition(cell, measured(1100), 2, 3);
    cell = foldRepetition(cell, measured(1200), 3, 3);
    expect(cell.repetitions?.map((r) => [r.repetition, r.totalTokensPerSecond])).toEqual([
      [1, 1000],
      [2, 1100],
      [3, 1200],
    ]);
    expect(cell.totalTokensPerSecond).toBeCloseTo(1100, 9);
    expect(cell.perRequestTokensPerSecond).toBeCloseTo(275, 9);
    expect(cell.fairShareTokensPerSecond).toBeCloseTo(275, 9);
    expect(cell.outputTokens).toBe(33_000);
    expect(cell.timeBetweenTokens?.p50).toBeCloseTo((4 / 1000 + 4 / 1100 + 4 / 1200) / 3, 12);
    expect(cell.status).toBe('valid');
    expect(cell.startedAt).toBe('2026-11-30T10:00:00Z');
    expect(SessionSchema.parse({ ...sampleSession(), cells: [cell] }).cells[0].repetitions).toHaveLength(3);
  });

  it('is Valid only when every repetition is, and names the repetition that was not', () => {
    let cell = foldRepetition(undefined, measured(1000), 1, 3);
    cell = foldRepetition(cell, unmeasuredCell(8 * K, 4, 'error', 'the server went down'), 2, 3);
    cell = foldRepetition(cell, measured(1200), 3, 3);
    expect(cell.status).toBe('error');
    expect(cell.reason).toBe('repetition 2 of 3: the server went down');
    // Means over the repetitions with figures only.
    expect(cell.totalTokensPerSecond).toBeCloseTo(1100, 9);
    expect(cell.requests).toBeNull();
  });

  it('replaces a repetition measured again (resume after a cancelled one) and leaves single runs untouched', () => {
    let cell = foldRepetition(undefined, measured(1000), 1, 2);
    cell = foldRepetition(cell, unmeasuredCell(8 * K, 4, 'cancelled', 'the run was stopped'), 2, 2);
    expect(cell.status).toBe('cancelled');
    expect(doneMeasurements([cell])).toEqual([repetitionKey(cell, 1)]);
    cell = foldRepetition(cell, measured(1020), 2, 2);
    expect(cell.repetitions?.map((r) => r.status)).toEqual(['valid', 'valid']);
    expect(cell.status).toBe('valid');
    expect(doneMeasurements([cell])).toEqual(['8192x4', '8192x4#2']);
    const single = measured(900);
    expect(foldRepetition(undefined, single, 1, 1)).toBe(single);
    expect(doneMeasurements([single])).toEqual(['8192x4']);
  });

  it('keeps the repetitions in order whatever order they arrive in, and the cell starts with the first', () => {
    let cell = foldRepetition(undefined, measured(1102), 2, 3);
    cell = foldRepetition(cell, measured(1000), 1, 3);
    cell = foldRepetition(cell, measured(1203), 3, 3);
    expect(cell.repetitions?.map((r) => r.repetition)).toEqual([1, 2, 3]);
    expect(cell.startedAt).toBe('2026-11-30T10:00:00Z');
    // Repetition 2 measured again replaces the first measurement of it: three, not four.
    cell = foldRepetition(cell, measured(1000), 2, 3);
    expect(cell.repetitions?.map((r) => r.totalTokensPerSecond)).toEqual([1000, 1000, 1203]);
  });

  it('keeps a failed repetition’s cell as the one before it measured, with the reason named even when none was given', () => {
    const first = { ...measured(1000), evidence: { kind: 'first' } } as unknown as DecodeCell;
    const failed = { ...unmeasuredCell(8 * K, 4, 'error', null), evidence: null } as DecodeCell;
    const cell = foldRepetition(foldRepetition(undefined, first, 1, 2), failed, 2, 2);
    expect(cell.reason).toBe('repetition 2 of 2: no reason given');
    // Figures, samples and evidence stay those of the repetition that had them.
    expect(cell.completedRequests).toBe(4);
    expect(cell.evidence).toEqual({ kind: 'first' });
    expect(cell.totalTokensPerSecond).toBe(1000);
    expect(cell.ttft).toEqual(first.ttft);
    // A later repetition with evidence of its own brings it.
    const again = { ...measured(1100), evidence: { kind: 'again' } } as unknown as DecodeCell;
    expect(foldRepetition(cell, again, 2, 2).evidence).toEqual({ kind: 'again' });
  });

  it('keeps each repetition’s client health, and a valid cell’s reason names the repetitions whose client was busy', () => {
    const quiet = {
      loopDelayP99Seconds: 0.004,
      loopDelayMaxSeconds: 0.01,
      runDelayShare: 0.02,
      cpuSecondsPerToken: 2e-6,
    };
    const busy = { ...quiet, loopDelayP99Seconds: 0.05, runDelayShare: 0.3 };
    const withHealth = (total: number, clientHealth: typeof quiet, reason: string | null = null) =>
      ({ ...measured(total, 'valid', reason), clientHealth }) as DecodeCell;
    let cell = foldRepetition(undefined, withHealth(1000, quiet), 1, 3);
    cell = foldRepetition(cell, withHealth(900, busy, 'the client was busy: …'), 2, 3);
    cell = foldRepetition(cell, withHealth(1000, quiet), 3, 3);
    expect(cell.status).toBe('valid');
    expect(cell.repetitions?.map((r) => r.clientHealth)).toEqual([quiet, busy, quiet]);
    expect(cell.reason).toBe(
      'repetition 2 of 3: the client was busy: event loop delayed p99 50 ms (max 10 ms), waited 30% of the window for a CPU, 2.0 µs of CPU per token; figures may be low',
    );
    // Every repetition quiet: no reason, as before; cells measured before client health: no key for it.
    const calm = foldRepetition(
      foldRepetition(undefined, withHealth(1000, quiet), 1, 2),
      withHealth(1000, quiet),
      2,
      2,
    );
    expect(calm.reason).toBeNull();
    const old = foldRepetition(foldRepetition(undefined, measured(1000), 1, 2), measured(1000), 2, 2);
    expect(old.repetitions?.[0]).not.toHaveProperty('clientHealth');
    expect(old.reason).toBeNull();
  });

  it('adds up the simulator’s lag over the repetitions, and keeps each one’s end-to-end latency and adaptive window', () => {
    const lagging = (total: number, lag: number | undefined) =>
      ({
        ...measured(total),
        ...(lag === undefined ? {} : { simulatorLagSeconds: lag }),
        e2eLatency: { p50: total / 1000, p90: 1, p99: 2, mean: 1, count: 10 },
        precision: { stopReason: 'precision', halfWidthRelative: 0.01 },
      }) as DecodeCell;
    let cell = foldRepetition(undefined, lagging(1000, 0.5), 1, 3);
    cell = foldRepetition(cell, lagging(1100, undefined), 2, 3);
    cell = foldRepetition(cell, lagging(1200, 0.25), 3, 3);
    expect(cell.simulatorLagSeconds).toBe(0.75);
    expect(cell.repetitions?.map((r) => r.simulatorLagSeconds)).toEqual([0.5, undefined, 0.25]);
    expect(cell.repetitions?.[0].precision).toEqual({ stopReason: 'precision', halfWidthRelative: 0.01 });
    expect(cell.e2eLatency).toMatchObject({ p50: expect.closeTo(1.1, 12), count: 30 });
    expect(cell.repetitions?.[1].e2eLatency?.p50).toBe(1.1);
    const calm = foldRepetition(foldRepetition(undefined, lagging(1000, 0), 1, 2), lagging(1000, undefined), 2, 2);
    expect(calm).not.toHaveProperty('simulatorLagSeconds');
    // Without e2e latency measured (older cells) there is no key for it, in the cell or its repetitions.
    const old = foldRepetition(foldRepetition(undefined, measured(1000), 1, 2), measured(1000), 2, 2);
    expect(old).not.toHaveProperty('e2eLatency');
    expect(old.repetitions?.[0]).not.toHaveProperty('e2eLatency');
    expect(old.repetitions?.[0]).not.toHaveProperty('precision');
    // A count only when every repetition's statistics have one.
    expect(old.ttft).not.toHaveProperty('count');
  });

  it('gives no fair share to a cell that never had one', () => {
    const bare = (total: number) => {
      const { fairShareTokensPerSecond: _, ...rest } = measured(total);
      return rest as DecodeCell;
    };
    const cell = foldRepetition(foldRepetition(undefined, bare(1000), 1, 2), bare(1100), 2, 2);
    expect(cell).not.toHaveProperty('fairShareTokensPerSecond');
  });

  it('opens a session written before repeats existed', () => {
    const old = sampleSession() as unknown as Record<string, unknown> & { runConfig: Record<string, unknown> };
    delete old.runConfig.repeat;
    const parsed = SessionSchema.parse(JSON.parse(JSON.stringify(old)));
    expect(parsed.runConfig.repeat).toBe(1);
    expect(parsed.cells.every((c) => c.repetitions === undefined)).toBe(true);
  });
});
