/**
 * A decode cell records its client's own health, and says when the client, not the server, set the pace: the real
 * CLI runs pinned to one CPU beside three busy processes there (and a little nicer than them), so its thread waits for that CPU most of the window,
 * while the simulator (its own process, not pinned) has room for every stream. The cell's reason carries the note
 * with the figures, and the report's notes show it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { BUSY_RUN_DELAY_SHARE } from '../../../src-main/engine/bench/client-busy';
import { runCli } from '../../helpers/cli';
import { ROOMY_PROFILE } from '../../helpers/paths';
import { simTest as it } from '../../helpers/fixtures';

// taskset pins the client to one CPU, and the thread's wait for a CPU is read from Linux's schedstat.
describe.skipIf(process.platform !== 'linux')('client health on a busy client machine', () => {
  it('a cell measured by a client starved of its CPU records how long it waited, and its reason and the report say the client was busy', async ({
    launchSim,
    tempDir,
  }) => {
    // 256 streams of 160 tok/s (16 per simulated second at speed 10): work enough that a starved client falls behind.
    const sim = await launchSim({
      profile: ROOMY_PROFILE,
      speed: 10,
      args: ['--max-num-seqs', '4096', '--disable-uvicorn-access-log', '--disable-log-stats'],
    });
    const hogs: ChildProcess[] = [0, 1, 2].map(() =>
      spawn('taskset', ['-c', '0', process.execPath, '-e', 'for (;;);'], { stdio: 'ignore' }),
    );
    const out = join(tempDir('sm-client-health-'), 'busy.speedmatrix.json');
    try {
      const r = await runCli(
        ['run', '--url', sim.url, '--contexts', '0', '--concurrency', '256', '--duration', '40'].concat([
          '--prefill-contexts',
          'none',
          '--out',
          out,
        ]),
        { wrap: ['taskset', '-c', '0', 'nice', '-n', '5'], timeoutMs: 240_000 },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    } finally {
      for (const h of hogs) h.kill('SIGKILL');
    }
    const read = await readSessionFile(out);
    if (!read.ok) throw new Error(read.error.message);
    const [cell] = read.data.cells;
    // Valid: the simulator had room for every stream. On a machine busy enough that the simulator too fell behind,
    // its own running count reads short and the cell is honestly Requests queued; the client's note is said either way.
    expect(['valid', 'queued'], cell.reason ?? '').toContain(cell.status);
    const health = cell.clientHealth;
    if (!health) throw new Error('no client health recorded');
    // Beside three spinning processes on its one CPU, the client's thread waited for it well past the threshold.
    expect(health.runDelayShare).toBeGreaterThanOrEqual(BUSY_RUN_DELAY_SHARE);
    expect(health.cpuSecondsPerToken).toBeGreaterThan(0);
    expect(health.loopDelayMaxSeconds).toBeGreaterThanOrEqual(health.loopDelayP99Seconds);
    const waited = `waited ${Math.round(health.runDelayShare! * 100)}% of the window for a CPU`;
    expect(cell.reason).toContain(
      `the client was busy: event loop delayed p99 ${Math.round(health.loopDelayP99Seconds * 1000)} ms (max ${Math.round(health.loopDelayMaxSeconds * 1000)} ms), ${waited}`,
    );
    expect(cell.reason).toMatch(/µs of CPU per token; figures may be low$/);
    const report = renderMarkdownReport(read.data);
    expect(report).toMatch(
      /- 0 context × 256 at once: (Valid|Requests queued): (.*; )?the client was busy: event loop delayed p99/,
    );
    expect(report).toContain(waited);
  }, 300_000);
});
