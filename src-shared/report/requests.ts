/**
 * A decode cell's requests one by one, from the session's per-request columns: when each was
 * sent, got its first token and its last, its TTFT, its own rate and its longest gap between
 * tokens. One reading for the per-request export (JSON Lines) and the cell timeline. Times are
 * seconds from the cell's window start (negative: before it), as stored (docs/session-format.md).
 */
import { fmtSeconds } from './format';
import type { DecodeCell, RepetitionRequests, RequestSamples } from '../session/schema';

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
export function requestsRepetition(cell: Pick<DecodeCell, 'repetitions'>): number {
  const withFigures = (cell.repetitions ?? []).filter((r) => r.totalTokensPerSecond !== null);
  return withFigures.length ? Math.max(...withFigures.map((r) => r.repetition)) : 1;
}

/**
 * Whose requests a cell's per-request columns hold, for the histograms and the timeline: a
 * repeated cell keeps only its latest repetition with figures, measured over that repetition's
 * own window, while its figures are the means over all of them. The label says so; null for a
 * cell measured once.
 */
function requestsSource(cell: DecodeCell): { windowSeconds: number | null; label: string | null } {
  const reps = cell.repetitions ?? [];
  if (reps.length <= 1) return { windowSeconds: cell.windowSeconds, label: null };
  const n = requestsRepetition(cell);
  const rep = reps.find((r) => r.repetition === n);
  return {
    windowSeconds: rep?.windowSeconds ?? cell.windowSeconds,
    label: `Requests of repetition ${n} of ${reps.length} only (the latest with figures; the others' requests were not kept), over its own window; the cell's figures are the means over all ${reps.length}.`,
  };
}

/** One timeline's requests: a repetition's over its own window, or the cell's when it was measured once. */
export interface RequestSet {
  /** Null for a cell measured once. */
  repetition: number | null;
  windowSeconds: number | null;
  requests: RequestSamples | null;
  /** Whose requests these are, over which window; null for a cell measured once. */
  label: string | null;
}

/** What the histograms and the timelines of a cell show, and the words that say whose requests they are. */
export interface RequestsView {
  /** Over the histograms: pooled repetitions, the latest only (older files), or null (measured once). */
  label: string | null;
  /** Every request the histograms pool. */
  pooled: RequestRecord[];
  /** One timeline per repetition kept, each over its own window. */
  sets: RequestSet[];
}

/** Each repetition's requests a cell kept, in repetition order: `requests` is the latest with figures. */
function repetitionSets(cell: DecodeCell): RepetitionRequests[] {
  const held = requestsRepetition(cell);
  const own = cell.repetitions?.find((r) => r.repetition === held)?.windowSeconds ?? cell.windowSeconds;
  const latest = cell.requests ? [{ repetition: held, windowSeconds: own, requests: cell.requests }] : [];
  return [...(cell.repetitionRequests ?? []), ...latest].sort((a, b) => a.repetition - b.repetition);
}

/**
 * The histograms pool every repetition's requests and each repetition gets its own timeline over its own window. A
 * file written before every repetition's requests were kept shows the latest only, labelled so (requestsSource).
 */
export function requestsView(cell: DecodeCell): RequestsView {
  const count = cell.repetitions?.length ?? 0;
  if (count <= 1 || !cell.repetitionRequests) {
    const source = requestsSource(cell);
    return {
      label: source.label,
      pooled: requestRecords(cell.requests),
      sets: [{ repetition: null, ...source, requests: cell.requests }],
    };
  }
  const sets = repetitionSets(cell);
  const which =
    sets.length === count
      ? `all ${count} repetitions`
      : `repetitions ${sets.map((s) => s.repetition).join(', ')} of ${count} (the others kept none)`;
  return {
    label: `Requests of ${which} (pooled); the cell's figures are the means over the repetitions with figures.`,
    pooled: sets.flatMap((s) => requestRecords(s.requests)),
    sets: sets.map((s) => ({
      ...s,
      label: `Repetition ${s.repetition} of ${count} · ${fmtSeconds(s.windowSeconds)}`,
    })),
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
