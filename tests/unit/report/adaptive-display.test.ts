import { describe, expect, it } from 'vitest';
import {
  fmtCellThroughput,
  fmtPrefillPrecision,
  fmtPrefillThroughput,
  fmtStopNote,
  PRECISION_LEGEND,
} from '#shared/report/confidence';
import { fmtTokPerSecWithin } from '#shared/report/format';

describe('a figure from an adaptive window', () => {
  it('shows its interval and how long it measured: "4,786.2 ±0.8%, 7.5 s"', () => {
    expect(fmtTokPerSecWithin(4786.2, 0.008, 7.5, false)).toBe('4,786.2 ±0.8%, 7.5 s');
    expect(fmtTokPerSecWithin(4786.2, 0.0234, 30, true)).toBe('4,786.2 ±2.3%, 30.0 s (max)');
    expect(fmtTokPerSecWithin(34_567, 0.01, 6, false)).toBe('34.6K ±1.0%, 6.0 s');
    expect(fmtTokPerSecWithin(120, null, 2, true)).toBe('120.0, 2.0 s (max)');
    expect(fmtTokPerSecWithin(null, 0.01, 5, false)).toBe('—');
  });

  it('is how every view shows the cell, unless repetitions give the run-to-run interval', () => {
    const adaptive = {
      totalTokensPerSecond: 4786.2,
      windowSeconds: 7.5,
      precision: { stopReason: 'precision' as const, halfWidthRelative: 0.008 },
    };
    expect(fmtCellThroughput(adaptive)).toBe('4,786.2 ±0.8%, 7.5 s');
    expect(fmtCellThroughput({ totalTokensPerSecond: 4786.2, windowSeconds: 30 })).toBe('4,786.2');
    const repeated = {
      ...adaptive,
      repetitions: [{ totalTokensPerSecond: 4780 }, { totalTokensPerSecond: 4792.4 }],
    };
    expect(fmtCellThroughput(repeated)).toMatch(/^4,786\.2 ± \d/);
  });

  it('says in progress whether the cell stopped early or reached the maximum', () => {
    expect(
      fmtStopNote({
        totalTokensPerSecond: 1,
        windowSeconds: 7.5,
        precision: { stopReason: 'precision', halfWidthRelative: 0.008 },
      }),
    ).toBe('stopped early at ±0.8% after 7.5 s');
    expect(
      fmtStopNote({
        totalTokensPerSecond: 1,
        windowSeconds: 30,
        precision: { stopReason: 'max-duration', halfWidthRelative: 0.023 },
      }),
    ).toBe('reached the 30.0 s maximum at ±2.3%, short of the precision');
    // The client's own delay, not the server, kept it from its precision: said as such.
    expect(
      fmtStopNote({
        totalTokensPerSecond: 1,
        windowSeconds: 30,
        precision: { stopReason: 'max-duration', halfWidthRelative: 0.023, clientDelayShare: 0.012 },
      }),
    ).toBe(
      "reached the 30.0 s maximum at ±2.3%, short of the precision: the client's own delay (1.2% of a batch), not the server, kept it there",
    );
    expect(fmtStopNote({ totalTokensPerSecond: 1, windowSeconds: 30 })).toBeNull();
    expect(PRECISION_LEGEND).toMatch(/95% interval.*\(max\)/);
  });
});

describe('a prefill measured to a precision', () => {
  it('shows its interval over its cold prompts, how many, and which cap ended it', () => {
    const p = (
      halfWidthRelative: number | null,
      measurements: number,
      stopReason: 'precision' | 'max-measurements' | 'max-duration',
    ) => ({
      tokensPerSecond: 25_312.4,
      precision: { halfWidthRelative, measurements, stopReason },
    });
    expect(fmtPrefillThroughput(p(0.009, 2, 'precision'))).toBe('25.3K ±0.9%, 2 prompts');
    expect(fmtPrefillThroughput(p(0.034, 3, 'max-measurements'))).toBe('25.3K ±3.4%, 3 prompts (max)');
    expect(fmtPrefillThroughput(p(null, 1, 'max-duration'))).toBe('25.3K, 1 prompt (time cap)');
    expect(fmtPrefillPrecision(p(null, 1, 'max-duration'))).toBe('1 prompt (time cap)');
    // One plain measurement: the figure alone.
    expect(fmtPrefillThroughput({ tokensPerSecond: 25_312.4, precision: null })).toBe('25.3K');
    expect(fmtPrefillPrecision({})).toBeNull();
  });
});
