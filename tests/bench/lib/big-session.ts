/**
 * The large session of figures 5 and 6: 60 decode cells (6 contexts x 10 concurrency levels)
 * holding 100,000 per-request samples in all, with full-precision times as the engine writes
 * them. Deterministic (a seeded generator), built through the real schema.
 */
import type { DecodeCell, Session } from '#shared/session/schema';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

export const BIG_CONTEXTS = [0, 8192, 16384, 32768, 65536, 131072];
export const BIG_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
export const BIG_SAMPLES = 100_000;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function bigSession(): Session {
  const rand = rng(42);
  const weights = BIG_CONTEXTS.flatMap(() => BIG_CONCURRENCY.map((c) => Math.sqrt(c)));
  const total = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((w / total) * BIG_SAMPLES));
  counts[counts.length - 1] += BIG_SAMPLES - counts.reduce((a, b) => a + b, 0);
  const cells: DecodeCell[] = [];
  let i = 0;
  for (const context of BIG_CONTEXTS) {
    for (const c of BIG_CONCURRENCY) {
      const n = counts[i++];
      const sentAt: number[] = [];
      const firstTokenAt: number[] = [];
      const lastTokenAt: number[] = [];
      const outputTokens: number[] = [];
      const windowTokens: number[] = [];
      const promptTokens: number[] = [];
      const outcome: Array<'done' | 'cancelled'> = [];
      for (let k = 0; k < n; k++) {
        const sent = -5 + rand() * 34;
        const first = sent + 0.03 + rand() * 0.4;
        const out = 1 + Math.floor(rand() * 4096);
        const last = Math.min(30, first + out * (0.007 + rand() * 0.004));
        sentAt.push(sent);
        firstTokenAt.push(first);
        lastTokenAt.push(last);
        outputTokens.push(out);
        windowTokens.push(Math.floor(out * rand()));
        promptTokens.push(context + 40);
        outcome.push(last >= 30 ? 'cancelled' : 'done');
      }
      cells.push(
        sampleCell(context, c, {
          requests: { sentAt, firstTokenAt, lastTokenAt, outputTokens, windowTokens, promptTokens, outcome },
        }),
      );
    }
  }
  const base = sampleSession();
  return {
    ...base,
    runConfig: { ...base.runConfig, contexts: BIG_CONTEXTS, concurrency: BIG_CONCURRENCY },
    cells,
  };
}
