import { describe, expect, it } from 'vitest';
import {
  CLIENT_DELAY_MEASUREMENTS,
  CLIENT_DELAY_SHARE,
  clientDelayed,
  lessDelayed,
  threadRunDelayMs,
  unreliablePrefill,
  clientHeldPrecision,
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

  it('marks a prefill unreliable past 10% of its time held back, and an interval over ±50% as no measurement', () => {
    expect(unreliablePrefill(0.1, null)).toBeNull();
    expect(unreliablePrefill(0.096, null)).toBeNull();
    expect(unreliablePrefill(0.72, null)).toBe(
      'unreliable: this machine held a kept measurement back for 72.0% of its time to first token',
    );
    expect(unreliablePrefill(null, null)).toBeNull();
    const capped = { measurements: 2, halfWidthRelative: 6.529, stopReason: 'max-duration', target: 0.01 };
    expect(unreliablePrefill(0.004, capped)).toBe(
      'unreliable: its 95% interval, ±652.9% over 2 prompts, is no measurement',
    );
    expect(unreliablePrefill(0.004, { ...capped, halfWidthRelative: 0.5 })).toBeNull();
    expect(unreliablePrefill(0.004, { ...capped, halfWidthRelative: null, measurements: 1 })).toBeNull();
    // Reached: however wide the rule would have allowed, it is the precision asked for.
    expect(unreliablePrefill(0.004, { ...capped, stopReason: 'precision' })).toBeNull();
  });

  it("says when this machine's delay, not the server, kept a prefill from its precision", () => {
    const capped = { measurements: 2, halfWidthRelative: 6.529, stopReason: 'max-duration', target: 0.01 };
    expect(unreliablePrefill(0.05, capped)).toBe(
      "unreliable: its 95% interval, ±652.9% over 2 prompts, is no measurement; this machine's own delay (its busy CPUs), not the server, kept it from ±1.0%",
    );
    expect(unreliablePrefill(0.01, capped)).not.toMatch(/not the server/);
    expect(unreliablePrefill(0.2, { ...capped, halfWidthRelative: 0.03 })).toBe(
      "unreliable: this machine held a kept measurement back for 20.0% of its time to first token; this machine's own delay (its busy CPUs), not the server, kept it from ±1.0%",
    );
  });

  it('a real server on this busy machine: past 1% the figure is marked, its own delay not being measured', () => {
    expect(unreliablePrefill(0.02, null, true)).toBe(
      "unreliable: this machine held the client back for 2.0% of a kept measurement's time to first token, and the server runs on the same busy machine, whose delay of it is not measured",
    );
    expect(unreliablePrefill(0.01, null, true)).toBeNull();
    expect(unreliablePrefill(0.02, null, false)).toBeNull();
  });

  it('an adaptive window at its maximum was held there by the client when its late reads move a batch by half the target', () => {
    const capped = { stopReason: 'max-duration', targetRelative: 0.01 };
    // 15 ms late on 3 s batches: 0.5% of a batch, half of ±1%.
    expect(clientHeldPrecision(capped, 15, 3000)).toBeCloseTo(0.005, 9);
    expect(clientHeldPrecision(capped, 14.9, 3000)).toBeNull();
    expect(clientHeldPrecision({ ...capped, stopReason: 'precision' }, 300, 3000)).toBeNull();
    expect(clientHeldPrecision(capped, 15, 0)).toBeNull();
  });
});
