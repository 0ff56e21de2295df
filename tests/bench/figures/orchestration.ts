/**
 * Figure 3, orchestration overhead: a 3 x 3 matrix through the real engine (worker process,
 * warm-up, prefill scouts, readiness gates, drains, saves) against the simulator at speed 1.
 * Wall time over the sum of measurement windows, and where the rest went, from the engine's
 * own phase events (each event's time runs until the next event).
 */
import { probeServer } from '../../../src-main/engine/server/probe';
import { startSim } from '../../helpers/sim';
import { BENCH } from '../lib/config';
import { runThroughEngine } from '../lib/run';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

const CONTEXTS = [8192, 16384, 32768];
const CONCURRENCY = [1, 4, 16];

export async function orchestrationFigure(): Promise<Row[]> {
  const sim = await startSim({
    args: [
      '--served-model-name',
      'fara',
      '--max-model-len',
      '262144',
      '--gpu-memory-utilization',
      '0.83',
      '--disable-uvicorn-access-log',
    ],
  });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    const W = BENCH.matrixWindowSeconds;
    const run = await runThroughEngine(t.data, {
      contexts: CONTEXTS,
      concurrency: CONCURRENCY,
      prefillContexts: CONTEXTS,
      secondsPerMeasurement: W,
      simSpeed: 1,
    });
    const spent = new Map<string, number>();
    let current = 'worker start and plan';
    let since = run.startedAt;
    const switchTo = (name: string, at: number) => {
      spent.set(current, (spent.get(current) ?? 0) + (at - since) / 1000);
      current = name;
      since = at;
    };
    for (const { at, event: e } of run.events) {
      if (e.type === 'phase') switchTo(e.phase, at);
      else if (e.type === 'prefill-start') switchTo('prefill', at);
      else if (e.type === 'cell-done' || e.type === 'prefill-done') switchTo('between steps (save, next)', at);
      else if (e.type === 'run-done') switchTo('finish and save', at);
    }
    switchTo('end', run.endedAt);
    const wall = (run.endedAt - run.startedAt) / 1000;
    const windows = run.session.cells.reduce((a, c) => a + (c.windowSeconds ?? 0), 0);
    const f = '3 Orchestration';
    const s = (name: string) => spent.get(name) ?? 0;
    const rows: Row[] = [
      row(
        f,
        `3×3 matrix, ${W} s windows: wall / sum of windows`,
        spread([wall / windows]),
        '×',
        3,
        { text: '≤ 1.15', ok: (v) => v <= 1.15 },
        `${wall.toFixed(1)} s wall, ${windows.toFixed(1)} s of windows`,
      ),
    ];
    // A prefill step emits prefill-start, then 'calibration' while its prompt is sized, then nothing
    // until prefill-done: the scout request's own time (its TTFT, max_tokens 1) is split off that.
    const scouts = run.session.prefill.reduce((a, p) => a + (p.ttftSeconds ?? 0), 0);
    const parts: Array<[string, number]> = [
      ['warm-up', s('warmup')],
      ['prompt preparation (/tokenize)', s('calibration') + s('prefill') - scouts],
      ['prefill scouts (their TTFT)', scouts],
      ['readiness gate (streams ramp to steady)', s('readiness')],
      ['drain (cancel, wait for idle) + idle gate', s('cooldown') + s('idle-gate')],
      [
        'worker start, saves, between steps',
        s('worker start and plan') + s('between steps (save, next)') + s('finish and save'),
      ],
    ];
    for (const [name, sec] of parts)
      rows.push(
        row(f, `  ${name}`, spread([sec]), 's', 1, undefined, `${((sec / windows) * 100).toFixed(1)} % of windows`),
      );
    return rows;
  } finally {
    await sim.stop();
  }
}
