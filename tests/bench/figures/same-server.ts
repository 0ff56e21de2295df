/**
 * Figure 10, comparisons you can trust: one matrix measured twice on one simulated server, the
 * two sessions compared by the one rule (src-shared/report/cell-difference.ts), five times in a
 * row (two with BENCH_QUICK=1). Every cell must come out "the same" and the regression gate must
 * pass; the largest run-to-run difference and the narrowest tie band are reported beside it.
 */
import { probeServer } from '../../../src-main/engine/server/probe';
import { compareSessions } from '#shared/report/compare-model';
import { regressions } from '#shared/report/compare-verdict';
import { startSim } from '../../helpers/sim';
import { BENCH } from '../lib/config';
import { runThroughEngine } from '../lib/run';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

const PAIRS = BENCH.quick ? 2 : 5;

export async function sameServerFigure(): Promise<Row[]> {
  const sim = await startSim({ speed: 1, args: ['--served-model-name', 'fara', '--disable-uvicorn-access-log'] });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    const config = {
      contexts: [0, 8192],
      concurrency: [1, 4, 16],
      prefillContexts: [],
      secondsPerMeasurement: BENCH.quick ? 5 : 10,
      maxOutputTokens: 1024,
      simSpeed: 1,
    };
    const sameCells: number[] = [];
    const worst: number[] = [];
    const bands: number[] = [];
    let gatePassed = 0;
    for (let pair = 0; pair < PAIRS; pair++) {
      const a = await runThroughEngine(t.data, config);
      const b = await runThroughEngine(t.data, config);
      const m = compareSessions([a.session, b.session]).decode[0];
      const cells = m.rows.flat().filter((c) => c.verdict !== null);
      sameCells.push((100 * cells.filter((c) => c.verdict === 'same').length) / Math.max(1, cells.length));
      worst.push(Math.max(...cells.map((c) => Math.abs((c.ratio as number) - 1) * 100)));
      const deltas = compareSessions([a.session, b.session]).deltas;
      bands.push(Math.min(...deltas.flatMap((d) => (d.differences[1]?.band ? [d.differences[1].band * 100] : []))));
      if (regressions([m], 0.05).length === 0) gatePassed++;
      process.stdout.write(`[bench] same server, pair ${pair + 1}/${PAIRS}: ${m.verdict}\n`);
    }
    const f = '10 Same server compared';
    return [
      row(f, `cells called the same, ${PAIRS} pairs of runs`, spread(sameCells), '%', 0, {
        text: '100%',
        ok: (v) => v === 100,
      }),
      row(f, 'regression gate (5%) passed', spread([gatePassed]), `of ${PAIRS}`, 0, {
        text: `${PAIRS} of ${PAIRS}`,
        ok: (v) => v === PAIRS,
      }),
      row(f, 'largest run-to-run difference in a cell', spread(worst), '%', 1),
      row(f, 'narrowest tie band', spread(bands), '%', 1),
    ];
  } finally {
    await sim.stop();
  }
}
