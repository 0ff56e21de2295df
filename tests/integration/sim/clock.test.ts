/**
 * The simulator keeps its own clock: steps are paced by absolute deadlines, so a process the host stops for a while
 * catches up what it can (up to MAX_CATCH_UP_MS), gives up the rest, and says how much in /metrics and the log.
 * The host's stall is made real: the simulator process is stopped with SIGSTOP mid-decode.
 */
import { describe, expect } from 'vitest';
import { MAX_CATCH_UP_MS } from '../../../src-main/engine/sim/engine';
import { SIM_LAG_METRIC } from '../../../src-main/engine/sim/metrics';
import { simTest as it } from '../../helpers/fixtures';
import { filler, getJson, metric, post, scrape } from './client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the simulator’s own clock', () => {
  it('a 1.5 s host stall mid-decode: up to the catch-up limit is caught up, the rest is counted in /metrics and the log', async ({
    launchSim,
  }) => {
    const h = await launchSim({ debug: true, args: ['--disable-uvicorn-access-log'] });
    // Warm the path (a fresh process's first request pays for JIT), as a run's warm-up does.
    await post(`${h.url}/v1/completions`, { prompt: filler(64, 9), max_tokens: 2 });
    await fetch(`${h.url}/sim/requests`, { method: 'DELETE' });
    expect(metric(await scrape(h.url), SIM_LAG_METRIC)).toBe(0);

    // About 7.3 ms a step at speed 1: 700 tokens take about 5 s.
    const done = post(`${h.url}/v1/completions`, {
      prompt: filler(8192),
      max_tokens: 700,
      ignore_eos: true,
      stream: true,
    });
    await sleep(1500);
    const stallMs = 1500;
    process.kill(h.pid, 'SIGSTOP');
    await sleep(stallMs);
    process.kill(h.pid, 'SIGCONT');
    const r = await done;
    expect(r.status).toBe(200);

    const lost = metric(await scrape(h.url), SIM_LAG_METRIC)!;
    // Speed 1: simulated seconds are wall seconds. The machine's own scheduling may add a little.
    const expected = (stallMs - MAX_CATCH_UP_MS) / 1000;
    expect(lost).toBeGreaterThan(expected * 0.8);
    expect(lost).toBeLessThan(expected + 0.4);

    // The decode took the model's time plus only what was given up: the caught-up part did not push later steps.
    const rec = (await getJson(`${h.url}/sim/requests`)).json.requests[0];
    expect(rec.completion_tokens).toBe(700);
    const decodeMs = rec.emissions.at(-1)[0] - rec.first_token_ms;
    const modelMs = 699 * 7.3;
    expect(decodeMs - lost * 1000).toBeGreaterThan(modelMs * 0.95);
    expect(decodeMs - lost * 1000).toBeLessThan(modelMs * 1.1);

    // The log says so within its 10 s period.
    const deadline = Date.now() + 12_000;
    while (!/fell behind its own clock/.test(h.logs()) && Date.now() < deadline) await sleep(250);
    expect(h.logs()).toMatch(/WARNING .*Simulated engine fell behind its own clock: \d+\.\d+ simulated seconds/);
  });

  it('a 400 ms host stall (as four CPU hogs on two cores cause) is caught up whole: nothing is given up', async ({
    launchSim,
  }) => {
    const h = await launchSim({ debug: true, args: ['--disable-uvicorn-access-log'] });
    await post(`${h.url}/v1/completions`, { prompt: filler(64, 9), max_tokens: 2 });
    await fetch(`${h.url}/sim/requests`, { method: 'DELETE' });
    const done = post(`${h.url}/v1/completions`, {
      prompt: filler(8192),
      max_tokens: 400,
      ignore_eos: true,
      stream: true,
    });
    await sleep(1000);
    process.kill(h.pid, 'SIGSTOP');
    await sleep(400);
    process.kill(h.pid, 'SIGCONT');
    expect((await done).status).toBe(200);
    expect(metric(await scrape(h.url), SIM_LAG_METRIC)).toBe(0);
    // The decode took the model's time: the stall did not push the steps after it.
    const rec = (await getJson(`${h.url}/sim/requests`)).json.requests[0];
    const decodeMs = rec.emissions.at(-1)[0] - rec.first_token_ms;
    expect(decodeMs).toBeLessThan(399 * 7.3 * 1.1);
  });
});
