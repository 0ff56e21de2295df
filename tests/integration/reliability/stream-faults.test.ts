/**
 * Stream faults end to end through the CLI: a hang, malformed chunks, a mid-stream error event
 * and HTTP 500s on more than 10% of requests each make the cell Error with its reason, the cell ends within its
 * time limits, the run finishes, and no benchmark worker is left running afterwards.
 * (The statuses at engine level are in tests/integration/bench/faults.test.ts.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';
import { simTest as it } from '../../helpers/fixtures';
import { tempDir } from '../bench/bench-helpers';

const SPEED = 20;

/**
 * Live benchmark workers started by one CLI run: the run's processes carry a unique marker in
 * their environment (a forked worker inherits it), so workers of other test files running at
 * the same time are never counted.
 */
function workersOf(tag: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return (
          readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(join(ROOT, 'src-main/engine/bench/worker-main.ts')) &&
          readFileSync(`/proc/${p}/environ`, 'utf8').includes(`SM_TEST_RUN=${tag}`)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Name, simulator switches, extra `run` flags, the cell's reason. */
const FAULTS: [string, string[], string[], RegExp][] = [
  ['hang', ['--sim-hang-after-tokens', '30'], [], /No token for \d+ s|No token arrived during the whole/],
  ['malformed chunk', ['--sim-malformed-chunk-after-tokens', '20'], [], /Malformed stream/],
  ['mid-stream error event', ['--sim-error-event-after-tokens', '20'], [], /error in the stream: .+/],
  // Every second request fails; short requests, so that the failures fall inside the window (over 10% of its requests).
  [
    'HTTP 500 on half the requests',
    ['--sim-500-share', '0.5'],
    ['--max-output', '64'],
    /requests (in the window )?failed.*HTTP 500/,
  ],
];

describe('stream faults through `speedmatrix run`', () => {
  // it.for, unlike it.each, hands the test its fixtures after the row.
  it.for(FAULTS)(
    '%s: Error with its reason, within the time limits, no worker left',
    { timeout: 150_000 },
    async ([, args, flags, reason], { launchSim }) => {
      const sim = await launchSim({ speed: SPEED, args: ['--served-model-name', 'fara', ...args] });
      const dir = tempDir();
      const out = join(dir, 'f.speedmatrix.json');
      const tag = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const t0 = Date.now();
      // --duration 5 at speed 20; a stalled stream is given up after the default stall limit.
      const r = await runCli(
        [
          'run',
          '--url',
          sim.url,
          '--contexts',
          '0',
          '--concurrency',
          '2',
          '--prefill-contexts',
          'none',
          '--duration',
          '5',
          '--sim-speed',
          String(SPEED),
          ...flags,
          '--out',
          out,
        ],
        { cwd: dir, timeoutMs: 120_000, env: { SM_TEST_RUN: tag } },
      );
      const wall = (Date.now() - t0) / 1000;
      expect(r.code, r.stderr).toBe(0);
      const s = await readSessionFile(out);
      if (!s.ok) throw new Error(s.error.message);
      expect(s.data.cells.map((c) => c.status)).toEqual(['error']);
      expect(s.data.cells[0].reason).toMatch(reason);
      // Ramp + window + stall limit, with a wide margin for a loaded machine; a stuck stream would hit the 120 s kill.
      const cellSeconds = (Date.parse(s.data.cells[0].finishedAt!) - Date.parse(s.data.cells[0].startedAt!)) / 1000;
      expect(cellSeconds).toBeLessThan(60);
      expect(wall).toBeLessThan(110);
      // The CLI has exited; its worker must be gone too (give a loaded machine a moment to reap it).
      await expect.poll(() => workersOf(tag), { timeout: 5_000, interval: 100 }).toEqual([]);
    },
  );
});
