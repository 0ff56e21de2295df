/**
 * A decode cell's requests one by one, from the session's per-request columns: when each was
 * sent, got its first token and its last, its TTFT, its own rate and its longest gap between
 * tokens. One reading for the per-request export (JSON Lines) and the cell timeline. Times are
 * seconds from the cell's window start (negative: before it), as stored (docs/session-format.md).
 */
import type { DecodeCell, RequestSamples } from '../session/schema';

export interface RequestRecord {
  /** 0-based, in the order the requests were sent. */
  index: number;
  sentAt: number;
  firstTokenAt: number | null;
  lastTokenAt: number | null;
  /** First token less send, seconds; null when no token came. */
  ttft: number | null;
  outputTokens: number;
  windowTokens: number | null;
  promptTokens: number | null;
  /** The request's own output rate between its first and last token, tok/s; null below two tokens. */
  tokensPerSecond: number | null;
  outcome: 'done' | 'cancelled' | 'error';
  /** Its longest gap between two tokens inside the window, and when that gap ended; null when not recorded. */
  longestGap: number | null;
  longestGapEndedAt: number | null;
}

/** The repetition the cell's per-request columns come from: the latest with figures (1 without repeats). */
export function requestsRepetition(cell: DecodeCell): number {
  const withFigures = (cell.repetitions ?? []).filter((r) => r.totalTokensPerSecond !== null);
  return withFigures.length ? Math.max(...withFigures.map((r) => r.repetition)) : 1;
}

/**
 * Whose requests a cell's per-request columns hold, for the histograms and the timeline: a
 * repeated cell keeps only its latest repetition with figures, measured over that repetition's
 * own window, while its figures are the means over all of them. The label says so; null for a
 * cell measured once.
 */
export function requestsSource(cell: DecodeCell): { windowSeconds: number | null; label: string | null } {
  const reps = cell.repetitions ?? [];
  if (reps.length <= 1) return { windowSeconds: cell.windowSeconds, label: null };
  const n = requestsRepetition(cell);
  const rep = reps.find((r) => r.repetition === n);
  return {
    windowSeconds: rep?.windowSeconds ?? cell.windowSeconds,
    label: `Requests of repetition ${n} of ${reps.length} only (the latest with figures; the others' requests were not kept), over its own window; the cell's figures are the means over all ${reps.length}.`,
  };
}

/** A cell's requests, or [] when the session kept no per-request columns (imported, or cleared). */
export function requestRecords(r: RequestSamples | null): RequestRecord[] {
  if (!r) return [];
  return r.sentAt.map((sentAt, i) => {
    const first = r.firstTokenAt[i];
    const last = r.lastTokenAt[i];
    const tokens = r.outputTokens[i];
    const span = first !== null && last !== null ? last - first : 0;
    return {
      index: i,
      sentAt,
      firstTokenAt: first,
      lastTokenAt: last,
      ttft: first === null ? null : Math.max(0, first - sentAt),
      outputTokens: tokens,
      windowTokens: r.windowTokens[i] ?? null,
      promptTokens: r.promptTokens[i] ?? null,
      tokensPerSecond: tokens >= 2 && span > 0 ? (tokens - 1) / span : null,
      outcome: r.outcome[i],
      longestGap: r.longestGap?.[i] ?? null,
      longestGapEndedAt: r.longestGapEndedAt?.[i] ?? null,
    };
  });
}
