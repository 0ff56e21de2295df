/**
 * `npm run bench:coverage`: whether adaptive measurement's stated 95% interval (docs/adaptive-precision.md) holds the
 * rate the simulator served. One simulator (the demo's profile and clock speed-up) measures the demo matrix:
 * first once with long fixed windows, during which this script reads the simulator's own counters (generated tokens
 * and the simulated seconds it gave up) once a simulated second: each cell's reference, the simulator's served rate,
 * counted by the server and not by the client, over its first seconds, as long as the adaptive cell's window (the same
 * place in the requests' lives: the goal's reference, what the interval states), and over the whole window (many
 * request lifetimes, printed beside it). Then the matrix runs adaptively (--precision) as many times as it takes to
 * judge at least BENCH_COVERAGE_CELLS cells, and each cell's interval is checked against its reference. Goal: the
 * interval holds the reference in at least 90% of the cells.
 *
 *   BENCH_COVERAGE_PRECISION=1 BENCH_COVERAGE_REFERENCE=150 BENCH_COVERAGE_CELLS=40 npm run bench:coverage
 */
import { loadavg } from 'node:os';
import { DEMO_CONFIG, DEMO_SPEED } from '../../src-main/hosts/cli/commands/server-command';
import { metricValue } from '../../src-main/engine/bench/metrics';
import { probeServer } from '../../src-main/engine/server/probe';
import type { ServerTarget } from '../../src-main/engine/server/target';
import { SIM_LAG_METRIC } from '../../src-main/engine/sim/metrics';
import { startSim } from '../helpers/sim';
import { type CounterReading, coverage, type CoverageRow, coverageRow, servedRateOver } from './lib/coverage';
import { runThroughEngine } from './lib/run';

const PRECISION = Number(process.env.BENCH_COVERAGE_PRECISION ?? 1) / 100;
/** The reference window, simulated seconds; the counters are read over all of it but its last 5%. */
const REFERENCE = Number(process.env.BENCH_COVERAGE_REFERENCE ?? 150);
const CELLS = Number(process.env.BENCH_COVERAGE_CELLS ?? 40);
const GOAL = 0.9;
const MAX_RUNS = 4;
const DEMO_SIM_ARGS = ['--max-model-len', '262144', '--gpu-memory-utilization', '0.83', '--disable-uvicorn-access-log'];
const DECODE_ONLY = { ...DEMO_CONFIG, prefillContexts: [], simSpeed: DEMO_SPEED };

async function readCounters(url: string): Promise<CounterReading> {
  const before = performance.now();
  const text = await (await fetch(`${url}/metrics`)).text();
  return {
    atMs: (before + performance.now()) / 2,
    generationTokens: metricValue(text, 'vllm:generation_tokens_total') ?? Number.NaN,
    lagSeconds: metricValue(text, SIM_LAG_METRIC) ?? 0,
  };
}

/** Each cell's counters over its long fixed window: read once a simulated second from its opening. */
async function references(target: ServerTarget, url: string): Promise<Map<string, CounterReading[]>> {
  const out = new Map<string, CounterReading[]>();
  const pending: Promise<void>[] = [];
  const readWindow = async (key: string): Promise<void> => {
    const series = [await readCounters(url)];
    const untilMs = series[0].atMs + ((REFERENCE * 0.95) / DEMO_SPEED) * 1000;
    while (performance.now() < untilMs) {
      await new Promise((r) => setTimeout(r, 1000 / DEMO_SPEED));
      series.push(await readCounters(url));
    }
    out.set(key, series);
  };
  await runThroughEngine(
    target,
    { ...DECODE_ONLY, secondsPerMeasurement: REFERENCE },
    {
      onEvent: ({ event: e }) => {
        if (e.type === 'phase' && e.phase === 'window' && e.context !== undefined)
          pending.push(readWindow(`${e.context}x${e.concurrency}`));
      },
    },
  );
  await Promise.all(pending);
  return out;
}

const fmt = (v: number, digits = 1): string => v.toFixed(digits);

async function main(): Promise<void> {
  const sim = await startSim({ speed: DEMO_SPEED, args: DEMO_SIM_ARGS });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    process.stdout.write(
      `[coverage] reference: the demo matrix with ${REFERENCE} s windows, served rates from the simulator's counters (load ${loadavg()[0].toFixed(1)})...\n`,
    );
    const refs = await references(t.data, sim.url);
    const rows: CoverageRow[] = [];
    const sameSpan: CoverageRow[] = [];
    for (let run = 1; run <= MAX_RUNS && rows.length < CELLS; run++) {
      process.stdout.write(
        `[coverage] adaptive run ${run} at ±${PRECISION * 100}% (load ${loadavg()[0].toFixed(1)})...\n`,
      );
      const { session } = await runThroughEngine(t.data, { ...DECODE_ONLY, precision: PRECISION });
      for (const c of session.cells) {
        const series = refs.get(`${c.context}x${c.concurrency}`) ?? [];
        const whole = servedRateOver(series, Number.POSITIVE_INFINITY, DEMO_SPEED) ?? undefined;
        const r = coverageRow(c, whole);
        const s = coverageRow(c, servedRateOver(series, c.windowSeconds ?? 0, DEMO_SPEED) ?? undefined);
        if (r) rows.push(r);
        if (s) sameSpan.push(s);
      }
    }
    process.stdout.write(
      'cell       adaptive ±interval  reference (whole window)  reference (its first seconds as long as the cell)\n',
    );
    for (const [i, r] of rows.entries()) {
      const s = sameSpan[i];
      process.stdout.write(
        `${r.key.padEnd(10)} ${fmt(r.estimate).padStart(9)} ±${fmt((r.halfWidth / r.estimate) * 100, 2).padStart(5)}%  ${fmt(r.reference).padStart(9)} (${fmt((r.reference / r.estimate - 1) * 100, 2).padStart(6)}%) ${r.held ? 'held  ' : 'MISSED'}  ${s ? `${fmt(s.reference).padStart(9)} (${fmt((s.reference / s.estimate - 1) * 100, 2).padStart(6)}%) ${s.held ? 'held' : 'MISSED'}` : '-'}\n`,
      );
    }
    // The goal's reference is the rate the interval states: the served rate over the same span of the requests' lives,
    // in another run (docs/adaptive-precision.md, "Coverage"); the whole window's rate over many lifetimes is printed beside it.
    const share = coverage(sameSpan) ?? 0;
    const ok = sameSpan.length >= CELLS && share >= GOAL;
    process.stdout.write(
      [
        `[coverage] the stated 95% interval held the served rate of another run over the same span of the requests' lives (the reference window's first seconds, as long as the cell's window) in ${sameSpan.filter((r) => r.held).length} of ${sameSpan.length} cells (${fmt(share * 100)}%; goal ≥ ${GOAL * 100}% over ≥ ${CELLS}), load ${loadavg()[0].toFixed(1)}: ${ok ? 'PASS' : 'FAIL'}`,
        `[coverage] ... and the served rate of the whole ${REFERENCE} s reference window, over many request lifetimes (not what the interval states), in ${rows.filter((r) => r.held).length} of ${rows.length} (${fmt((coverage(rows) ?? 0) * 100)}%)`,
        '',
      ].join('\n'),
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await sim.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`bench:coverage failed: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
