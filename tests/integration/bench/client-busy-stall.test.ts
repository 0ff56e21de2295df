/**
 * A stream is failed as stalled only for the server's silence, not the client's: when the client's own event loop
 * is held up longer than the stall limit while the server goes on streaming, the bytes wait in its sockets, and the
 * stall check (a timer, run before I/O) must not fail streams whose tokens are there to read. This was seen as "the
 * simulator stops emitting tokens mid-run" on a loaded machine while the simulator's log showed it streaming.
 */
import { describe, expect } from 'vitest';
import { Interrupt, ServerClock } from '../../../src-main/engine/bench/clock';
import { runDecodeCell } from '../../../src-main/engine/bench/decode';
import { createHttp } from '../../../src-main/engine/bench/http';
import { buildMessages } from '../../../src-main/engine/bench/prompts';
import type { BenchEvent } from '../../../src-main/engine/bench/types';
import { simTest as it } from '../../helpers/fixtures';
import { getJson } from '../sim/client';
import { targetOf } from './bench-helpers';

const SPEED = 10;

/** Holds this process's event loop, as a starved or busy client is held. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('stall check against a busy client', () => {
  it('a client held up 1.5 s (15 server seconds, over the 5 s stall limit) fails no stream; the server never paused', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ speed: SPEED, debug: true, args: ['--disable-uvicorn-access-log'] });
    const http = createHttp(await targetOf(sim.url));
    const events: BenchEvent[] = [];
    let held = false;
    const out = await runDecodeCell({
      http,
      engine: 'vllm',
      // Without /metrics the stall check runs straight after its timer: the case where the old check failed streams.
      metrics: false,
      clock: new ServerClock(SPEED),
      context: 0,
      concurrency: 2,
      body: JSON.stringify({
        model: http.model,
        messages: buildMessages(`busy client ${Date.now()}`, 0),
        max_tokens: 4096,
        stream: true,
        ignore_eos: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      }),
      windowSeconds: 40,
      stallSeconds: 5,
      readinessTimeoutSeconds: 60,
      stop: new Interrupt(),
      emit: (e) => {
        events.push(e);
        if (e.type === 'phase' && e.phase === 'window' && !held) {
          held = true;
          // Held in the check phase: the next loop turn runs its due timers (the stall check) before reading sockets.
          setTimeout(() => setImmediate(() => busyFor(1500)), 1000);
        }
      },
    });
    expect(held).toBe(true);
    const warnings = events.filter((e) => e.type === 'log' && /No token for/.test(e.message));
    expect(warnings).toEqual([]);
    expect(out.streams.filter((s) => s.outcome === 'error').map((s) => s.error)).toEqual([]);
    expect(out.cell.failedRequests ?? 0).toBe(0);
    // The server did stream meanwhile: its own record has no gap anywhere near the hold.
    const truth = (await getJson(`${sim.url}/sim/requests`)).json.requests as { emissions: [number, number][] }[];
    const longest = Math.max(...truth.flatMap((r) => r.emissions.slice(1).map((e, i) => e[0] - r.emissions[i][0])));
    expect(longest).toBeLessThan(1000);
  });
});
