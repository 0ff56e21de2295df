import { describe, expect, it } from 'vitest';
import { planSweep, sweepPlanLine, sweepSecondsLeft } from '../../../src-main/workflows/sweep/plan';
import { launchOptionsFromCommand } from '../../../src-main/engine/server/command-line';
import { sweepPlanWords } from '#shared/sweep/plan-words';

const config = {
  contexts: [8192, 32768],
  concurrency: [1, 8],
  prefillContexts: [],
  secondsPerMeasurement: 10,
  maxOutputTokens: 2048,
};

describe('the plan of a sweep', () => {
  it('counts the variants not done, one server start each, and the cells every variant runs', () => {
    const launch = launchOptionsFromCommand(['vllm', 'serve', 'Qwen/Qwen3-8B', '--max-model-len', '32768']);
    const p = planSweep(
      (['done', 'partial', 'pending'] as const).map((state) => ({ state, launch })),
      config,
    );
    // 32K contexts leave no room for 2,048 output tokens under max_model_len 32,768: Too long.
    expect(p).toMatchObject({ variants: 3, toRun: 2, serverStarts: 2, cellsPerVariant: 2, cells: 4 });
    expect(p.measuringSeconds).toBeCloseTo(p.secondsPerVariant * 2);
    expect(sweepPlanLine(p)).toMatch(
      /^Sweep plan: 2 of 3 variants to run \(2 server starts\), up to 2 cells each \(4 in all; Over capacity is known once each server is up\), about .+ of measuring plus the server starts\.$/,
    );
  });

  it("reads a simulator's clock speed-up from its command: a clock ten times faster plans far less time", () => {
    const sim = (speed: string) =>
      launchOptionsFromCommand(['speedmatrix', 'sim', 'serve', 'm', '--max-model-len', '65536', '--sim-speed', speed]);
    const slow = planSweep([{ state: 'pending', launch: sim('1') }], config);
    const fast = planSweep([{ state: 'pending', launch: sim('10') }], config);
    // Simulated seconds pass ten times faster; the client's own overheads do not.
    expect(fast.secondsPerVariant).toBeLessThan(slow.secondsPerVariant / 5);
  });

  it('plans the cells above a variant’s --max-num-seqs as Requests queued, and counts their readiness deadline', () => {
    const sim = (seqs: string) =>
      launchOptionsFromCommand([
        'speedmatrix',
        'sim',
        'serve',
        'm',
        '--max-model-len',
        '65536',
        '--max-num-seqs',
        seqs,
      ]);
    const many = planSweep([{ state: 'pending', launch: sim('16') }], config);
    const few = planSweep([{ state: 'pending', launch: sim('4') }], config);
    expect(many.queuedCells).toBe(0);
    // 8 requests at once at 8K and 32K are above 4 sequences.
    expect(few.queuedCells).toBe(2);
    // Each waits out its 60 s readiness deadline instead of about 4 s of first tokens and steady streams.
    expect(few.measuringSeconds - many.measuringSeconds).toBeCloseTo(2 * (60 - 4), 5);
    expect(sweepPlanLine(few)).toContain(
      "(4 in all, 2 planned as Requests queued (above a variant's --max-num-seqs); Over capacity",
    );
  });

  it('counts a simulated server’s start from its command (its load time at its clock speed); a real engine’s is unknown', () => {
    const sim = (args: string[]) => launchOptionsFromCommand(['speedmatrix', 'sim', 'serve', 'm', ...args]);
    const loads = planSweep(
      [
        { state: 'pending', launch: sim(['--sim-load-seconds', '20']) },
        { state: 'pending', launch: sim(['--sim-load-seconds', '10']) },
        { state: 'done', launch: sim(['--sim-load-seconds', '1000']) },
      ],
      config,
    );
    // Each load, plus the supervisor's half-second poll that finds it up.
    expect(loads.serverStartSeconds).toBeCloseTo(20.5 + 10.5, 5);
    expect(sweepPlanLine(loads)).toMatch(/, about .+ with the server starts\.$/);
    // No --sim-load-seconds: the profile's own load time, ten times faster at --sim-speed 10.
    const slow = planSweep([{ state: 'pending', launch: sim([]) }], config).serverStartSeconds!;
    const fast = planSweep([{ state: 'pending', launch: sim(['--sim-speed', '10']) }], config).serverStartSeconds!;
    expect(slow).toBeGreaterThan(1);
    expect(fast - 0.5).toBeCloseTo((slow - 0.5) / 10, 5);
    // --enforce-eager skips the simulator's compilation and graph capture, as vLLM's: 30% of its load.
    const eager = planSweep(
      [{ state: 'pending', launch: sim(['--sim-load-seconds', '20', '--enforce-eager']) }],
      config,
    );
    expect(eager.serverStartSeconds).toBeCloseTo(14.5, 5);
    const real = launchOptionsFromCommand(['vllm', 'serve', 'Qwen/Qwen3-8B']);
    expect(
      planSweep(
        [
          { state: 'pending', launch: real },
          { state: 'pending', launch: sim([]) },
        ],
        config,
      ).serverStartSeconds,
    ).toBeNull();
  });
});

describe('the plan in words', () => {
  const figures = {
    variants: 1,
    toRun: 1,
    serverStarts: 1,
    cellsPerVariant: 1,
    cells: 1,
    queuedCells: 0,
    serverStartSeconds: null,
  };

  it('says one variant, one server start and one cell in the singular', () => {
    const words = sweepPlanWords({ ...figures, secondsPerVariant: 90, measuringSeconds: 90 });
    expect(words).toMatch(/^1 of 1 variant to run \(1 server start\), up to 1 cell each \(1 in all; Over capacity /);
  });

  it('is the CLI line after "Sweep plan:", so the app and the CLI say the same', () => {
    const p = {
      ...figures,
      variants: 3,
      toRun: 2,
      serverStarts: 2,
      cells: 2,
      queuedCells: 1,
      secondsPerVariant: 60,
      measuringSeconds: 120,
    };
    expect(sweepPlanLine(p)).toBe(`Sweep plan: ${sweepPlanWords(p)}.`);
    expect(sweepPlanWords(p)).toContain("(2 in all, 1 planned as Requests queued (above a variant's --max-num-seqs); ");
  });

  it('adds the server starts to the time where their length is known, and says so', () => {
    const known = sweepPlanWords({ ...figures, secondsPerVariant: 60, measuringSeconds: 60, serverStartSeconds: 30 });
    expect(known).toMatch(/, about 1 min 30 s with the server starts$/);
    const unknown = sweepPlanWords({ ...figures, secondsPerVariant: 60, measuringSeconds: 60 });
    expect(unknown).toMatch(/, about 1 min 00 s of measuring plus the server starts$/);
  });
});

describe('the time left in a sweep', () => {
  it('before any variant finished, a server start of unknown length: the plan per variant, server starts not included', () => {
    expect(sweepSecondsLeft({ current: 30, after: 2, finished: [], planned: 100, serverStart: null })).toEqual({
      seconds: 230,
      withServerStarts: false,
    });
    // A variant whose server is starting counts as a whole one still to measure.
    expect(sweepSecondsLeft({ current: null, after: 1, finished: [], planned: 100, serverStart: null }).seconds).toBe(
      200,
    );
  });

  it('before any variant finished, a server start of known length: the plan per variant and its server start', () => {
    expect(sweepSecondsLeft({ current: 30, after: 2, finished: [], planned: 100, serverStart: 15 })).toEqual({
      seconds: 30 + 2 * 115,
      withServerStarts: true,
    });
    // The variant whose server is starting counts its start too.
    expect(sweepSecondsLeft({ current: null, after: 1, finished: [], planned: 100, serverStart: 15 }).seconds).toBe(
      230,
    );
  });

  it('once variants finished: what they took, server start included, for each one to come', () => {
    expect(sweepSecondsLeft({ current: 20, after: 2, finished: [150, 170], planned: 100, serverStart: 12 })).toEqual({
      seconds: 20 + 2 * 160,
      withServerStarts: true,
    });
  });
});
