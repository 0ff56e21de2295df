/**
 * Reading back the figures a report prints: "34.6K", "2,646.7", "236 ms", "7.0 ms",
 * "30.0 s", "4,243", "8K", "—". Each returns null for "—" (no value) and undefined when the
 * text is not a figure of that kind, so callers can say which cell was wrong.
 */
import { NONE } from '#shared/report/format';

const isNone = (t: string): boolean => t.trim() === NONE || t.trim() === '-' || t.trim() === '';

const plainNumber = (t: string): number | undefined => {
  const s = t.replace(/,/g, '').trim();
  if (!/^-?\d+(?:\.\d+)?$/.test(s)) return undefined;
  return Number(s);
};

/** "34.6K" -> 34600 (the report's K is thousands here), "2,646.7" -> 2646.7. */
export function readTokPerSec(t: string): number | null | undefined {
  if (isNone(t)) return null;
  const m = /^(.+?)\s*K$/.exec(t.trim());
  if (m) {
    const v = plainNumber(m[1]);
    return v === undefined ? undefined : v * 1000;
  }
  return plainNumber(t);
}

/** "236 ms" or "7.0 ms" -> seconds. */
export function readMs(t: string): number | null | undefined {
  if (isNone(t)) return null;
  // SpeedMatrix's own reports note a latency from few requests: "704 ms (from 3)".
  const m = /^(.+?)\s*ms(?:\s*\(from [\d,]+\))?$/.exec(t.trim());
  if (!m) return undefined;
  const v = plainNumber(m[1]);
  return v === undefined ? undefined : v / 1000;
}

/** "30.0 s" or "30 s" -> seconds. */
export function readSeconds(t: string): number | null | undefined {
  if (isNone(t)) return null;
  const m = /^(.+?)\s*s$/.exec(t.trim());
  if (!m) return undefined;
  return plainNumber(m[1]);
}

/** "4,243" -> 4243; "1.0" -> 1. */
export function readNumber(t: string): number | null | undefined {
  if (isNone(t)) return null;
  return plainNumber(t);
}

/** "4,096 tokens" -> 4096. */
export function readTokens(t: string): number | null | undefined {
  if (isNone(t)) return null;
  return plainNumber(t.replace(/\s*tokens?$/i, ''));
}

/** "96 GB" (binary, as reports print VRAM) -> bytes. */
export function readGigabytes(t: string): number | null | undefined {
  if (isNone(t)) return null;
  const m = /^([\d.,]+)\s*GB$/i.exec(t.trim());
  if (!m) return undefined;
  const v = plainNumber(m[1]);
  return v === undefined ? undefined : Math.round(v * 1024 ** 3);
}

/**
 * "8K" -> 8192, "8.5K" -> 8704, "0" -> 0. A label is K = 1024 floored, so "251K" may stand for any of 1024
 * token counts; `hint` (the largest context a run can use, max_model_len - max_output - 64)
 * is used when it prints the same, so imported matrices keep the real size.
 */
export function readContext(t: string, hints: readonly number[] = []): number | undefined {
  const s = t.trim();
  // A precise label ("8.5K", "8,193"): what fmtContext prints where floored labels would collide.
  const precise = /^(\d+\.\d+)\s*[Kk]$/.exec(s);
  if (precise) return Math.round(Number(precise[1]) * 1024);
  if (/^\d{1,3}(,\d{3})+$/.test(s)) return Number(s.replace(/,/g, ''));
  const m = /^(\d+)\s*[Kk]$/.exec(s);
  if (!m) return /^\d+$/.test(s) ? Number(s) : undefined;
  const k = Number(m[1]);
  const hit = hints.find((h) => Math.floor(h / 1024) === k && h % 1024 !== 0);
  return hit ?? k * 1024;
}
