import { describe, expect, it } from 'vitest';
import { cellTimeline, timelineLegend } from '#shared/report/timeline';
import type { RequestSamples } from '#shared/session/schema';

// Two requests: sent 2 s before the window, the second stalls 1.5 s inside it; a 10 s window.
const samples: RequestSamples = {
  sentAt: [-2, -1],
  firstTokenAt: [-1, 0],
  lastTokenAt: [10, 6],
  outputTokens: [1000, 500],
  windowTokens: [900, 500],
  promptTokens: [8192, 8192],
  outcome: ['cancelled', 'done'],
  longestGap: [0.05, 1.5],
  longestGapEndedAt: [4, 5],
};

describe('cell timeline', () => {
  it('places each request from send to last token on a round time axis, the window shaded', () => {
    const m = cellTimeline(samples, 10, 0.01)!;
    // The axis runs from -2 s to 10 s in 2 s steps, so 0 s sits at (0 - -2) / 12.
    expect(m.ticks.map((t) => t.text)).toEqual(['-2 s', '0 s', '2 s', '4 s', '6 s', '8 s', '10 s']);
    expect(m.window).toEqual({ start: 2 / 12, end: 1 });
    expect(m.bars[0]).toMatchObject({ sent: 0, first: 1 / 12, end: 1, outcome: 'cancelled', gap: null });
    expect(m.bars[1]).toMatchObject({ sent: 1 / 12, first: 2 / 12, end: 8 / 12, outcome: 'done' });
  });

  it('marks a gap of 10× the median time between tokens, not a scheduler hiccup', () => {
    const m = cellTimeline(samples, 10, 0.01)!;
    // Threshold max(100 ms, 10 × 10 ms): the 1.5 s gap ending at 5 s is marked, the 50 ms one is not.
    expect(m.gapThreshold).toBeCloseTo(0.1, 9);
    expect(m.markedGaps).toBe(1);
    expect(m.bars[1].gap!.start).toBeCloseTo(5.5 / 12, 9);
    expect(m.bars[1].gap!.end).toBeCloseTo(7 / 12, 9);
    expect(m.bars[1].title).toBe(
      'Request 2: sent at -1.0 s, TTFT 1,000 ms, 500 tokens, done, a 1,500 ms gap between tokens ending at 5.0 s',
    );
    // A slower cell (200 ms between tokens) marks only gaps of 2 s or more.
    expect(cellTimeline(samples, 10, 0.2)!.markedGaps).toBe(0);
    expect(timelineLegend(m)).toMatch(/Gaps between tokens of 100 ms or more are marked \(1 here\)/);
  });

  it('draws a request without a first token as waiting up to the window end, and nothing without samples', () => {
    const waiting = { ...samples, firstTokenAt: [-1, null], lastTokenAt: [10, null], longestGap: undefined };
    const m = cellTimeline(waiting, 10, 0.01)!;
    expect(m.bars[1]).toMatchObject({ first: null, end: 1, gap: null });
    expect(cellTimeline(null, 10, 0.01)).toBeNull();
  });
});
