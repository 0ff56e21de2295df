import { describe, expect, it } from 'vitest';
import {
  CLIENT_DELAY_MEASUREMENTS,
  CLIENT_DELAY_SHARE,
  clientDelayed,
  lessDelayed,
  threadRunDelayMs,
} from '../../../src-main/engine/bench/client-delay';

describe("the client machine's own delay of a prefill", () => {
  it('takes a measurement again only when the client waited more than 1% of its time to first token', () => {
    expect(CLIENT_DELAY_SHARE).toBe(0.01);
    expect(CLIENT_DELAY_MEASUREMENTS).toBe(3);
    expect(clientDelayed({ ttftMs: 470, clientDelayMs: 4.7 })).toBe(false);
    expect(clientDelayed({ ttftMs: 470, clientDelayMs: 4.71 })).toBe(true);
    expect(clientDelayed({ ttftMs: 47, clientDelayMs: 0 })).toBe(false);
    // Unknown (not Linux): never taken again.
    expect(clientDelayed({ ttftMs: 47, clientDelayMs: null })).toBe(false);
  });
  it('keeps the less delayed of two measurements, the first on a tie or when either is unknown', () => {
    const a: { ttftMs: number; clientDelayMs: number | null; id: string } = { ttftMs: 480, clientDelayMs: 9, id: 'a' };
    const b: typeof a = { ttftMs: 471, clientDelayMs: 0.2, id: 'b' };
    expect(lessDelayed(a, b).id).toBe('b');
    expect(lessDelayed(b, a).id).toBe('b');
    expect(lessDelayed(a, { ...b, clientDelayMs: 9 }).id).toBe('a');
    expect(lessDelayed(a, { ...b, clientDelayMs: null }).id).toBe('a');
    expect(lessDelayed({ ...a, clientDelayMs: null }, b).id).toBe('a');
  });
  it("reads this thread's wait for a CPU from Linux, a count that only grows", () => {
    const before = threadRunDelayMs();
    if (process.platform !== 'linux') return expect(before).toBeNull();
    expect(before).toBeGreaterThanOrEqual(0);
    expect(threadRunDelayMs()).toBeGreaterThanOrEqual(before as number);
  });
});
