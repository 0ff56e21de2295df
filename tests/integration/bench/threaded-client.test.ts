/**
 * A decode cell whose streams are spread over worker threads (stream-shards.ts) measures what one thread measures:
 * every stream held and counted against the simulator's own record, each request's timings kept, the client's
 * health read over its threads; and what ends a cell in one thread (a loop, the server gone, failures) ends it whole.
 */
import { describe, expect } from 'vitest';
import { Interrupt, ServerClock } from '../../../src-main/engine/bench/clock';
import { type DecodeCellOutput, runDecodeCell } from '../../../src-main/engine/bench/decode';
import { createHttp } from '../../../src-main/engine/bench/http';
import { buildMessages } from '../../../src-main/engine/bench/prompts';
import { chatBody } from '../../../src-main/engine/bench/request-bodies';
import type { BenchEvent } from '../../../src-main/engine/bench/types';
import { simTest as it } from '../../helpers/fixtures';
import { ROOMY_PROFILE, ROOMY_STREAM_RATE } from '../../helpers/paths';
import { emittedBetween, simRequests, targetOf } from './bench-helpers';

interface CellRun {
  url: string;
  concurrency: number;
  threads: number;
  speed?: number;
  windowSeconds?: number;
  maxTokens?: number;
  /** Called at each phase the cell announces (a test acts at the window's start). */
  onPhase?: (phase: string) => void;
}

async function threadedCell(r: CellRun): Promise<{ out: DecodeCellOutput; events: BenchEvent[] }> {
  const http = createHttp(await targetOf(r.url));
  const events: BenchEvent[] = [];
  try {
    const out = await runDecodeCell({
      http,
      engine: 'vllm',
      metrics: true,
      clock: new ServerClock(r.speed ?? 1),
      context: 0,
      concurrency: r.concurrency,
      body: chatBody(http.model, buildMessages(`threads ${Date.now()}`, 0), r.maxTokens ?? 4096),
      windowSeconds: r.windowSeconds ?? 6,
      stallSeconds: 10,
      readinessTimeoutSeconds: 60,
      stop: new Interrupt(),
      emit: (e) => {
        events.push(e);
        if (e.type === 'phase') r.onPhase?.(e.phase);
      },
      threads: r.threads,
    });
    return { out, events };
  } finally {
    await http.agent.close();
  }
}

describe('a decode cell read over several threads', () => {
  it('holds every stream, counts the tokens the simulator emitted in the window, and keeps each request', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ profile: ROOMY_PROFILE, debug: true, args: ['--disable-uvicorn-access-log'] });
    const { out } = await threadedCell({ url: sim.url, concurrency: 90, threads: 3 });
    const { cell, window } = out;
    expect(cell.status, cell.reason ?? '').toBe('valid');
    expect(window).not.toBeNull();
    const reqs = await simRequests(sim.url);
    const truth = emittedBetween(reqs, window!.startMs, window!.endMs);
    expect(cell.outputTokens! / truth).toBeGreaterThan(0.97);
    expect(cell.outputTokens! / truth).toBeLessThan(1.03);
    expect(cell.totalTokensPerSecond! / (90 * ROOMY_STREAM_RATE)).toBeGreaterThan(0.97);
    expect(cell.totalTokensPerSecond! / (90 * ROOMY_STREAM_RATE)).toBeLessThan(1.03);
    expect(cell.avgActiveRequests).toBe(90);
    // Every request the simulator saw came back from its thread, with its id and timings, once.
    const ids = out.streams.map((s) => s.responseId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(reqs.length);
    expect(out.streams.every((s) => s.firstTokenAt >= s.sentAt && s.promptTokens > 0)).toBe(true);
    expect(cell.requests?.sentAt.length).toBe(reqs.length);
    expect(cell.clientHealth?.threads).toBe(3);
    expect(cell.clientHealth?.cpuSecondsPerToken).toBeGreaterThan(0);
  });

  it('a loop in one thread ends the whole cell as Looped, with the passage as evidence', async ({ launchSim }) => {
    const sim = await launchSim({ speed: 20, args: ['--sim-loop-after', '20', '--disable-uvicorn-access-log'] });
    const { out } = await threadedCell({ url: sim.url, concurrency: 4, threads: 2, speed: 20, windowSeconds: 10 });
    expect(out.cell.status).toBe('looped');
    expect(out.cell.evidence?.loopStream).toBe('content');
    expect(out.cell.evidence?.loopExcerpt?.length).toBeGreaterThan(20);
  });

  it('failed requests are replaced in every thread, logged once, and counted for the whole cell', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ speed: 20, args: ['--sim-500-share', '0.5', '--disable-uvicorn-access-log'] });
    const { out, events } = await threadedCell({ url: sim.url, concurrency: 4, threads: 2, speed: 20, maxTokens: 64 });
    expect(out.cell.status).toBe('error');
    expect(out.cell.reason).toMatch(/\d+ of \d+ requests (in the window )?failed.*HTTP 500/);
    const failureLogs = events.filter((e) => e.type === 'log' && /a request failed and was replaced/.test(e.message));
    expect(failureLogs).toHaveLength(1);
  });

  it('the server going away mid-window ends the whole cell as an Error with the connection lost', async ({
    launchSim,
  }) => {
    const sim = await launchSim({ profile: ROOMY_PROFILE, args: ['--disable-uvicorn-access-log'] });
    let killed = false;
    const { out } = await threadedCell({
      url: sim.url,
      concurrency: 8,
      threads: 2,
      windowSeconds: 30,
      onPhase: (phase) => {
        if (phase !== 'window' || killed) return;
        killed = true;
        setTimeout(() => process.kill(-sim.pid, 'SIGKILL'), 500);
      },
    });
    expect(killed).toBe(true);
    expect(out.connectionLost).toBe(true);
    expect(out.cell.status).toBe('error');
    expect(out.cell.reason).toMatch(/closed the connection|Connection refused/);
  });
});
