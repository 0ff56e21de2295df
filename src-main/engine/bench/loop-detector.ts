/**
 * Loop detection (docs/method.md), run incrementally on every stream, separately for content and
 * reasoning text: every 256 characters, take the last 64 characters as an anchor and look
 * backwards for earlier copies (period up to 32,768 characters). A tail that repeats exactly
 * at least 4 whole times and covers at least 4,096 characters is a loop, unless the period is
 * only whitespace. The period's text, cut to a readable length, is kept as evidence.
 */
export const CHECK_EVERY = 256;
export const ANCHOR = 64;
export const MAX_PERIOD = 32_768;
export const MIN_REPEATS = 4;
export const MIN_COVERED = 4_096;
/** Evidence is cut to this many characters. */
export const EXCERPT_CHARS = 400;
/** Text kept per stream: enough for 4 repeats of the longest period plus the anchor. */
const KEEP = MIN_REPEATS * MAX_PERIOD + ANCHOR;
/** Candidate periods tried per check, so a pathological text cannot stall the client. */
const MAX_CANDIDATES = 64;

export interface LoopFinding {
  /** Period length in characters. */
  period: number;
  /** Whole repeats of the period at the end of the text. */
  repeats: number;
  /** The period's text, cut to EXCERPT_CHARS (an ellipsis marks the cut). */
  excerpt: string;
}

/** Characters searched for earlier copies of the anchor: the longest period plus the anchor. */
const SEARCH = MAX_PERIOD + ANCHOR;

/**
 * Checks the end of `text` for a loop; null when there is none. `recent` is a suffix of `text`
 * (at least SEARCH characters when text is longer) where the anchor's earlier copies are
 * looked for, so a long history is only read when a candidate period turns up.
 */
export function findLoop(text: string, recent: string = text): LoopFinding | null {
  const n = text.length;
  // MIN_COVERED is far above two anchors, so a text this long always has an anchor to look back from.
  if (n < MIN_COVERED) return null;
  const r = recent.length;
  const anchor = recent.slice(r - ANCHOR);
  const lowest = r - ANCHOR - MAX_PERIOD;
  let idx = recent.lastIndexOf(anchor, r - ANCHOR - 1);
  for (let tries = 0; idx >= 0 && idx >= lowest && tries < MAX_CANDIDATES; tries++) {
    const period = r - ANCHOR - idx;
    // How far back the text stays periodic with this period: at most the whole text, since before
    // its start charCodeAt gives NaN, which equals nothing (i stops at period - 1).
    let i = n - 1;
    while (text.charCodeAt(i) === text.charCodeAt(i - period)) i--;
    const covered = n - 1 - i + period;
    const repeats = Math.floor(covered / period);
    if (repeats >= MIN_REPEATS && repeats * period >= MIN_COVERED) {
      const passage = text.slice(n - period);
      if (passage.trim().length > 0) {
        const excerpt = passage.length > EXCERPT_CHARS ? `${passage.slice(0, EXCERPT_CHARS)}…` : passage;
        return { period, repeats, excerpt };
      }
    }
    idx = idx > 0 ? recent.lastIndexOf(anchor, idx - 1) : -1;
  }
  return null;
}

/** The last `keep` characters of `s` once it has grown to twice that, so trimming costs little per character. */
const tail = (s: string, keep: number): string => (s.length > 2 * keep ? s.slice(s.length - keep) : s);

/**
 * Feeds one stream's text as it arrives and checks every CHECK_EVERY characters. Two bounded
 * strings keep the cost per check small however long the stream: the recent window that is
 * searched, and the history that is only read to confirm a candidate.
 */
export class LoopDetector {
  private text = '';
  private recent = '';
  private total = 0;
  private nextCheck = CHECK_EVERY;
  found: LoopFinding | null = null;

  push(s: string): LoopFinding | null {
    if (this.found !== null) return this.found;
    this.text += s;
    this.recent += s;
    this.total += s.length;
    if (this.total >= this.nextCheck) {
      this.nextCheck = (Math.floor(this.total / CHECK_EVERY) + 1) * CHECK_EVERY;
      this.recent = tail(this.recent, SEARCH);
      this.found = findLoop(this.text, this.recent);
      this.text = tail(this.text, KEEP);
    }
    return this.found;
  }
}
