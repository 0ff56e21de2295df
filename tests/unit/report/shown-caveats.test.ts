/**
 * What a figure stands on, said wherever it is shown: a prefill point's caveats (the client's
 * delay, the time cap) as one list for the exports' notes and the app's prefill section, and a
 * repeated cell's requests: every repetition's kept, pooled in the histograms and drawn one
 * timeline per repetition over its own window rather than the mean window, all labelled.
 */
import { describe, expect, it } from 'vitest';
import { buildReportModel } from '#shared/report/report-model';
import { requestsView } from '#shared/report/requests';
import { withoutSamples } from '#shared/session/cells';
import { cellTimeline } from '#shared/report/timeline';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { foldRepetition } from '../../../src-main/engine/bench/repetitions';
import { SessionSchema, type DecodeCell } from '#shared/session/schema';
import { renderRequestsJsonl } from '../../../src-main/workflows/report/data-export';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

describe('a prefill point’s caveats', () => {
  it('lists the client delay and the time cap of each point, the same for the app and the exports', () => {
    const s = sampleSession();
    s.prefill[0] = {
      ...s.prefill[0],
      reason:
        'this machine kept the client from running for 3.2% of the time to first token in a kept measurement (after 2 retakes), so the figure may read up to that much low',
    };
    s.prefill[1] = {
      ...s.prefill[1],
      precision: { measurements: 1, halfWidthRelative: null, stopReason: 'max-duration' },
    };
    const m = buildReportModel(s);
    expect(m.prefillNotes).toEqual([
      'Prefill at 8K: Valid: this machine kept the client from running for 3.2% of the time to first token in a kept measurement (after 2 retakes), so the figure may read up to that much low.',
      'Prefill at 16K: Valid: measured 1 time before the time cap stopped it, short of the precision.',
    ]);
    expect(m.cellNotes.slice(0, 2)).toEqual(m.prefillNotes);
    expect(buildReportModel(sampleSession()).prefillNotes).toEqual([]);
  });
});

/** `n` requests sent at the window's start, each lasting `seconds`. */
function withRequests(cell: DecodeCell, seconds: number, n = 4): DecodeCell {
  return {
    ...cell,
    windowSeconds: seconds,
    requests: {
      sentAt: Array(n).fill(0),
      firstTokenAt: Array(n).fill(0.1),
      lastTokenAt: Array(n).fill(seconds),
      outputTokens: Array(n).fill(100),
      windowTokens: Array(n).fill(100),
      promptTokens: Array(n).fill(8192),
      outcome: Array(n).fill('done'),
    },
  };
}

describe('a repeated cell’s requests', () => {
  // Repetition 1 measured 30 s with 4 requests, repetition 2 10 s with 3: the mean window is 20 s.
  const first = foldRepetition(undefined, withRequests(sampleCell(8192, 4), 30), 1, 2);
  const cell = foldRepetition(first, withRequests(sampleCell(8192, 4), 10, 3), 2, 2);
  // A file written before every repetition's requests were kept.
  const { repetitionRequests: _dropped, ...older } = cell;

  it('are kept for every repetition, each once, with its own window', () => {
    expect(cell.requests?.sentAt).toHaveLength(3);
    expect(cell.repetitionRequests).toEqual([{ repetition: 1, windowSeconds: 30, requests: first.requests }]);
    expect(SessionSchema.parse({ ...sampleSession(), cells: [cell] }).cells[0].repetitionRequests).toHaveLength(1);
  });

  it('of a repetition measured again (a resume) replace its earlier ones, and leave the page’s session', () => {
    const cancelled = {
      ...withRequests(sampleCell(8192, 4), 5, 2),
      status: 'cancelled' as const,
      totalTokensPerSecond: null,
    };
    const stopped = foldRepetition(first, cancelled, 2, 2);
    // Repetition 1 still has the figures, so `requests` stays its; the cancelled one's are kept beside it.
    expect(stopped.requests).toEqual(first.requests);
    expect(stopped.repetitionRequests?.map((r) => [r.repetition, r.requests.sentAt.length])).toEqual([[2, 2]]);
    const resumed = foldRepetition(stopped, withRequests(sampleCell(8192, 4), 10, 3), 2, 2);
    expect(resumed.requests?.sentAt).toHaveLength(3);
    expect(resumed.repetitionRequests).toEqual([{ repetition: 1, windowSeconds: 30, requests: first.requests }]);
    const page = withoutSamples([resumed]);
    expect(page.cells[0].requests).toBeNull();
    expect(page.cells[0]).not.toHaveProperty('repetitionRequests');
    expect(page.requestCounts).toEqual({ '8192x4': 7 });
  });

  it('are pooled in the histograms and drawn repetition by repetition, each over its own window', () => {
    expect(cell.windowSeconds).toBe(20);
    const view = requestsView(cell);
    expect(view.label).toBe(
      "Requests of all 2 repetitions (pooled); the cell's figures are the means over the repetitions with figures.",
    );
    expect(view.pooled).toHaveLength(7);
    expect(view.sets.map((s) => [s.repetition, s.windowSeconds, s.requests?.sentAt.length, s.label])).toEqual([
      [1, 30, 4, 'Repetition 1 of 2 · 30.0 s'],
      [2, 10, 3, 'Repetition 2 of 2 · 10.0 s'],
    ]);
    for (const set of view.sets) {
      const timeline = cellTimeline(set.requests, set.windowSeconds, null)!;
      // The bars end where the window ends: no empty stretch to a mean length they never ran to.
      expect(timeline.window!.end).toBeCloseTo(Math.max(...timeline.bars.map((b) => b.end)), 5);
    }
    expect(requestsView(sampleCell(8192, 4)).label).toBeNull();
  });

  it('of an older file that kept the latest repetition only are labelled so, over its own window', () => {
    const view = requestsView(older);
    expect(view.label).toBe(
      "Requests of repetition 2 of 2 only (the latest with figures; the others' requests were not kept), over its own window; the cell's figures are the means over all 2.",
    );
    expect(view.sets).toHaveLength(1);
    expect(view.sets[0].windowSeconds).toBe(10);
    expect(view.pooled).toHaveLength(3);
  });

  it('are drawn per repetition in the HTML report, and exported with their repetition', () => {
    const s = sampleSession();
    s.cells = [cell];
    const html = renderHtmlReport(s);
    expect(html).toContain('Repetition 1 of 2 · 30.0 s');
    expect(html).toContain('Repetition 2 of 2 · 10.0 s');
    expect(html).toContain('8K context × 4 at once: 7 requests');
    const lines = renderRequestsJsonl(s)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { repetition: number });
    expect(lines.map((l) => l.repetition)).toEqual([1, 1, 1, 1, 2, 2, 2]);
    s.cells = [older];
    expect(renderHtmlReport(s)).toContain('Requests of repetition 2 of 2 only');
  });
});
