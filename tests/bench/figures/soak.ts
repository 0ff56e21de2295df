/**
 * Figure 7, worker soak: one C=128 cell through the real engine with a window of
 * BENCH_SOAK_SECONDS (the full soak: 600) against the simulator at speed 1. The worker
 * process's RSS and open file descriptors are read from /proc every second; "flat" means the
 * end of the window looks like its start.
 */
import { probeServer } from '../../../src-main/engine/server/probe';
import { startSim } from '../../helpers/sim';
import { BENCH } from '../lib/config';
import { memoryOf, openFds } from '../lib/proc';
import { runThroughEngine } from '../lib/run';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

const MiB = 1024 * 1024;

export async function soakFigure(): Promise<Row[]> {
  const sim = await startSim({
    args: ['--served-model-name', 'fara', '--disable-uvicorn-access-log', '--disable-log-stats'],
  });
  let pid = 0;
  let inWindow = false;
  const samples: Array<{ rss: number; peak: number; fds: number }> = [];
  const timer = setInterval(() => {
    if (!pid || !inWindow) return;
    try {
      samples.push({ ...memoryOf(pid), fds: openFds(pid) });
    } catch {
      /* the worker just ended */
    }
  }, 1000);
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    const run = await runThroughEngine(
      t.data,
      {
        contexts: [0],
        concurrency: [128],
        prefillContexts: [],
        secondsPerMeasurement: BENCH.soakSeconds,
        simSpeed: 1,
        warmup: false,
      },
      {
        onPid: (p) => (pid = p),
        onEvent: ({ event: e }) => {
          if (e.type === 'phase') inWindow = e.phase === 'window';
        },
      },
    );
    const cell = run.session.cells[0];
    if (samples.length < 2) throw new Error(`too few worker samples (${samples.length}); the window did not run`);
    const first = samples[0];
    const last = samples[samples.length - 1];
    // RSS saws with garbage collection, and every live stream's working set (its loop detector's
    // text) grows until its request ends and restarts (about 100 s at this rate): compare the
    // peak of the window's last quarter with its second quarter. A leak keeps climbing.
    const q = Math.floor(samples.length / 4);
    const peakOf = (xs: typeof samples) => Math.max(...xs.map((s) => s.rss)) / MiB;
    const secondQuarter = peakOf(samples.slice(q, 2 * q));
    const lastQuarter = peakOf(samples.slice(3 * q));
    const f = '7 Worker soak';
    const note = `C=128, ${BENCH.soakSeconds} s window, ${(cell.outputTokens ?? 0).toLocaleString('en-US')} tokens, cell ${cell.status}; RSS ${(first.rss / MiB).toFixed(1)} → ${(last.rss / MiB).toFixed(1)} MiB`;
    return [
      row(
        f,
        'worker peak RSS (VmHWM)',
        spread([Math.max(...samples.map((s) => s.peak)) / MiB]),
        'MiB',
        1,
        undefined,
        note,
      ),
      row(
        f,
        'worker RSS peak, last quarter of window',
        spread([lastQuarter]),
        'MiB',
        1,
        { text: 'flat (≤ 2nd quarter + 10 %)', ok: (v) => v <= secondQuarter * 1.1 },
        `2nd quarter ${secondQuarter.toFixed(1)} MiB`,
      ),
      row(
        f,
        'worker open fds at window end',
        spread([last.fds]),
        'fds',
        0,
        { text: 'flat (≤ start + 2)', ok: (v) => v <= first.fds + 2 },
        `start ${first.fds} fds`,
      ),
    ];
  } finally {
    clearInterval(timer);
    await sim.stop();
  }
}
