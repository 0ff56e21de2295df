/**
 * The status rules against the real simulator process: request turnover is not queueing, a
 * server that cannot run C at once is, failed requests keep the figure up to 10% of the
 * window, and a stream that goes silent late in the window makes the figure suspect.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { clientBusyNote } from '../../../src-main/engine/bench/client-busy';
import type { RunConfigInput } from '../../../src-main/engine/bench/types';
import { BUILTIN_PROFILES } from '../../../src-main/engine/sim/profile';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { type LaunchSim, simTest as it } from '../../helpers/fixtures';
import { cellsOf, runBench, targetOf, tempDir } from './bench-helpers';

const K = 1024;
const SPEED = 10;
const PROFILE_A = ['--max-model-len', '262144', '--gpu-memory-utilization', '0.83', '--served-model-name', 'fara'];

async function measure(launchSim: LaunchSim, args: string[], config: RunConfigInput, speed = SPEED) {
  const sim = await launchSim({ speed, args });
  const target = await targetOf(sim.url);
  return {
    target,
    ...(await runBench(
      target,
      { prefillContexts: [], warmup: false, simSpeed: speed, ...config },
      join(tempDir(), 's.speedmatrix.json'),
    )),
  };
}

describe('Requests queued only when requests really wait', () => {
  it('request turnover at a short max output on a server with room to spare is Valid, with the queue evidence kept', async ({
    launchSim,
  }) => {
    // At the simulator's real-time clock, as against a real server: at a sped-up clock each worker's
    // turnover (a few wall milliseconds on a busy machine) would weigh several times more.
    const r = await measure(
      launchSim,
      PROFILE_A,
      { contexts: [8 * K], concurrency: [16], maxOutputTokens: 1024, secondsPerMeasurement: 10 },
      1,
    );
    const c = cellsOf(r.session)[`${8 * K}x16`];
    expect([c.status, c.reason]).toEqual(['valid', null]);
    // Requests did turn over: many more than 16 were sent, and some finished inside the window.
    expect(c.requests!.sentAt.length).toBeGreaterThan(20);
    expect(c.completedRequests).toBeGreaterThan(0);
    expect(c.queueEvidence!.scrapes).toBeGreaterThanOrEqual(8);
    expect(c.queueEvidence!.longestWaitingRun).toBeLessThan(2);
    expect(c.queueEvidence!.avgRunning).toBeGreaterThanOrEqual(0.95 * 16);
    // The server's own queue time (vllm:request_queue_time_seconds): each successor was scheduled
    // at the next step or so, nowhere near a request's lifetime.
    expect(c.queueEvidence!.scheduledRequests).toBeGreaterThan(0);
    expect(c.queueEvidence!.meanQueueSeconds).toBeLessThan(3 * c.timeBetweenTokens!.p50);
    expect(c.failedRequests).toBe(0);
  }, 120_000);

  it('one request at a time with very short outputs is Valid: each successor waits for no step, and the running count is within sampling of 1', async ({
    launchSim,
  }) => {
    // 32 tokens: a request lasts a few tenths of a second, so the once-a-second scrapes often find
    // none running (its successor still in the server's front end, or waiting for the next step).
    const r = await measure(
      launchSim,
      PROFILE_A,
      { contexts: [8 * K], concurrency: [1], maxOutputTokens: 32, secondsPerMeasurement: 10 },
      1,
    );
    const c = cellsOf(r.session)[`${8 * K}x1`];
    expect(c.status).toBe('valid');
    expect(c.queueEvidence).toMatchObject({ maxRunning: 1, preemptions: 0 });
    expect(c.queueEvidence!.scheduledRequests).toBeGreaterThan(10);
    if (c.avgActiveRequests! < 0.95) {
      expect(c.reason).toMatch(/^request turnover: the server ran 0\.\d of 1 on average/);
      // The reference tool's 95% rule says Requests queued here: the cell keeps both, and the report says so.
      expect(c.referenceVerdict).toMatchObject({
        status: 'queued',
        says: expect.stringMatching(/^average active requests 0\.\d is below 95% of 1$/),
        differs: expect.stringMatching(/^by Little's law the shortfall is request turnover/),
      });
      expect(renderMarkdownReport(r.session)).toMatch(
        /The reference tool's 95% rule says Requests queued \(average active requests 0\.\d is below 95% of 1\); this verdict differs: by Little's law/,
      );
    } else {
      // Nothing to say about the server; only a client kept busy by a loaded machine says so.
      expect(c.reason).toBe(clientBusyNote(c.clientHealth));
      expect(c.referenceVerdict).toBeUndefined();
    }
  }, 120_000);
  it("a frontend that holds each replacement longer than a step is Requests queued, with each request's time at the server by Little's law", async ({
    launchSim,
  }) => {
    // As at 64K with short outputs: each replacement spends 350 ms in the API server (outside the
    // running count and the queue time) and lives about 4 s at a 31 ms step, so the server runs
    // about 14.7 of 16 on average, whatever a once-a-second scrape happens to catch.
    const h200 = BUILTIN_PROFILES['h200-8b-bf16'];
    const file = join(tempDir(), 'slow-frontend.json');
    const profile = {
      ...h200,
      name: 'slow-frontend',
      // 100 ms of it on the API server's one event loop, which staggers the requests as long prompts' prefills do.
      frontend: { baseMs: 350, perKiloTokenMs: 0, serialBaseMs: 100 },
      decode: { ...h200.decode, baseMs: 30 },
    };
    writeFileSync(file, JSON.stringify(profile));
    const sim = await launchSim({ speed: 4, profile: file });
    const r = await runBench(
      await targetOf(sim.url),
      {
        contexts: [8 * K],
        concurrency: [16],
        maxOutputTokens: 128,
        prefillContexts: [],
        warmup: false,
        simSpeed: 4,
        // 60 scrapes: the mean running count to about ±0.4 (twice its standard error) against a
        // shortfall of about 1.4, so the verdict does not rest on the sampling.
        secondsPerMeasurement: 60,
      },
      join(tempDir(), 'frontend.speedmatrix.json'),
    );
    const c = cellsOf(r.session)[`${8 * K}x16`];
    expect(c.status).toBe('queued');
    const [, ms] =
      /: each request spent about ([\d,]+) ms at the server before it ran \(Little's law: [\d.]+ requests short at [\d.]+ requests\/s\), more than one [\d.]+ ms step/.exec(
        c.reason!,
      ) ?? [];
    // The frontend's 350 ms (about 420 ms measured: the serial share and the sampling add to it).
    expect(Number(ms?.replace(',', ''))).toBeGreaterThan(200);
    expect(Number(ms?.replace(',', ''))).toBeLessThan(1000);
    // vLLM's queue time alone says nothing queued: each request was scheduled within a step.
    expect(c.queueEvidence!.meanQueueSeconds).toBeLessThanOrEqual(c.timeBetweenTokens!.p50);
    expect(c.queueEvidence!.avgRunningStdError).toBeGreaterThan(0);
    expect(c.queueEvidence!.scrapeSpanSeconds).toBeGreaterThan(50);
  }, 120_000);

  it('at 64K with short outputs a front end that keeps the running count below C opens the window on the evidence, not at the 120 s deadline', async ({
    launchSim,
  }) => {
    const h200 = BUILTIN_PROFILES['h200-8b-bf16'];
    const file = join(tempDir(), 'slow-frontend-64k.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...h200,
        name: 'slow-frontend-64k',
        frontend: { baseMs: 350, perKiloTokenMs: 0, serialBaseMs: 100 },
      }),
    );
    const sim = await launchSim({ speed: 4, profile: file, args: ['--kv-cache-dtype', 'fp8'] });
    const r = await runBench(
      await targetOf(sim.url),
      {
        contexts: [64 * K],
        concurrency: [16],
        maxOutputTokens: 64,
        prefillContexts: [],
        warmup: false,
        simSpeed: 4,
        secondsPerMeasurement: 20,
      },
      join(tempDir(), 'frontend-64k.speedmatrix.json'),
    );
    const c = cellsOf(r.session)[`${64 * K}x16`];
    expect(c.readinessTimedOut).toBe(false);
    expect(c.reason ?? '').not.toMatch(/readiness gate timed out/);
    // The window still measured the shortfall, and the status rule judged it.
    expect(c.queueEvidence!.avgRunning).toBeLessThan(16);
    expect(c.totalTokensPerSecond).toBeGreaterThan(0);
  }, 120_000);

  it('--max-num-seqs below C is Requests queued, with the waiting scrapes as evidence and the figure kept', async ({
    launchSim,
  }) => {
    const r = await measure(launchSim, ['--max-num-seqs', '4', ...PROFILE_A], {
      contexts: [2 * K],
      concurrency: [8],
      secondsPerMeasurement: 8,
    });
    const c = cellsOf(r.session)[`${2 * K}x8`];
    expect(c.status).toBe('queued');
    expect(c.queueEvidence!.longestWaitingRun).toBeGreaterThanOrEqual(2);
    expect(c.queueEvidence!.waitingShare).toBeGreaterThan(0.5);
    expect(c.queueEvidence!.avgRunning).toBeLessThanOrEqual(4);
    // Each request waited for a running one to finish: many steps, by the server's own queue time.
    expect(c.queueEvidence!.meanQueueSeconds).toBeGreaterThan(10 * c.timeBetweenTokens!.p50);
    // By Little's law, each request spent many steps at the server before it ran, as its queue time says.
    expect(c.reason).toMatch(
      /^average active requests 4\.0 is below 95% of 8: each request spent about [\d,]+ ms at the server before it ran \(Little's law: 4\.0 requests short at [\d.]+ requests\/s\), more than one [\d.]+ ms step; requests were waiting in \d+% of the once-a-second checks/,
    );
    expect(c.totalTokensPerSecond).toBeGreaterThan(0);
  }, 120_000);

  it('a KV cache too small for C requests is Requests queued', async ({ launchSim }) => {
    // Without prefix caching each request holds its own prompt's blocks.
    const args = [
      '--max-model-len',
      '131072',
      '--gpu-memory-utilization',
      '0.2',
      '--no-enable-prefix-caching',
      '--served-model-name',
      'fara',
    ];
    const sim = await launchSim({ speed: SPEED, args });
    const target = await targetOf(sim.url);
    const budget = target.kvBudget.tokens!;
    // Three prompts fit the cache, the fourth does not (the user's budget lets the plan run it).
    const context = Math.floor(budget / 3.5);
    expect(context + 4096).toBeLessThanOrEqual(131072);
    const r = await runBench(
      target,
      {
        contexts: [context],
        concurrency: [4],
        prefillContexts: [],
        warmup: false,
        simSpeed: SPEED,
        secondsPerMeasurement: 8,
        kvBudgetTokens: 10 * budget,
      },
      join(tempDir(), 'kv.speedmatrix.json'),
    );
    const c = cellsOf(r.session)[`${context}x4`];
    // The fourth request never gets its share: the gate never sees all four steady, or they wait.
    // Never an Error: a request the server holds without serving is queueing, however late the window closes.
    expect(c.status, c.reason ?? '').toBe('queued');
    expect(c.reason).toMatch(/readiness gate timed out|waiting in|below 95% of 4/);
    expect(c.queueEvidence!.scrapes).toBeGreaterThanOrEqual(6);
    expect(c.totalTokensPerSecond).toBeGreaterThan(0);
  }, 120_000);
});

describe('failed requests', () => {
  // Short requests so that many start in the window (the simulator fails exactly every 50th at 2%).
  const short: RunConfigInput = { contexts: [0], concurrency: [8], maxOutputTokens: 256, secondsPerMeasurement: 20 };
  // At 2%, requests of 512 tokens at speed 4 (about 1.2 s of wall time each): a worker's turnover is a
  // small share of a request's life even on a busy machine, so eight stay running.
  const longer: RunConfigInput = { ...short, maxOutputTokens: 512, secondsPerMeasurement: 40 };

  it('HTTP 500 on 2% of requests: each is replaced, the cell keeps its figure and shows the count', async ({
    launchSim,
  }) => {
    const r = await measure(launchSim, ['--sim-500-share', '0.02', ...PROFILE_A], longer, 4);
    const c = cellsOf(r.session)['0x8'];
    expect(c.status).toBe('valid');
    expect(c.failedRequests).toBeGreaterThanOrEqual(1);
    expect(c.failedRequests! / c.windowRequests!).toBeLessThanOrEqual(0.1);
    expect(c.reason).toMatch(/requests in the window failed and were replaced .*HTTP 500/);
    // The warning names the cell as every other line does.
    expect(r.session.events.map((e) => e.message)).toContainEqual(
      expect.stringMatching(/^Cell 0 × 8: a request failed and was replaced: .*HTTP 500/),
    );
    expect(c.totalTokensPerSecond).toBeGreaterThan(0);
    // Eight stay in flight: every failure was replaced at once.
    expect(c.avgActiveRequests).toBeGreaterThanOrEqual(0.95 * 8);
    const md = renderMarkdownReport(r.session);
    expect(md).toMatch(
      new RegExp(`\\| Sustained decode \\| 0 \\| 8 \\| Valid \\| [\\d,.]+ \\(${c.failedRequests} failed\\) \\|`),
    );
  }, 120_000);

  it('HTTP 500 on 30% of requests: Error, with the count and the server’s message', async ({ launchSim }) => {
    const r = await measure(launchSim, ['--sim-500-share', '0.3', ...PROFILE_A], short);
    const c = cellsOf(r.session)['0x8'];
    expect(c.status).toBe('error');
    expect(c.totalTokensPerSecond).toBeNull();
    expect(c.reason).toMatch(/^\d+ of \d+ requests (in the window )?failed.*HTTP 500.*--sim-500-share/);
    // The counts the cell stores (shown as "(N failed)") are the ones its reason states.
    const [, failed, of] = /^(\d+) of (\d+)/.exec(c.reason!)!;
    expect([c.failedRequests, c.windowRequests]).toEqual([Number(failed), Number(of)]);
  }, 120_000);
});

describe('a stream that goes silent late in the window', () => {
  // Retried once: the pause is timed by this process's timers against the window's wall clock, and a loaded
  // machine's late timer can move it out of the window (the stall then reads shorter than the bar).
  it(
    'is Stream stalled, with the gap as evidence and the figure kept (the server paused, then went on)',
    { retry: 1, timeout: 120_000 },
    async ({ launchSim }) => {
      const sim = await launchSim({ speed: SPEED, args: PROFILE_A });
      const s = sim;
      const target = await targetOf(s.url);
      const timers: NodeJS.Timeout[] = [];
      // 30 s windows take 3 s of wall time at speed 10: pause the whole server for 1.5 s (15 simulated
      // seconds) from 1 s into the window, under the 30 s stall limit.
      const r = await runBench(
        target,
        {
          contexts: [0],
          concurrency: [2],
          prefillContexts: [],
          warmup: false,
          simSpeed: SPEED,
          secondsPerMeasurement: 30,
        },
        join(tempDir(), 'stall.speedmatrix.json'),
        {
          onEventAlso: (e) => {
            if (e.type !== 'phase' || e.phase !== 'window') return;
            timers.push(setTimeout(() => process.kill(s.pid, 'SIGSTOP'), 1000));
            timers.push(setTimeout(() => process.kill(s.pid, 'SIGCONT'), 2500));
          },
        },
      );
      for (const t of timers) clearTimeout(t);
      const c = cellsOf(r.session)['0x2'];
      expect(c.status).toBe('stalled');
      expect(c.stall!.gapSeconds).toBeGreaterThan(12);
      expect(c.stall!.gapSeconds).toBeLessThan(30);
      expect(c.stall!.endedAtSeconds).toBeGreaterThan(10);
      expect(c.stall!.thresholdSeconds).toBe(2);
      expect(c.reason).toMatch(/produced nothing for \d+\.\d s inside the window/);
      expect(c.totalTokensPerSecond).toBeGreaterThan(0);
      expect(renderMarkdownReport(r.session)).toMatch(/\| Sustained decode \| 0 \| 2 \| Stream stalled \| [\d,.]+ \|/);
    },
  );
});
