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

/** Fresh text is moved into the flat kept string once it is this long. */
const MERGE_EVERY = 2048;

/**
 * Feeds one stream's text as it arrives and checks every CHECK_EVERY characters. The text kept is
 * bounded (from the last KEEP characters to twice that, plus what came since the last merge), so
 * the cost per check stays small however long the stream.
 *
 * It is kept in two parts, `kept` (flat) and `fresh` (what came since), because searching one string
 * that grew since the last check makes V8 copy all of it: at hundreds of streams that copying and its
 * garbage cost more than the rest of the client. Most checks find no earlier copy of the anchor,
 * which the two parts answer by themselves; findLoop runs only when there is one. What is found, and
 * at which check, is what findLoop finds on the whole text at that check; only a single piece longer
 * than a period could make the kept text hold, and count, more whole repeats than one trimmed at
 * every check would.
 */
export class LoopDetector {
  private kept = '';
  private fresh = '';
  /**
   * Pieces pushed since the last check, joined into one string at the next check. Appending each
   * piece made a rope node per token, and kept every network chunk the pieces were sliced from
   * alive as long as the stream; one join per check copies the few characters once.
   */
  private pending: string[] = [];
  private total = 0;
  private nextCheck = CHECK_EVERY;
  found: LoopFinding | null = null;
  /** Checks that ran findLoop (an earlier copy of the anchor was in range); the rest cost little. */
  searches = 0;

  push(s: string): LoopFinding | null {
    if (this.found !== null) return this.found;
    this.pending.push(s);
    this.total += s.length;
    if (this.total >= this.nextCheck) {
      this.nextCheck = (Math.floor(this.total / CHECK_EVERY) + 1) * CHECK_EVERY;
      this.fresh += this.pending.join('');
      this.pending = [];
      if (this.anchorRecurs()) {
        this.searches++;
        const text = this.kept + this.fresh;
        this.found = findLoop(text, text.slice(-SEARCH));
      }
      // The kept text is trimmed here, so it holds KEEP characters or more: at the first check with
      // four repeats (the check after at most a network delta's worth more) all four are in it.
      if (this.fresh.length >= MERGE_EVERY) {
        this.kept = tail(this.kept + this.fresh, KEEP);
        this.fresh = '';
      }
    }
    return this.found;
  }

  /** Characters held: at most twice KEEP, plus what came since the last merge. */
  get held(): number {
    return this.kept.length + this.fresh.length;
  }

  /**
   * Joins the pieces waiting for the next check into one string. The stream calls it after each
   * network chunk: pieces are sliced from the chunk's text, and holding them would keep the whole
   * chunk alive until the next one, for every stream.
   */
  settle(): void {
    this.pending = [this.pending.join('')];
  }

  /**
   * Whether the last ANCHOR characters occur earlier among the last SEARCH ones: findLoop's
   * candidates, without which it returns null. Copies wholly inside `kept` are found there
   * without copying it; the rest start in its last ANCHOR - 1 characters or in `fresh`.
   */
  private anchorRecurs(): boolean {
    const old = this.kept;
    const r = old.length + this.fresh.length;
    const lowest = r - SEARCH;
    // At a check `fresh` holds at least the batch just added; the anchor may reach back into `old`.
    const cut = Math.max(0, old.length - (ANCHOR - 1));
    const joint = old.slice(cut) + this.fresh;
    const anchor = joint.slice(joint.length - ANCHOR);
    // A copy inside `old` starts before `fresh`, so before the anchor itself.
    if (old.indexOf(anchor, lowest) >= 0) return true;
    // The anchor itself is found last, at r - ANCHOR.
    return cut + joint.indexOf(anchor, lowest - cut) < r - ANCHOR;
  }
}
