/**
 * Sessions overlaid and normalised (overlay.ts): the GPU count from the launch's parallel sizes or
 * the machine, per GPU / per watt / per price per hour, "—" with the reason where a session lacks
 * what a normalisation needs, and a ranking that is fair across GPU counts.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '#shared/session/schema';
import {
  defaultOverlayContext,
  fmtNormalised,
  gpuCountOf,
  launchGpuCount,
  normalisationUnavailable,
  normalisedTotal,
  overlayRanking,
  overlaySeries,
  overlaySessions,
} from '#shared/report/overlay';
import { powerTelemetry, sampleCell, sampleSession } from '../../helpers/sample-session';

const USD = { perHour: 2, currency: 'USD' };

function session(gpus: number, display: string, totals: Record<number, number>, watts: number | null): Session {
  const s = sampleSession();
  s.hardware.gpus = Array.from({ length: gpus }, (_, i) => ({ ...sampleSession().hardware.gpus[0], index: i }));
  s.server.display = display;
  s.cells = Object.entries(totals).map(([c, total]) =>
    sampleCell(8192, Number(c), {
      totalTokensPerSecond: total,
      perRequestTokensPerSecond: total / Number(c),
      telemetry: powerTelemetry(watts, total),
    }),
  );
  return s;
}

describe('the GPU count a session ran on', () => {
  it('reads tensor, pipeline and data parallel sizes, long, short and with =', () => {
    expect(launchGpuCount(['vllm', 'serve', 'm', '--tensor-parallel-size', '4'])).toBe(4);
    expect(launchGpuCount(['vllm', 'serve', 'm', '-tp', '2', '--pipeline-parallel-size=2'])).toBe(4);
    expect(launchGpuCount(['vllm', 'serve', 'm', '-dp', '2', '-tp=2'])).toBe(4);
    expect(launchGpuCount(['vllm', 'serve', 'm'])).toBeNull();
    expect(launchGpuCount(['vllm', 'serve', 'm', '--tensor-parallel-size', 'auto'])).toBeNull();
    expect(launchGpuCount(['vllm', 'serve', 'm', '-tp'])).toBeNull();
  });

  it("takes the launch's size over the machine's GPUs, the machine's when the launch names none, none when neither says", () => {
    expect(gpuCountOf(session(8, 'vllm serve m -tp 2', {}, null))).toMatchObject({ count: 2 });
    expect(gpuCountOf(session(8, 'vllm serve m', {}, null))).toEqual({ count: 8, source: "the machine's 8 GPUs" });
    expect(gpuCountOf(session(0, 'vllm serve m', {}, null))).toEqual({ count: null, source: null });
  });

  it('labels each line with the GPU name × count and the method', () => {
    const [a, b] = overlaySessions(
      [session(2, 'vllm serve m -tp 2', { 1: 100 }, null), session(0, '', { 1: 100 }, null)],
      ['A', 'B'],
    );
    expect(a.hardware).toBe('RTX PRO 6000 Blackwell Server Edition × 2');
    expect(a.method).toBe('SpeedMatrix 0.1.0');
    expect(b.hardware).toBe('GPU not recorded');
    const [line] = overlaySeries([a], 'measured', null, null);
    expect(line.name).toBe('A · RTX PRO 6000 Blackwell Server Edition × 2 · SpeedMatrix 0.1.0 · 8K');
  });
});

describe('normalising total tok/s', () => {
  const [one, four, noPower, unknown] = overlaySessions(
    [
      session(1, 'vllm serve m', { 1: 100, 8: 1000 }, 500),
      session(4, 'vllm serve m -tp 4', { 1: 120, 8: 3200 }, 2000),
      session(1, 'vllm serve m', { 1: 90 }, null),
      session(0, '', { 1: 80 }, null),
    ],
    ['A', 'B', 'C', 'D'],
  );
  const p = (s: typeof one, c: number) => s.lines[0].points.find((x) => x.concurrency === c)!;

  it('divides by the GPUs, the watts, or the price of every GPU for an hour', () => {
    expect(normalisedTotal(p(four, 8), four, 'measured', null)).toBe(3200);
    expect(normalisedTotal(p(four, 8), four, 'per-gpu', null)).toBe(800);
    expect(normalisedTotal(p(four, 8), four, 'per-watt', null)).toBe(1.6);
    expect(normalisedTotal(p(four, 8), four, 'per-price', USD)).toBe(400);
    expect(normalisedTotal(p(one, 8), one, 'per-price', USD)).toBe(500);
  });

  it('gives no figure, and says why in words, where a session lacks what the normalisation needs', () => {
    expect(normalisedTotal(p(noPower, 1), noPower, 'per-watt', null)).toBeNull();
    expect(normalisationUnavailable(noPower, 'per-watt', null)).toMatch(/C: no GPU power telemetry/);
    expect(normalisedTotal(p(unknown, 1), unknown, 'per-gpu', null)).toBeNull();
    expect(normalisationUnavailable(unknown, 'per-gpu', null)).toMatch(/D: no GPU count recorded/);
    expect(normalisedTotal(p(one, 1), one, 'per-price', null)).toBeNull();
    expect(normalisationUnavailable(one, 'per-price', null)).toMatch(/give a GPU price per hour/);
    expect(normalisationUnavailable(unknown, 'per-price', USD)).toMatch(/price per hour is unknown/);
    expect(normalisationUnavailable(one, 'measured', null)).toBeNull();
    expect(fmtNormalised(null, 'per-watt', null)).toBe('—');
  });

  it('names the unit on every figure, the currency on a price', () => {
    expect(fmtNormalised(800, 'per-gpu', null)).toBe('800.0 tok/s per GPU');
    expect(fmtNormalised(1.6, 'per-watt', null)).toBe('1.600 tok/s per W');
    expect(fmtNormalised(400, 'per-price', { perHour: 2, currency: 'EUR' })).toBe('400.0 tok/s per EUR/h');
  });

  it('ranks runs on different GPU counts fairly per GPU, and lists those without a figure last with the reason', () => {
    expect(overlayRanking([one, four], 'measured', null, null)[0]).toMatch(/^1\. B .*3,200\.0 tok\/s at 8K × 8$/);
    const perGpu = overlayRanking([four, one, unknown], 'per-gpu', null, null);
    expect(perGpu[0]).toMatch(/^1\. A .*1,000\.0 tok\/s per GPU at 8K × 8$/);
    expect(perGpu[1]).toMatch(/^2\. B .*800\.0 tok\/s per GPU/);
    expect(perGpu[2]).toMatch(/^D .*: — \(D: no GPU count recorded/);
  });

  it('leaves a line out where none of its points has a figure, and picks a context', () => {
    expect(overlaySeries([one, noPower], 'per-watt', null, null).map((l) => l.sessionIndex)).toEqual([0]);
    expect(overlaySeries([one], 'measured', null, 16384)).toEqual([]);
    expect(defaultOverlayContext([one, four])).toBe(8192);
    expect(defaultOverlayContext([])).toBeNull();
  });
});
