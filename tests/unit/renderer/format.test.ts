/** The renderer's display text: the reference report's spellings, and a unit on every number. */
import { describe, expect, it } from 'vitest';
import {
  fmtContext,
  fmtMs,
  fmtQueueEvidence,
  fmtSeconds,
  fmtTokPerSec,
  legendText,
  tokPerSec,
  cellName,
  LIVE_STAGE_WORDS,
  activeRequests,
  timeLeft,
} from '../../../src-renderer/src/format';
import { buildHeatmap } from '../../../src-renderer/src/charts/heatmap-model';
import { textColorOn, throughputColor } from '#shared/report/matrix-model';
import { measurementRows, sortRows } from '../../../src-renderer/src/features/results/measurements';
import { createSession } from '../../../src-main/platform/session/create';
import type { DecodeCell } from '#shared/session/schema';

const K = 1024;
const stats = (p50: number) => ({ p50, p90: p50 * 1.2, p99: p50 * 1.5, mean: p50 * 1.1 });

function cell(context: number, concurrency: number, over: Partial<DecodeCell> = {}): DecodeCell {
  return {
    context,
    concurrency,
    status: 'valid',
    reason: null,
    promptTokens: context,
    totalTokensPerSecond: 100,
    perRequestTokensPerSecond: 100 / concurrency,
    ttft: stats(0.05),
    timeBetweenTokens: stats(0.007),
    avgActiveRequests: concurrency,
    completedRequests: 0,
    outputTokens: 3000,
    windowSeconds: 30,
    readinessTimedOut: false,
    maxWaitingSeen: null,
    evidence: null,
    requests: null,
    telemetry: null,
    startedAt: null,
    finishedAt: null,
    ...over,
  };
}

describe('renderer formatting', () => {
  it('writes numbers as the reference report does', () => {
    expect(fmtTokPerSec(34_600)).toBe('34.6K');
    expect(fmtTokPerSec(2646.7)).toBe('2,646.7');
    expect(fmtMs(0.236)).toBe('236 ms');
    expect(fmtSeconds(30)).toBe('30.0 s');
    expect(fmtContext(8 * K)).toBe('8K');
    expect(fmtContext(251 * K)).toBe('251K');
  });

  it('adds the unit wherever a number stands alone', () => {
    expect(tokPerSec(34_600)).toBe('34.6K tok/s');
    expect(tokPerSec(2646.7)).toBe('2,646.7 tok/s');
    expect(tokPerSec(null)).toBe('—');
    expect(cellName({ context: 8 * K, concurrency: 1 })).toBe('8K context · 1 request at once');
    expect(cellName({ context: 251 * K, concurrency: 32 })).toBe('251K context · 32 requests at once');
  });

  it('explains each status in the legend words of the reports', () => {
    expect(legendText('looped')).toBe(
      'the model kept repeating the same text, so the benchmark discarded this measurement.',
    );
    expect(legendText('over-capacity')).toBe(
      "not run because this many requests at this context would exceed the server's KV cache.",
    );
  });
});

describe('heatmap model', () => {
  const cells = [
    cell(8 * K, 1, { totalTokensPerSecond: 141.4 }),
    cell(8 * K, 32, { totalTokensPerSecond: 2646.7, ttft: stats(0.247) }),
    cell(8 * K, 16, { status: 'looped', totalTokensPerSecond: null, reason: 'repeats' }),
  ];
  const plan = [{ context: 16 * K, concurrency: 32, status: 'over-capacity' as const, reason: 'needs more KV cache' }];
  const m = buildHeatmap([16 * K, 8 * K], [32, 1, 16], cells, plan);

  it('puts contexts in rows and concurrency in columns, both ascending', () => {
    expect(m.contexts).toEqual([8 * K, 16 * K]);
    expect(m.concurrency).toEqual([1, 16, 32]);
    expect(m.rows[0].map((c) => c.line1)).toEqual(['141.4 tok/s', 'Looped', '2,646.7 tok/s']);
    expect(m.rows[0][2].line2).toBe('247 ms TTFT');
  });

  it('greys planned-out cells with their reason and lists the statuses shown for the legend', () => {
    const over = m.rows[1][2];
    expect(over.kind).toBe('status');
    expect(over.line1).toBe('Over capacity');
    expect(over.reason).toBe('needs more KV cache');
    expect(m.rows[1][0].kind).toBe('empty');
    expect(m.statusesShown).toEqual(['looped', 'over-capacity']);
  });

  it('keeps the figures of a queued cell, flagged with its word', () => {
    const q = buildHeatmap(
      [8 * K],
      [8],
      [cell(8 * K, 8, { status: 'queued', totalTokensPerSecond: 880.5, ttft: stats(0.1) })],
    );
    expect(q.rows[0][0]).toMatchObject({
      kind: 'value',
      line1: '880.5 tok/s',
      line2: '100 ms TTFT',
      flag: 'Requests queued',
    });
    expect(q.statusesShown).toEqual(['queued']);
  });

  it('colours by total tok/s on the reports’ scale from zero, with readable text', () => {
    expect(m.max).toBe(2646.7);
    expect(m.rows[0][0].background).toBe(throughputColor(141.4, 2646.7));
    expect(m.rows[0][2].background).toBe(throughputColor(2646.7, 2646.7));
    expect(m.rows[0][0].foreground).toBe(textColorOn(m.rows[0][0].background as string));
    expect(m.rows[0][0].foreground).toBe('#111111');
    expect(m.rows[0][2].foreground).toBe('#ffffff');
  });

  it('gives figures a few percent apart nearly the same colour, not opposite ends of the scale', () => {
    const close = buildHeatmap(
      [8 * K],
      [1, 2],
      [cell(8 * K, 1, { totalTokensPerSecond: 127.8 }), cell(8 * K, 2, { totalTokensPerSecond: 137.4 })],
    );
    const [lo, hi] = close.rows[0].map((c) => c.background);
    expect(lo).toBe(throughputColor(127.8, 137.4));
    expect(hi).toBe(throughputColor(137.4, 137.4));
    const channels = (rgb: string) => (rgb.match(/[0-9a-f]{2}/gi) ?? []).map((h) => parseInt(h, 16));
    const gap = Math.max(...channels(lo as string).map((v, i) => Math.abs(v - channels(hi as string)[i])));
    expect(gap).toBeLessThan(30);
  });
});

describe('All measurements rows', () => {
  const s = createSession({
    prefill: [{ context: 8 * K, status: 'valid', promptTokens: 8192, ttftSeconds: 0.236, tokensPerSecond: 34_600 }],
    cells: [
      cell(8 * K, 32, {
        totalTokensPerSecond: 2646.7,
        perRequestTokensPerSecond: 82.9,
        ttft: stats(0.247),
        timeBetweenTokens: stats(0.0121),
        avgActiveRequests: 32,
        outputTokens: 79_392,
      }),
      cell(8 * K, 1, {
        totalTokensPerSecond: 141.4,
        perRequestTokensPerSecond: 142,
        outputTokens: 4243,
        completedRequests: 1,
      }),
      cell(16 * K, 128, {
        status: 'over-capacity',
        totalTokensPerSecond: null,
        perRequestTokensPerSecond: null,
        ttft: null,
        timeBetweenTokens: null,
        avgActiveRequests: null,
        completedRequests: null,
        outputTokens: null,
        windowSeconds: null,
      }),
    ],
  });
  const rows = measurementRows(s);

  it('has the reference columns and units, prefill first then decode in matrix order', () => {
    expect(rows[0].text).toEqual(['Prefill', '8K', '1', 'Valid', '34.6K', '—', '236 ms', '—', '—', '1', '—', '—']);
    expect(rows[1].text).toEqual([
      'Sustained decode',
      '8K',
      '1',
      'Valid',
      '141.4',
      '142.0',
      '50 ms',
      '7.0 ms',
      '1.0',
      '1',
      '4,243',
      '30.0 s',
    ]);
    expect(rows[2].text).toEqual([
      'Sustained decode',
      '8K',
      '32',
      'Valid',
      '2,646.7',
      '82.9',
      '247 ms',
      '12.1 ms',
      '32.0',
      '0',
      '79,392',
      '30.0 s',
    ]);
    expect(rows[3].text).toEqual([
      'Sustained decode',
      '16K',
      '128',
      'Over capacity',
      '—',
      '—',
      '—',
      '—',
      '—',
      '—',
      '—',
      '—',
    ]);
  });

  it('sorts by a column either way, missing values last', () => {
    const desc = sortRows(rows, { column: 'total', descending: true }).map((r) => r.key);
    expect(desc).toEqual(['p8192', 'd8192x32', 'd8192x1', 'd16384x128']);
    const asc = sortRows(rows, { column: 'total', descending: false }).map((r) => r.key);
    expect(asc).toEqual(['d8192x1', 'd8192x32', 'p8192', 'd16384x128']);
  });
});

describe('queue evidence in words (the cell detail)', () => {
  const scrapes = { scrapes: 30, waitingShare: 0.1, longestWaitingRun: 3, avgRunning: 15.96 };

  it("says what the scrapes, the client and vLLM's own queue time saw", () => {
    expect(
      fmtQueueEvidence({
        ...scrapes,
        clientInFlight: 16,
        clientTurnaroundSeconds: 0.004,
        scheduledRequests: 1480,
        meanQueueSeconds: 0.0084,
        preemptions: 0,
      }),
    ).toBe(
      'waiting in 10% of 30 checks (at most 3 in a row), 16.0 running on average, 16.0 in flight from the client (4 ms from a finished request to the next), 1,480 requests scheduled after 8 ms on average',
    );
    expect(fmtQueueEvidence({ ...scrapes, scheduledRequests: 40, meanQueueSeconds: 2.5, preemptions: 2 })).toBe(
      'waiting in 10% of 30 checks (at most 3 in a row), 16.0 running on average, 40 requests scheduled after 2,500 ms on average (2 preempted)',
    );
  });

  it('counts one scheduled request in the singular', () => {
    expect(fmtQueueEvidence({ ...scrapes, scheduledRequests: 1, meanQueueSeconds: 0, preemptions: 0 })).toMatch(
      /, 1 request scheduled after 0 ms on average$/,
    );
  });

  it('leaves out what a server or an older file did not record', () => {
    expect(fmtQueueEvidence(scrapes)).toBe('waiting in 10% of 30 checks (at most 3 in a row), 16.0 running on average');
    expect(fmtQueueEvidence(null)).toBe('—');
  });
});

describe('the live line in words', () => {
  it('counts active requests in the singular and plural, and never says "about 0 s left"', () => {
    expect(activeRequests(1)).toBe('1 active request');
    expect(activeRequests(3)).toBe('3 active requests');
    expect(timeLeft(0.3)).toBe('finishing');
    expect(timeLeft(0)).toBe('finishing');
    expect(timeLeft(75)).toBe('about 1 min 15 s left');
  });

  it('says what each stage of a cell does, not its internal name', () => {
    expect(LIVE_STAGE_WORDS.readiness).toBe('waiting for every request to run');
    expect(LIVE_STAGE_WORDS['idle-gate']).toBe('waiting for the server to go idle');
    for (const words of Object.values(LIVE_STAGE_WORDS)) expect(words).not.toMatch(/-|readiness/);
  });
});
