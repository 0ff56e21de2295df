/**
 * A matrix measured to a stated precision through the real CLI against the simulator process
 * (docs/adaptive-precision.md): each decode window closes when its interval is within ±P% (not before
 * --min-duration) or at --duration, and records why; each prefill is measured cold until its interval is within ±P%,
 * three prompts, or the time cap (repeats no longer than --min-duration in all); the report shows both. Against a simulator with step-time jitter the windows run
 * longer and say when they did not reach the precision.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { PRECISION_LEGEND } from '#shared/report/confidence';
import type { Session } from '#shared/session/schema';
import { matrixRunArgs, sessionFromCli } from '../../helpers/cli';
import { simTest as it } from '../../helpers/fixtures';
import { simRequests } from './bench-helpers';

const SPEED = 10;

async function adaptiveRun(
  url: string,
  dir: string,
  precision: string,
  maxSeconds: number,
  prefill = '2k,8k',
): Promise<Session> {
  const out = join(dir, `adaptive-${precision}.speedmatrix.json`);
  const { session, result } = await sessionFromCli(
    [
      ...matrixRunArgs(url, { contexts: '0,2k', concurrency: '1,4', prefill, duration: maxSeconds }),
      ...['--min-duration', '2', '--precision', precision, '--report', out.replace(/\.speedmatrix\.json$/, '.md')],
    ],
    out,
  );
  expect(result.stderr).toBe('');
  return session;
}

describe('a matrix measured to a precision', () => {
  it('closes each window at ±P% after the minimum or at the maximum, measures prefill cold to ±P%, and reports both', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ speed: SPEED, debug: true });
    const dir = tempDir('sm-adaptive-');
    const s = await adaptiveRun(sim.url, dir, '5%', 20);
    expect(s.runConfig).toMatchObject({ precision: 0.05, minSecondsPerMeasurement: 2, secondsPerMeasurement: 20 });
    expect(s.cells).toHaveLength(4);
    for (const c of s.cells) {
      expect(c.status).toBe('valid');
      const p = c.precision;
      if (!p) throw new Error(`${c.context}x${c.concurrency}: no precision recorded`);
      expect(p.targetRelative).toBe(0.05);
      const seconds = c.windowSeconds as number;
      if (p.stopReason === 'precision') {
        expect(p.halfWidthRelative).toBeLessThanOrEqual(0.05);
        expect(seconds).toBeGreaterThanOrEqual(2);
        expect(seconds).toBeLessThan(20);
      } else expect(seconds).toBeGreaterThanOrEqual(20);
    }
    // On a quiet simulator, ±5% comes well before 20 s for most cells.
    expect(s.cells.filter((c) => c.precision?.stopReason === 'precision').length).toBeGreaterThanOrEqual(3);

    const cold = (await simRequests(sim.url)).filter((q) => q.max_tokens === 1 && q.cached_prompt_tokens <= 16);
    for (const p of s.prefill) {
      const m = p.precision;
      if (!m) throw new Error(`prefill ${p.context}: no precision recorded`);
      expect(m.measurements).toBeGreaterThanOrEqual(1);
      expect(m.measurements).toBeLessThanOrEqual(3);
      if (m.stopReason === 'precision') expect(m.halfWidthRelative).toBeLessThanOrEqual(0.05);
      if (m.stopReason === 'max-measurements') expect(m.measurements).toBe(3);
      // The server was sent one cold prompt per measurement and per retake, and one warm-up at each of these sizes
      // (the 8K prefill warm-up, and the largest decode context's cold scout before its hidden decode).
      const sent = cold.filter((q) => Math.abs(q.prompt_tokens - p.context) < 256).length;
      expect(sent).toBe(m.measurements + (p.clientDelay?.retakes ?? 0) + 1);
    }

    const md = readFileSync(join(dir, 'adaptive-5%.md'), 'utf8');
    expect(md).toContain(PRECISION_LEGEND);
    expect(md).toMatch(/±\d\.\d%, \d+\.\d s/);
    expect(md).toMatch(/\| 2K \| [\d,.K]+ (±\d+\.\d%, )?\d prompts?/);
  });

  it('against a jittery server, windows run longer and say when they stopped short of the precision', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ speed: SPEED, args: ['--sim-step-jitter', '0.3', '--max-model-len', '262144'] });
    const dir = tempDir('sm-adaptive-noisy-');
    const s = await adaptiveRun(sim.url, dir, '0.5%', 4, '2k,128k');
    const short = s.cells.filter((c) => c.precision?.stopReason === 'max-duration');
    expect(short.length).toBeGreaterThan(0);
    for (const c of short) {
      expect(c.windowSeconds).toBeGreaterThanOrEqual(4);
      expect(c.precision?.halfWidthRelative ?? 1).toBeGreaterThan(0.005);
    }
    // A 128K prompt takes seconds (jitter or not): a repeat would take longer than the 2 s shortest window.
    const long = s.prefill.find((p) => p.context === 131072);
    expect(long?.ttftSeconds).toBeGreaterThan(2);
    expect(long?.precision).toEqual({ measurements: 1, halfWidthRelative: null, stopReason: 'max-duration' });
    const md = readFileSync(join(dir, 'adaptive-0.5%.md'), 'utf8');
    expect(md).toMatch(/±\d+\.\d%, \d\.\d s \(max\)/);
    expect(md).toMatch(/\| 128K \| [\d,.K]+, 1 prompt \(time cap\)/);
  });
});
