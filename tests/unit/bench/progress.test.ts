import { describe, expect, it } from 'vitest';
import { unmeasuredCell, unmeasuredPrefill } from '../../../src-main/engine/bench/cells';
import { planRun } from '../../../src-main/engine/bench/plan';
import { ProgressPrinter } from '../../../src-main/engine/bench/progress';
import type { BenchEvent } from '../../../src-main/engine/bench/types';
import type { DecodeCell } from '#shared/session/schema';

// Built inside the test that uses it, so a mutation run knows which test covers the plan.
const smallPlan = () =>
  planRun(
    { contexts: [8192], concurrency: [1, 2] },
    {
      maxModelLen: 32768,
      kvBudget: { tokens: 1_000_000, source: 'user', detail: null, maxConcurrency: null, tokensPerRequest: null },
    },
  );
const valid: DecodeCell = {
  ...unmeasuredCell(8192, 2, 'valid', null),
  totalTokensPerSecond: 2646.7,
  perRequestTokensPerSecond: 1323.35,
  ttft: { p50: 0.247, p90: 0.3, p99: 0.4, mean: 0.25 },
  timeBetweenTokens: { p50: 0.0121, p90: 0.013, p99: 0.014, mean: 0.0122 },
  requests: {
    sentAt: [0],
    firstTokenAt: [0.2],
    lastTokenAt: [30],
    outputTokens: [100],
    windowTokens: [100],
    promptTokens: [8192],
    outcome: ['cancelled'],
  },
};

function print(mode: 'plain' | 'json', events: BenchEvent[]): string {
  let out = '';
  const p = new ProgressPrinter(mode, { write: (t) => (out += t) });
  for (const e of events) p.handle(e);
  return out;
}

describe('progress output', () => {
  it('plain: the plan, then one line per finished cell with its figures and units', () => {
    const out = print('plain', [
      { type: 'plan', plan: smallPlan(), alreadyDone: 0, doneCells: [], donePrefill: [] },
      { type: 'cell-start', context: 8192, concurrency: 2, index: 2, total: 2, etaSeconds: 40 },
      {
        type: 'sample',
        context: 8192,
        concurrency: 2,
        stage: 'window',
        tokensPerSecond: 2600,
        activeRequests: 2,
        waitingRequests: 0,
        tokens: 100,
        elapsedSeconds: 1,
      },
      { type: 'cell-done', cell: valid, index: 2, total: 2, etaSeconds: 0 },
      {
        type: 'cell-done',
        cell: unmeasuredCell(8192, 4, 'looped', 'the model kept repeating the same text'),
        index: 3,
        total: 3,
        etaSeconds: 0,
      },
    ]);
    expect(out).toMatch(
      /^Plan: 2 cells \(2 to run, 0 over capacity, 0 too long, 0 skipped\), prefill at 8K, about \d+ min \d+ s\.\n/,
    );
    expect(out).toMatch(/\.\.\. 8K × 2  \(cell 2\/2, (\d+ min )?\d+ s elapsed, ETA (\d+ min )?\d+ s\)/);
    expect(out).toContain('cell 2/2  8K × 2  Valid  2,646.7 tok/s  TTFT 247 ms  between tokens 12.1 ms');
    expect(out).toContain('cell 3/3  8K × 4  Looped  (the model kept repeating the same text)');
    expect(out).not.toContain('\r'); // no bar without a TTY
  });

  it('a valid cell whose client was busy says so on its line; a quiet one, or another note of a valid cell, does not', () => {
    const busy = { loopDelayP99Seconds: 0.05, loopDelayMaxSeconds: 0.08, runDelayShare: 0.4, cpuSecondsPerToken: 3e-6 };
    const quiet = { ...busy, loopDelayP99Seconds: 0.001, runDelayShare: 0.01 };
    const done = (cell: DecodeCell) => print('plain', [{ type: 'cell-done', cell, index: 1, total: 1, etaSeconds: 0 }]);
    expect(done({ ...valid, clientHealth: busy, reason: 'the client was busy: …' })).toBe(
      'cell 1/1  8K × 2  Valid  2,646.7 tok/s  TTFT 247 ms  between tokens 12.1 ms  (the client was busy: event loop delayed p99 50 ms (max 80 ms), waited 40% of the window for a CPU, 3.0 µs of CPU per token; figures may be low)\n',
    );
    expect(done({ ...valid, clientHealth: quiet, reason: '1 of 100 requests in the window failed' })).toBe(
      'cell 1/1  8K × 2  Valid  2,646.7 tok/s  TTFT 247 ms  between tokens 12.1 ms\n',
    );
  });

  it('a prefill line counts its prompt tokens with a thousands separator, as every other count', () => {
    const out = print('plain', [
      {
        type: 'prefill-done',
        result: {
          ...unmeasuredPrefill(8192, 'valid', null),
          promptTokens: 8160,
          ttftSeconds: 0.258,
          tokensPerSecond: 31628,
        },
      },
    ]);
    expect(out).toBe('prefill 8K  31.6K tok/s  TTFT 258 ms  (8,160 prompt tokens)\n');
  });

  it('json: one event per line, per-request arrays left out', () => {
    const out = print('json', [{ type: 'cell-done', cell: valid, index: 1, total: 1, etaSeconds: 0 }]);
    const lines = out.trim().split('\n');
    expect(lines.length).toBe(1);
    const e = JSON.parse(lines[0]);
    expect(e.type).toBe('cell-done');
    expect(e.cell.totalTokensPerSecond).toBe(2646.7);
    expect(e.cell.requests).toBeUndefined();
  });
});
