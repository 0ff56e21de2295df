/**
 * What a figure stands on, said wherever it is shown: a prefill point's caveats (the client's
 * delay, the time cap) as one list for the exports' notes and the app's prefill section, and a
 * repeated cell's requests (histograms, timeline) labelled as the one repetition they come from,
 * drawn over that repetition's own window rather than the mean window.
 */
import { describe, expect, it } from 'vitest';
import { buildReportModel } from '#shared/report/report-model';
import { requestsSource } from '#shared/report/requests';
import { cellTimeline } from '#shared/report/timeline';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { foldRepetition } from '../../../src-main/engine/bench/repetitions';
import type { DecodeCell } from '#shared/session/schema';
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

/** Four requests sent at the window's start, each lasting `seconds`. */
function withRequests(cell: DecodeCell, seconds: number): DecodeCell {
  const n = 4;
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
  // Repetition 1 measured 30 s, repetition 2 (whose requests are kept) 10 s: the mean window is 20 s.
  const first = foldRepetition(undefined, withRequests(sampleCell(8192, 4), 30), 1, 2);
  const cell = foldRepetition(first, withRequests(sampleCell(8192, 4), 10), 2, 2);

  it('are labelled as the latest repetition’s, and drawn over its own window, not the mean one', () => {
    expect(cell.windowSeconds).toBe(20);
    const source = requestsSource(cell);
    expect(source.windowSeconds).toBe(10);
    expect(source.label).toBe(
      "Requests of repetition 2 of 2 only (the latest with figures; the others' requests were not kept), over its own window; the cell's figures are the means over all 2.",
    );
    const timeline = cellTimeline(cell.requests, source.windowSeconds, null)!;
    // The bars end where the window ends: no empty stretch to a mean length they never ran to.
    expect(timeline.window!.end).toBeCloseTo(Math.max(...timeline.bars.map((b) => b.end)), 5);
    expect(requestsSource(sampleCell(8192, 4)).label).toBeNull();
  });

  it('are labelled in the HTML report’s timeline too', () => {
    const s = sampleSession();
    s.cells = [cell];
    expect(renderHtmlReport(s)).toContain('Requests of repetition 2 of 2 only');
  });
});
