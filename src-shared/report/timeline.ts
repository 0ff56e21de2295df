/**
 * A decode cell's timeline: every request as a bar from when it was sent to its last token, its
 * first token marked (the part before it is its TTFT) and its longest gap between tokens marked
 * when that gap is large, so a stall, a queue or a prefill storm can be seen. The geometry is
 * here once, as fractions of the axis; the HTML report (SVG) and the app's cell detail (React)
 * only draw it (docs/method.md, "Cell timeline").
 */
import type { RequestSamples } from '../session/schema';
import { NONE, fmtMs, fmtSeconds } from './format';
import { requestRecords } from './requests';
import { timeScale } from './scale';

/**
 * A gap between tokens is marked when it is this many times the cell's median time between
 * tokens, and at least MIN_MARKED_GAP seconds: one scheduler hiccup is not a stall.
 */
export const LARGE_GAP_FACTOR = 10;
const MIN_MARKED_GAP = 0.1;

export interface TimelineBar {
  /** Fractions (0..1) of the axis: sent, first token (null: none came), end (last token, or the window's end). */
  sent: number;
  first: number | null;
  end: number;
  outcome: 'done' | 'cancelled' | 'error';
  /** The large gap, as fractions of the axis, when there is one. */
  gap: { start: number; end: number } | null;
  /** What a person reads on hover. */
  title: string;
}

export interface TimelineModel {
  bars: TimelineBar[];
  /** Ticks as fractions of the axis with their text in seconds from the window start. */
  ticks: { at: number; text: string }[];
  /** The measurement window, as fractions of the axis. */
  window: { start: number; end: number } | null;
  /** Gaps at or above this many seconds are marked. */
  gapThreshold: number;
  markedGaps: number;
}

/** The timeline of a cell's requests; null when it kept none. */
export function cellTimeline(
  samples: RequestSamples | null,
  windowSeconds: number | null,
  medianTbtSeconds: number | null,
): TimelineModel | null {
  const reqs = requestRecords(samples);
  if (reqs.length === 0) return null;
  const windowEnd = windowSeconds ?? 0;
  const endOf = (r: (typeof reqs)[number]) => r.lastTokenAt ?? Math.max(r.sentAt, windowEnd);
  const scale = timeScale(Math.min(0, ...reqs.map((r) => r.sentAt)), Math.max(windowEnd, ...reqs.map(endOf)));
  const span = scale.max - scale.min;
  const x = (t: number) => (t - scale.min) / span;
  const gapThreshold = Math.max(MIN_MARKED_GAP, LARGE_GAP_FACTOR * (medianTbtSeconds ?? 0));
  let markedGaps = 0;
  const bars = reqs.map((r): TimelineBar => {
    const large = r.longestGap !== null && r.longestGapEndedAt !== null && r.longestGap >= gapThreshold;
    if (large) markedGaps++;
    const gapText = large
      ? `, a ${fmtMs(r.longestGap)} gap between tokens ending at ${fmtSeconds(r.longestGapEndedAt)}`
      : '';
    return {
      sent: x(r.sentAt),
      first: r.firstTokenAt === null ? null : x(r.firstTokenAt),
      end: x(endOf(r)),
      outcome: r.outcome,
      gap: large ? { start: x(r.longestGapEndedAt! - r.longestGap!), end: x(r.longestGapEndedAt!) } : null,
      title: `Request ${r.index + 1}: sent at ${fmtSeconds(r.sentAt)}, TTFT ${r.ttft === null ? NONE : fmtMs(r.ttft)}, ${r.outputTokens} tokens, ${r.outcome}${gapText}`,
    };
  });
  return {
    bars,
    ticks: scale.ticks.map((t) => ({ at: x(t), text: `${t} s` })),
    window: windowSeconds === null ? null : { start: x(0), end: x(windowSeconds) },
    gapThreshold,
    markedGaps,
  };
}

/** The legend under a timeline. */
export function timelineLegend(m: TimelineModel): string {
  return `Each bar is one request, from sending it to its last token (or the window's end); the pale part is its time to first token. Gaps between tokens of ${fmtMs(m.gapThreshold)} or more are marked (${m.markedGaps} here). The shaded band is the measurement window; times are seconds from its start.`;
}

/** Where a timeline of `bars` requests is drawn, in SVG units: one layout for the report and the app. */
export function timelineLayout(bars: number) {
  const width = 720;
  // Room for the first and last tick's text, centred on the axis ends.
  const left = 24;
  const plotWidth = width - left * 2;
  const row = Math.max(2, Math.min(10, 480 / Math.max(1, bars)));
  const top = 6;
  const plotHeight = row * bars;
  return {
    width,
    height: top + plotHeight + 24,
    plotWidth,
    plotHeight,
    row,
    top,
    /** Axis fraction to x. */
    x: (f: number) => left + f * plotWidth,
    /** The bar of request i: its top and height. */
    bar: (i: number) => ({ y: top + i * row + row * 0.15, h: row * 0.7 }),
    tickTextY: top + plotHeight + 16,
  };
}
