/**
 * Display formatting, shared by reports, the CLI and the renderer. Values arrive in base
 * units (tokens, seconds, bytes, watts) and leave as the reference report writes them:
 * 34.6K, 2,646.7, 236 ms, 7.0 ms, 30.0 s, 8K, 251K, and "—" for no value.
 */
export const NONE = '—';

// One Intl.NumberFormat per number of digits, made at first use: toLocaleString with options
// builds a new formatter on every call, which made formatting most of a live heatmap's render
// time; and the first formatter costs ICU's start-up (about 25 ms), which the CLI's start must not pay.
const formatters = new Map<number, Intl.NumberFormat>();
/** `v` with thousands separators and exactly `digits` decimals: 2,646.70. */
export const grouped = (v: number, digits: number): string => {
  let f = formatters.get(digits);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    formatters.set(digits, f);
  }
  return f.format(v);
};

const missing = (v: number | null | undefined): v is null | undefined =>
  v === null || v === undefined || !Number.isFinite(v);

/** Token throughput: "34.6K" from 10,000 up, otherwise "2,646.7". No unit (column says tok/s). */
export function fmtTokPerSec(v: number | null | undefined): string {
  if (missing(v)) return NONE;
  if (Math.abs(v) >= 10_000) return `${grouped(v / 1000, 1)}K`;
  return grouped(v, 1);
}

/**
 * A mean throughput with the half-width of its 95% interval, in the same scale: "4,786.2 ± 21.3",
 * "34.6K ± 0.2K"; the mean alone when there is no interval. No unit (the column says tok/s).
 */
export function fmtTokPerSecInterval(mean: number | null | undefined, halfWidth: number | null | undefined): string {
  if (missing(mean)) return NONE;
  if (missing(halfWidth)) return fmtTokPerSec(mean);
  if (Math.abs(mean) >= 10_000) return `${grouped(mean / 1000, 1)}K ± ${grouped(halfWidth / 1000, 1)}K`;
  return `${grouped(mean, 1)} ± ${grouped(halfWidth, 1)}`;
}

/**
 * A figure measured by an adaptive window (docs/adaptive-precision.md) with its 95% interval relative to it and how
 * long it measured: "4,786.2 ±0.8%, 7.5 s"; "4,786.2 ±2.3%, 30.0 s (max)" when the maximum came before the precision.
 */
export function fmtTokPerSecWithin(
  value: number | null | undefined,
  halfWidthRelative: number | null | undefined,
  seconds: number | null | undefined,
  atMaximum: boolean,
): string {
  if (missing(value)) return NONE;
  const within = missing(halfWidthRelative) ? '' : ` ±${grouped(halfWidthRelative * 100, 1)}%`;
  return `${fmtTokPerSec(value)}${within}, ${fmtSeconds(seconds)}${atMaximum ? ' (max)' : ''}`;
}

/**
 * A figure with the cell's failed requests beside it, as the reference report shows them:
 * "1,234.5 (2 failed)"; the figure alone when none failed (or the count is unknown).
 */
export function withFailed(figure: string, failed: number | null | undefined): string {
  return failed && figure !== NONE ? `${figure} (${grouped(failed, 0)} failed)` : figure;
}

/**
 * A decode cell's queue evidence: "waiting in 7% of 30 checks (at most 1 in a row), 16.0 running on
 * average, 16.0 in flight from the client, 480 requests scheduled after 8 ms on average" (the
 * client's part where it was counted, the server's queue time where vLLM reported it).
 */
export function fmtQueueEvidence(
  q:
    | {
        scrapes: number;
        waitingShare: number;
        longestWaitingRun: number;
        avgRunning: number;
        clientInFlight?: number;
        clientTurnaroundSeconds?: number;
        scheduledRequests?: number;
        meanQueueSeconds?: number;
        preemptions?: number;
      }
    | null
    | undefined,
): string {
  if (!q) return NONE;
  const client =
    q.clientInFlight !== undefined
      ? `, ${grouped(q.clientInFlight, 1)} in flight from the client${q.clientTurnaroundSeconds ? ` (${fmtMs(q.clientTurnaroundSeconds)} from a finished request to the next)` : ''}`
      : '';
  const server =
    q.meanQueueSeconds !== undefined && q.scheduledRequests !== undefined
      ? `, ${grouped(q.scheduledRequests, 0)} ${q.scheduledRequests === 1 ? 'request' : 'requests'} scheduled after ${fmtMs(q.meanQueueSeconds)} on average${q.preemptions ? ` (${grouped(q.preemptions, 0)} preempted)` : ''}`
      : '';
  return `waiting in ${Math.round(q.waitingShare * 100)}% of ${grouped(q.scrapes, 0)} checks (at most ${grouped(q.longestWaitingRun, 0)} in a row), ${grouped(q.avgRunning, 1)} running on average${client}${server}`;
}

/** Seconds as whole milliseconds: "236 ms", "1,053 ms". */
export function fmtMs(seconds: number | null | undefined): string {
  if (missing(seconds)) return NONE;
  return `${grouped(Math.round(seconds * 1000), 0)} ms`;
}

/** Seconds as milliseconds with one decimal: "7.0 ms" (time between tokens). */
export function fmtMsPrecise(seconds: number | null | undefined): string {
  if (missing(seconds)) return NONE;
  return `${grouped(seconds * 1000, 1)} ms`;
}

/** Seconds with one decimal: "30.0 s". */
export function fmtSeconds(seconds: number | null | undefined): string {
  if (missing(seconds)) return NONE;
  return `${grouped(seconds, 1)} s`;
}

/** Seconds as a setting is written: whole seconds bare ("30 s"), others with one decimal ("27.0 s"). */
export function fmtSettingSeconds(seconds: number | null | undefined): string {
  if (missing(seconds)) return NONE;
  return Number.isInteger(seconds) ? `${grouped(seconds, 0)} s` : fmtSeconds(seconds);
}

/** A ratio with two decimals: "0.71" (a coefficient of variation). */
export function fmtTwoDecimals(v: number | null | undefined): string {
  if (missing(v)) return NONE;
  return grouped(v, 2);
}

/** A duration for ETAs and elapsed times: "45 s", "3 min 20 s", "1 h 05 min". */
export function fmtDuration(seconds: number | null | undefined): string {
  if (missing(seconds)) return NONE;
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * Context length label: tokens floored to K = 1024, "8K", "251K"; small values as-is. Given
 * the other contexts shown beside it (`among`), a label that would collide with another's
 * ("8K" for both 8K and 8.5K) gets the precise value: "8.5K", or the token count.
 */
export function fmtContext(tokens: number | null | undefined, among: Iterable<number> = []): string {
  if (missing(tokens)) return NONE;
  const short = (t: number) => (t < 1024 ? String(t) : `${Math.floor(t / 1024)}K`);
  const others = [...among].filter((t) => t !== tokens);
  if (!others.some((t) => short(t) === short(tokens))) return short(tokens);
  for (const digits of [1, 2]) {
    const precise = (t: number) => (t < 1024 ? String(t) : `${Number((t / 1024).toFixed(digits))}K`);
    if (!others.some((t) => precise(t) === precise(tokens))) return precise(tokens);
  }
  return grouped(tokens, 0);
}

/** A decode cell as every message names it: "32K × 16". */
export const fmtCell = (context: number, concurrency: number): string => `${fmtContext(context)} × ${concurrency}`;

/** Labels for contexts shown side by side: "8K", "8.5K", "16K" (see fmtContext). */
export const fmtContexts = (contexts: readonly number[]): string[] => contexts.map((c) => fmtContext(c, contexts));

/** A range of contexts: "8K–251K" ("8K–8.5K" where the two would read alike). */
export function fmtContextRange(contexts: readonly number[]): string {
  if (contexts.length === 0) return NONE;
  const lo = Math.min(...contexts);
  const hi = Math.max(...contexts);
  return lo === hi ? fmtContext(lo) : `${fmtContext(lo, [hi])}–${fmtContext(hi, [lo])}`;
}

/** An integer count with separators: "4,243". */
/** "1 cell", "2 cells", "3 of them" with the word given for many. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function fmtCount(v: number | null | undefined): string {
  if (missing(v)) return NONE;
  return grouped(Math.round(v), 0);
}

/** A number with one decimal: "1.0" (average active requests). */
export function fmtOneDecimal(v: number | null | undefined): string {
  if (missing(v)) return NONE;
  return grouped(v, 1);
}

/** A request rate in requests per second, without the unit: "0.25", "2.5", "12.3", "1,204". */
export function fmtRate(v: number | null | undefined): string {
  if (missing(v)) return NONE;
  return grouped(v, v < 1 ? 2 : v < 100 ? 1 : 0);
}

/** Bytes as the reference writes VRAM and RAM: binary gigabytes rounded, "96 GB". */
export function fmtGigabytes(bytes: number | null | undefined): string {
  if (missing(bytes)) return NONE;
  const gib = bytes / 1024 ** 3;
  return `${gib >= 10 ? Math.round(gib) : grouped(gib, 1)} GB`;
}

/** Bytes for file sizes: "12.3 MB", "840 KB". */
export function fmtBytes(bytes: number | null | undefined): string {
  if (missing(bytes)) return NONE;
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${Math.round(bytes / 1024)} KB`;
  if (bytes < 1024 ** 3) return `${grouped(bytes / 1024 ** 2, 1)} MB`;
  return `${grouped(bytes / 1024 ** 3, 1)} GB`;
}

export function fmtWatts(w: number | null | undefined): string {
  if (missing(w)) return NONE;
  return `${grouped(w, 0)} W`;
}

export function fmtPercent(fraction: number | null | undefined): string {
  if (missing(fraction)) return NONE;
  return `${grouped(fraction * 100, 0)}%`;
}

/** A share as a target is written: 0.02 as "2%", 0.005 as "0.5%" (no rounding to whole percent). */
export function fmtShare(fraction: number | null | undefined): string {
  if (missing(fraction)) return NONE;
  return `${Number((fraction * 100).toPrecision(3))}%`;
}

export function fmtJoulesPerToken(j: number | null | undefined): string {
  if (missing(j)) return NONE;
  return `${grouped(j, j < 1 ? 3 : 2)} J/token`;
}

export function fmtTemperature(c: number | null | undefined): string {
  if (missing(c)) return NONE;
  return `${grouped(c, 0)} °C`;
}

export function fmtMegahertz(hz: number | null | undefined): string {
  if (missing(hz)) return NONE;
  return `${grouped(hz / 1e6, 0)} MHz`;
}

/** Parse a context or token count as people write it: "8k", "8K", "262144", "256K" (x1024). */
export function parseTokenCount(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(text.replace(/,/g, ''));
  if (!m) return null;
  const mult = m[2] === '' ? 1 : m[2].toLowerCase() === 'k' ? 1024 : 1024 * 1024;
  const v = Math.round(Number(m[1]) * mult);
  return Number.isSafeInteger(v) ? v : null;
}
