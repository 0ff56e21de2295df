/** The engine's event stream merged for the renderer: nothing finished is dropped, live samples coalesce. */
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchEvent } from '../../../src-main/engine/bench';
import { planRun } from '../../../src-main/engine/bench';
import type { RunUpdate } from '#shared/ipc/contract';
import { RunUpdates } from '../../../src-main/hosts/app-core/run-updates';
import { cellKey } from '#shared/cell-key';
import type { DecodeCell, PrefillResult, RequestSamples } from '#shared/session/schema';

const K = 1024;
const kv = {
  tokens: 100_000,
  source: 'metrics-cache-config' as const,
  detail: null,
  maxConcurrency: null,
  tokensPerRequest: null,
};
const plan = planRun(
  { contexts: [8 * K, 16 * K], concurrency: [1, 8], maxOutputTokens: 2048, secondsPerMeasurement: 10 },
  { maxModelLen: 32768, kvBudget: kv },
);
const cell = (context: number, concurrency: number) =>
  ({ context, concurrency, status: 'valid', totalTokensPerSecond: 100 }) as DecodeCell;
const sample = (n: number): BenchEvent => ({
  type: 'sample',
  context: 8 * K,
  concurrency: 1,
  stage: 'window',
  tokensPerSecond: n,
  activeRequests: 1,
  waitingRequests: 0,
  tokens: n,
  elapsedSeconds: 1,
});

let updates: RunUpdates | null = null;
afterEach(() => updates?.dispose());

describe('RunUpdates', () => {
  it('turns the plan into the grid the Run view shows, over-capacity cells with their reason', () => {
    const out: RunUpdate[] = [];
    updates = new RunUpdates((u) => out.push(u), 10_000);
    updates.push({ type: 'plan', plan, alreadyDone: 0, doneCells: [], donePrefill: [] });
    updates.flush();
    const p = out[0].plan;
    expect(p?.cells.map((c) => `${c.context}x${c.concurrency}:${c.status}`)).toEqual([
      '8192x1:run',
      '8192x8:run',
      '16384x1:run',
      '16384x8:over-capacity',
    ]);
    expect(p?.cells[3].reason).toMatch(/exceeds the KV cache budget of 100,000 tokens/);
    expect(out[0].progress).toMatchObject({ done: 0, total: 3, unit: 'cell' });
    expect(out[0].progress?.etaSeconds).toBeCloseTo(plan.etaSeconds, 0);
    // The page shows the time elapsed since the plan beside the ETA.
    expect(Date.now() - out[0].progress!.startedAtMs!).toBeLessThan(60_000);
  });

  it("shows the plan's warnings and the orchestrator's notes under the plan, whichever comes first", () => {
    const out: RunUpdate[] = [];
    const unknown = planRun(
      { contexts: [8 * K], concurrency: [1] },
      { maxModelLen: null, kvBudget: { ...kv, tokens: null, source: 'unknown' } },
    );
    const remote = "The server is not on this machine: this machine's GPU is not sampled.";
    updates = new RunUpdates((u) => out.push(u), 10_000);
    updates.begin();
    updates.addNotes([remote]);
    updates.push({ type: 'plan', plan: unknown, alreadyDone: 0, doneCells: [], donePrefill: [] });
    updates.addNotes(['32K + 4096 output tokens exceeds max_model_len: those cells are marked Too long and not run.']);
    updates.flush();
    expect(out.at(-1)?.plan?.notes).toEqual([
      'The KV cache budget is unknown, so no cell could be marked Over capacity in advance.',
      'The server did not report max_model_len, so no cell could be marked Too long in advance.',
      remote,
      '32K + 4096 output tokens exceeds max_model_len: those cells are marked Too long and not run.',
    ]);
    // A new run starts without the last one's notes.
    updates.begin();
    updates.push({ type: 'plan', plan, alreadyDone: 0, doneCells: [], donePrefill: [] });
    updates.flush();
    expect(out.at(-1)?.plan?.notes).toEqual([]);
  });

  it('counts measurements, not cells, when each cell is repeated', () => {
    const out: RunUpdate[] = [];
    const repeated = planRun(
      { contexts: [8 * K, 16 * K], concurrency: [1, 8], maxOutputTokens: 2048, secondsPerMeasurement: 10, repeat: 3 },
      { maxModelLen: 32768, kvBudget: kv },
    );
    updates = new RunUpdates((u) => out.push(u), 10_000);
    updates.push({ type: 'plan', plan: repeated, alreadyDone: 0, doneCells: [], donePrefill: [] });
    updates.flush();
    expect(out[0].progress).toMatchObject({ done: 0, total: 9, unit: 'measurement' });
  });

  it('sends one message per interval: every finished cell, only the newest live sample', async () => {
    const out: RunUpdate[] = [];
    updates = new RunUpdates((u) => out.push(u), 50);
    updates.begin();
    updates.push({ type: 'plan', plan, alreadyDone: 0, doneCells: [], donePrefill: [] });
    updates.push({ type: 'cell-start', context: 8 * K, concurrency: 1, index: 0, total: 3, etaSeconds: 5 });
    for (let i = 1; i <= 100; i++) updates.push(sample(i));
    updates.push({ type: 'cell-done', cell: cell(8 * K, 1), index: 0, total: 3, etaSeconds: 4 }, 5);
    updates.push({ type: 'cell-start', context: 8 * K, concurrency: 8, index: 1, total: 3, etaSeconds: 4 });
    updates.push(sample(777));
    await new Promise((r) => setTimeout(r, 120));
    expect(out).toHaveLength(1);
    expect(out[0].phase).toBe('decode');
    expect(out[0].cells.map((c) => c.concurrency)).toEqual([1]);
    expect(out[0].revisions).toEqual({ from: 4, to: 5 });
    expect(out[0].live?.tokensPerSecond).toBe(777);
    expect(out[0].progress).toMatchObject({ done: 1, total: 3 });
    expect(out[0].progress?.etaSeconds).toBeLessThan(plan.etaSeconds);
    // A snapshot (a reloaded renderer) carries the run's state; its cells are in the session it fetches.
    expect(updates.snapshot()).toMatchObject({ phase: 'decode', cells: [], prefill: [], revisions: null });
  });

  it('stamps an update with the session revisions its cells and points span, never across a replacement', () => {
    const out: RunUpdate[] = [];
    updates = new RunUpdates((u) => out.push(u), 10_000);
    updates.begin();
    const point = { context: 8 * K, status: 'valid', tokensPerSecond: 1 } as PrefillResult;
    updates.push({ type: 'prefill-done', result: point }, 3);
    updates.push({ type: 'cell-done', cell: cell(8 * K, 1), index: 0, total: 3, etaSeconds: 4 }, 4);
    // The session owner replaced its session at revision 5: what came before goes out on its own.
    updates.push({ type: 'cell-done', cell: cell(8 * K, 8), index: 1, total: 3, etaSeconds: 2 }, 6);
    // No session took it: the page has nothing to apply it to.
    updates.push({ type: 'cell-done', cell: cell(16 * K, 1), index: 2, total: 3, etaSeconds: 1 }, null);
    updates.flush();
    expect(out.map((u) => [u.revisions, u.cells.map(cellKey), u.prefill.map((p) => p.context)])).toEqual([
      [{ from: 2, to: 4 }, ['8192x1'], [8 * K]],
      [{ from: 5, to: 6 }, ['8192x8'], []],
    ]);
    expect(out[1].progress?.done).toBe(3);
  });

  it('sends a cell without its per-request samples, and how many it holds', () => {
    const out: RunUpdate[] = [];
    updates = new RunUpdates((u) => out.push(u), 10_000);
    updates.begin();
    const requests = { sentAt: [0, 0.5, 1] } as unknown as RequestSamples;
    updates.push({ type: 'cell-done', cell: { ...cell(8 * K, 2), requests }, index: 0, total: 1, etaSeconds: 0 }, 1);
    updates.flush();
    expect(out[0].cells[0].requests).toBeNull();
    expect(out[0].requestCounts).toEqual({ '8192x2': 3 });
  });

  it('ends with the outcome in words, at once', () => {
    const out: RunUpdate[] = [];
    updates = new RunUpdates((u) => out.push(u), 10_000);
    updates.begin();
    updates.push({
      type: 'run-done',
      outcome: 'cancelled',
      session: { cells: [cell(8 * K, 1)] } as never,
      sessionFile: null,
      counts: {},
    });
    expect(out.at(-1)).toMatchObject({
      phase: 'cancelled',
      live: null,
      message: 'The run was stopped; finished cells are kept.',
    });
  });
});
