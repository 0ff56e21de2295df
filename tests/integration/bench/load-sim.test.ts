/**
 * `speedmatrix load` against the simulator process, checked against the simulator's own request
 * log (GET /sim/requests) as ground truth: below capacity the achieved rate and output tok/s match
 * what was really sent and served, Poisson arrivals are exponential at the server (a
 * Kolmogorov-Smirnov test), above capacity the rate is reported as not kept up with the evidence,
 * a sweep's throughput pass agrees with the matrix's cell at the same prompt and concurrency, a sped-up
 * simulator gets the rate in its own seconds, and the in-flight cap holds arrivals back.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Session } from '#shared/session/schema';
import type { LoadRateResult } from '#shared/session/schema-load';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli, sessionFromCli } from '../../helpers/cli';
import { simTest as it } from '../../helpers/fixtures';
import { exponentialCdf, ksCritical5, ksStatistic } from '../../helpers/ks';

interface SimRequest {
  endpoint: string;
  arrival_ms: number;
  first_token_ms: number | null;
  finished_ms: number | null;
  completion_tokens: number;
  finish_reason: string | null;
}

async function simLog(url: string): Promise<SimRequest[]> {
  const r = await fetch(`${url}/sim/requests`);
  const all = ((await r.json()) as { requests: SimRequest[] }).requests;
  return all.filter((q) => q.endpoint.endsWith('/completions')).sort((a, b) => a.arrival_ms - b.arrival_ms);
}

async function load(args: string[], out: string): Promise<Session> {
  const { session, result } = await sessionFromCli(['load', ...args], out);
  expect(result.stderr).toBe('');
  expect(session.load).toBeDefined();
  return session;
}

const within = (actual: number, expected: number, share: number) =>
  expect(Math.abs(actual - expected) / expected).toBeLessThan(share);

/** The log's requests that arrived, and that finished, inside the pass's window. */
function truth(log: SimRequest[], warmup: number, duration: number) {
  const from = log[0].arrival_ms + warmup * 1000;
  const to = from + duration * 1000;
  const arrived = log.filter((q) => q.arrival_ms >= from && q.arrival_ms < to);
  const finished = log.filter((q) => q.finished_ms !== null && q.finished_ms >= from && q.finished_ms <= to);
  return { arrived, finished };
}

describe('below capacity', () => {
  it('achieved rate and output tok/s within 3% of what the server’s log says was offered; arrivals pass a Poisson KS test', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, args: ['--served-model-name', 'fara'] });
    const s = await load(
      [
        '--url',
        sim.url,
        '--rates',
        '2',
        '--duration',
        '80',
        '--warmup',
        '3',
        '--input-len',
        '256',
        '--output-len',
        '32',
      ],
      join(tempDir('sm-load-'), 'below.speedmatrix.json'),
    );
    const [r] = s.load!.results as [LoadRateResult];
    const log = await simLog(sim.url);
    const { arrived, finished } = truth(log, 3, 80);
    const offered = arrived.length / 80;
    const meanOutput = arrived.reduce((n, q) => n + q.completion_tokens, 0) / arrived.length;
    within(r.achievedRate, offered, 0.03);
    within(r.achievedRate, finished.length / 80, 0.03);
    within(r.outputTokensPerSecond, offered * meanOutput, 0.03);
    expect(r.keptUp).toBe(true);
    expect(r.errors).toBe(0);
    expect(r.ttft?.count).toBe(r.completed);
    const gaps = log.slice(1).map((q, i) => (q.arrival_ms - log[i].arrival_ms) / 1000);
    expect(ksStatistic(gaps, exponentialCdf(2))).toBeLessThan(ksCritical5(gaps.length));
  }, 240_000);
});

describe('above capacity', () => {
  it('a rate the server cannot serve is not kept up, with the achieved rate and the growing queue as evidence', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, args: ['--served-model-name', 'fara', '--max-num-seqs', '2'] });
    const s = await load(
      [
        '--url',
        sim.url,
        '--rates',
        '12',
        '--duration',
        '12',
        '--warmup',
        '2',
        '--input-len',
        '256',
        '--output-len',
        '64',
      ],
      join(tempDir('sm-load-'), 'above.speedmatrix.json'),
    );
    const [r] = s.load!.results as [LoadRateResult];
    // The server's own pace from its log: the window's requests over the time it took to start answering them.
    const { arrived } = truth(await simLog(sim.url), 2, 12);
    const started = arrived.map((q) => q.first_token_ms).filter((t): t is number => t !== null);
    const pace = (started.length - 1) / ((Math.max(...started) - Math.min(...started)) / 1000);
    within(r.achievedRate, pace, 0.03);
    expect(r.achievedRate).toBeLessThan(0.9 * 12);
    expect(r.keptUp).toBe(false);
    expect(r.queue?.waitingGrowth).toBeGreaterThan(1);
    expect(r.keptUpReason).toMatch(/^completed \d+\.\d req\/s of 12\.0 offered; the server's waiting queue grew by/);
    expect(r.unfinished + r.completed).toBe(r.requests);
  }, 240_000);
});

describe('the sweep', () => {
  it('its throughput pass agrees within 5% with the matrix’s cell at the same prompt and concurrency', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ args: ['--served-model-name', 'fara', '--max-model-len', '32768'] });
    const dir = tempDir('sm-load-');
    const matrixFile = join(dir, 'matrix.speedmatrix.json');
    const m = await runCli(
      [
        'run',
        '--url',
        sim.url,
        '--contexts',
        '0',
        '--concurrency',
        '16',
        '--prefill-contexts',
        'none',
        '--duration',
        '15',
        '--out',
        matrixFile,
      ],
      { timeoutMs: 180_000 },
    );
    expect(m.code).toBe(0);
    const matrix = await readSessionFile(matrixFile);
    if (!matrix.ok) throw new Error(matrix.error.message);
    const cell = matrix.data.cells[0];
    const s = await load(
      [
        '--url',
        sim.url,
        '--rates',
        'sweep',
        '--sweep-points',
        '1',
        '--max-in-flight',
        '16',
        '--input-len',
        String(cell.promptTokens),
        '--output-len',
        '1024',
        '--duration',
        '15',
        '--warmup',
        '3',
      ],
      join(dir, 'sweep.speedmatrix.json'),
    );
    const passes = s.load!.results;
    expect(passes.map((p) => p.pass)).toEqual(['synchronous', 'throughput', 'rate']);
    const throughput = passes[1];
    within(throughput.outputTokensPerSecond, cell.totalTokensPerSecond as number, 0.05);
    const [sync, , between] = passes;
    expect(between.targetRate).toBeCloseTo((sync.achievedRate + throughput.achievedRate) / 2, 9);
    expect(s.load!.config.rates).toEqual([between.targetRate]);
  }, 400_000);
});

describe('pacing', () => {
  it('at a simulator sped up 4 times, arrivals come at the rate in simulated seconds and the figures read in them', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, speed: 4, args: ['--served-model-name', 'fara'] });
    const s = await load(
      ['--url', sim.url, '--sim-speed', '4', '--rates', '2', '--arrivals', 'constant'].concat([
        '--duration',
        '40',
        '--warmup',
        '2',
        '--input-len',
        '256',
        '--output-len',
        '16',
      ]),
      join(tempDir('sm-load-'), 'speed4.speedmatrix.json'),
    );
    const [r] = s.load!.results as [LoadRateResult];
    const log = await simLog(sim.url);
    // 2 req/s of simulated time is 8 a wall second: 125 ms apart at the server, whatever the client's timers.
    const gaps = log.slice(1).map((q, i) => q.arrival_ms - log[i].arrival_ms);
    within(gaps.reduce((a, b) => a + b, 0) / gaps.length, 125, 0.05);
    within(r.offeredRate, 2, 0.03);
    within(r.achievedRate, 2, 0.03);
    expect(r.windowSeconds).toBeCloseTo(40, 0);
    expect(r.keptUp).toBe(true);
  }, 120_000);

  it('--max-in-flight 1 holds arrivals back: the server never has two at once, and the pass says they waited', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, speed: 4, args: ['--served-model-name', 'fara'] });
    const s = await load(
      ['--url', sim.url, '--sim-speed', '4', '--rates', '4', '--arrivals', 'constant', '--max-in-flight', '1'].concat([
        '--duration',
        '20',
        '--warmup',
        '2',
        '--input-len',
        '256',
        '--output-len',
        '128',
      ]),
      join(tempDir('sm-load-'), 'capped.speedmatrix.json'),
    );
    const [r] = s.load!.results as [LoadRateResult];
    // The server's own log: no request arrived before the one before it had finished.
    const log = await simLog(sim.url);
    const overlapping = log.slice(1).filter((q, i) => log[i].finished_ms === null || q.arrival_ms < log[i].finished_ms);
    expect(overlapping).toEqual([]);
    expect(r.maxInFlight).toBe(1);
    expect(r.heldBack).toBeGreaterThan(0);
    expect(r.keptUp).toBe(false);
    expect(r.keptUpReason).toContain(`${r.heldBack} arrivals waited for the in-flight cap`);
  }, 120_000);
});
