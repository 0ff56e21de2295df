/**
 * Statuses from the simulator's fault switches: Looped with evidence, Error with the server's
 * reason for malformed chunks, error events, HTTP 500s, hangs and crashes; the run goes on.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { RunConfigInput } from '../../../src-main/engine/bench/types';
import { type LaunchSim, simTest as it } from '../../helpers/fixtures';
import { cellsOf, runBench, targetOf, tempDir } from './bench-helpers';

const SPEED = 20;
const small: RunConfigInput = {
  contexts: [0],
  concurrency: [1, 2],
  prefillContexts: [],
  secondsPerMeasurement: 5,
  simSpeed: SPEED,
  warmup: false,
  stallSeconds: 10,
};

async function runWith(launchSim: LaunchSim, args: string[], config: RunConfigInput = small, outcome = 'completed') {
  const sim = await launchSim({ speed: SPEED, args: ['--served-model-name', 'fara', ...args] });
  const target = await targetOf(sim.url);
  const r = await runBench(target, config, join(tempDir(), 'f.speedmatrix.json'));
  const runDone = r.events.find((e) => e.type === 'run-done');
  expect(runDone && runDone.type === 'run-done' ? runDone.outcome : null).toBe(outcome);
  return r;
}

describe('fault switches give the right status and the run goes on', () => {
  it('loop switch -> Looped, with the repeating passage as evidence (only at the chosen concurrency)', async ({
    launchSim,
  }) => {
    const r = await runWith(launchSim, ['--sim-loop-after', '20', '--sim-loop-concurrency', '2'], {
      ...small,
      secondsPerMeasurement: 10,
    });
    const c = cellsOf(r.session);
    expect(c['0x1'].status).toBe('valid');
    const looped = c['0x2'];
    expect(looped.status).toBe('looped');
    expect(looped.totalTokensPerSecond).toBeNull(); // the measurement is discarded
    expect(looped.evidence?.loopStream).toBe('content');
    expect(looped.evidence?.loopPeriodChars).toBeGreaterThan(0);
    expect(looped.evidence?.loopExcerpt?.length).toBeGreaterThan(20);
    expect(looped.reason).toMatch(/repeating/);
  });

  it('a loop in the reasoning text of a thinking model -> Looped, with the reasoning as evidence', async ({
    launchSim,
  }) => {
    // Every token is reasoning text; the content stays empty, so only the reasoning check can fire.
    const r = await runWith(launchSim, ['--sim-reasoning-tokens', '1000000', '--sim-loop-after', '20'], {
      ...small,
      concurrency: [1],
      secondsPerMeasurement: 10,
    });
    const looped = cellsOf(r.session)['0x1'];
    expect(looped.status).toBe('looped');
    expect(looped.evidence?.loopStream).toBe('reasoning');
    expect(looped.evidence?.loopPeriodChars).toBeGreaterThan(0);
    expect(looped.reason).toMatch(/repeating .* in its reasoning/);
  });

  it('malformed chunk -> Error naming the malformed stream, for every cell', async ({ launchSim }) => {
    const r = await runWith(launchSim, ['--sim-malformed-chunk-after-tokens', '20']);
    for (const cell of r.session.cells) {
      expect(cell.status).toBe('error');
      expect(cell.reason).toMatch(/Malformed stream/);
    }
    expect(r.session.cells.length).toBe(2);
  });

  it("error event in the stream -> Error with the server's message", async ({ launchSim }) => {
    const r = await runWith(launchSim, ['--sim-error-event-after-tokens', '20']);
    // Every request fails after 20 tokens: far more than 10% of them.
    for (const cell of r.session.cells) {
      expect(cell.status).toBe('error');
      expect(cell.reason).toMatch(/requests (in the window )?failed.*error in the stream: .+/);
      expect(cell.failedRequests).toBeGreaterThan(0);
    }
  });

  it('HTTP 500s on every second request -> Error with the count, the status and message', async ({ launchSim }) => {
    // Short requests, so that many start (and half fail) inside the window.
    const r = await runWith(launchSim, ['--sim-500-share', '0.5'], {
      ...small,
      concurrency: [2, 4],
      maxOutputTokens: 64,
    });
    const reasons = r.session.cells.map((c) => `${c.status}: ${c.reason}`);
    for (const x of reasons) expect(x).toMatch(/^error: \d+ of \d+ requests (in the window )?failed.*HTTP 500/);
  });

  it('hang -> Error "no token for N s", and the next cells still run', async ({ launchSim }) => {
    // 0x1 makes ~1,900 tokens in its 13 s (ramp + window); the hang comes early in 0x2.
    const r = await runWith(launchSim, ['--sim-hang-after-tokens', '2500'], {
      ...small,
      concurrency: [1, 2, 4],
      secondsPerMeasurement: 10,
      stallSeconds: 3,
    });
    const c = cellsOf(r.session);
    expect(c['0x1'].status).toBe('valid');
    expect(c['0x2'].status).toBe('error');
    // A stall of 3 s once streaming; or, if no stream had its first token yet, an empty window.
    expect(c['0x2'].reason).toMatch(/No token for 3 s|No token arrived during the whole/);
    expect(c['0x4'].status).toBe('error');
  });

  it('crash of an attached server -> Error (connection lost), then the run stops cleanly, later cells left for a resume', async ({
    launchSim,
  }) => {
    const r = await runWith(
      launchSim,
      ['--sim-crash-after-tokens', '2500'],
      { ...small, concurrency: [1, 2, 4], secondsPerMeasurement: 10 },
      'failed',
    );
    const c = cellsOf(r.session);
    expect(c['0x1'].status).toBe('valid');
    expect(c['0x2'].status).toBe('error');
    expect(c['0x2'].reason).toMatch(/went down/);
    expect(c['0x4']).toBeUndefined();
  });
});
