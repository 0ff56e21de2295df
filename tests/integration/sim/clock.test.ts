/**
 * The simulator keeps its own clock when its host does not let it run: the process is paused
 * (SIGSTOP) in the middle of a stream, as a busy machine would starve it, and the stream still ends
 * when the schedule says; only a pause beyond the catch-up limit is given up, /metrics counts it,
 * and the cells measured meanwhile are marked.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { MAX_CATCH_UP_MS } from '../../../src-main/engine/sim/engine';
import { SIM_LAG_METRIC } from '../../../src-main/engine/sim/metrics';
import { simTest } from '../../helpers/fixtures';
import { cellsOf, runBench, targetOf, tempDir } from '../bench/bench-helpers';
import { chatBody, filler, metric, post, scrape } from './client';

const it = simTest.override('simOptions', { scope: 'file' }, { speed: 1 });

/** Wall milliseconds from a stream's first token to its last, with the process paused `pauseMs` after `afterMs`. */
async function decodeMs(url: string, pid: number, seed: number, pause?: { afterMs: number; pauseMs: number }) {
  const stream = post(`${url}/v1/chat/completions`, {
    ...chatBody(filler(64, seed), { max_tokens: 600, ignore_eos: true }),
    stream: true,
  });
  if (pause) {
    await new Promise((r) => setTimeout(r, pause.afterMs));
    process.kill(pid, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, pause.pauseMs));
    process.kill(pid, 'SIGCONT');
  }
  const events = (await stream).events.filter((e) => e.json?.choices?.[0]?.delta?.content !== undefined);
  return events.at(-1)!.at - events[0].at;
}

describe("the simulator's clock", () => {
  it('a paused process catches up: the stream ends on schedule and nothing is counted as lost', async ({ sim }) => {
    const quiet = await decodeMs(sim.url, sim.pid, 1);
    expect(quiet).toBeGreaterThan(1500);
    const paused = await decodeMs(sim.url, sim.pid, 2, { afterMs: 600, pauseMs: 1000 });
    expect(paused - quiet).toBeLessThan(400);
    expect(metric(await scrape(sim.url), SIM_LAG_METRIC)).toBe(0);
  });

  it('a pause beyond the catch-up limit is given up and counted on /metrics', async ({ sim }) => {
    const before = metric(await scrape(sim.url), SIM_LAG_METRIC)!;
    const pauseMs = MAX_CATCH_UP_MS + 1000;
    await decodeMs(sim.url, sim.pid, 3, { afterMs: 600, pauseMs });
    const lost = metric(await scrape(sim.url), SIM_LAG_METRIC)! - before;
    expect(lost).toBeGreaterThan(0.7);
    expect(lost).toBeLessThan(1.6);
  });
});

describe('cells measured while the simulated server lagged', () => {
  it('are marked in the session and the report, and a quiet cell is not', async ({ launchSim }) => {
    const sim = await launchSim({ speed: 1, args: ['--max-model-len', '32768'] });
    const target = await targetOf(sim.url);
    let paused = false;
    const r = await runBench(
      target,
      {
        prefillContexts: [],
        warmup: false,
        contexts: [1024],
        concurrency: [2, 4],
        maxOutputTokens: 4096,
        secondsPerMeasurement: 8,
      },
      join(tempDir(), 's.speedmatrix.json'),
      {
        onEventAlso: (e) => {
          // Starve the server for longer than it catches up, inside the second cell's window.
          if (e.type !== 'phase' || e.phase !== 'window' || e.concurrency !== 4 || paused) return;
          paused = true;
          setTimeout(() => {
            process.kill(sim.pid, 'SIGSTOP');
            setTimeout(() => process.kill(sim.pid, 'SIGCONT'), MAX_CATCH_UP_MS + 1500);
          }, 2000);
        },
      },
    );
    const cells = cellsOf(r.session);
    expect(cells['1024x2'].simulatorLagSeconds).toBeUndefined();
    const lagged = cells['1024x4'].simulatorLagSeconds!;
    expect(lagged).toBeGreaterThan(1);
    expect(lagged).toBeLessThan(2.5);
    const report = renderMarkdownReport(r.session);
    expect(report).toMatch(/1K context × 4 at once: .*The simulated server fell [\d.]+ s behind its own clock/);
    expect(report).not.toMatch(/1K context × 2 at once/);
  }, 120_000);
});
