/**
 * `npm run bench:adaptive`: what adaptive measurement (docs/adaptive-precision.md) saves and costs. The demo
 * matrix is measured on one simulator (the demo's profile and clock speed-up) twice in one run: with fixed
 * windows, then with --precision. Printed: each cell's two figures and their difference, the adaptive window's
 * length, interval and why it closed, and the wall-time ratio of the two runs. Goals: every cell within 1.5% of the
 * fixed-window figure, the adaptive run in at most 40% of the fixed run's wall time. A third run measures the
 * same matrix adaptively against a noisy simulator (--sim-step-jitter): its cells take longer and each either
 * reaches the precision or says it did not. A second fixed run first gives the noise floor: how far two fixed-window
 * runs of the same matrix differ on this machine (BENCH_ADAPTIVE_BASELINE=0 leaves it out).
 *
 *   BENCH_ADAPTIVE_PRECISION=0.5 BENCH_ADAPTIVE_JITTER=0.2 BENCH_ADAPTIVE_SPEED=10 npm run bench:adaptive
 */
import { DEMO_CONFIG, DEMO_SPEED } from '../../src-main/hosts/cli/commands/server-command';
import { probeServer } from '../../src-main/engine/server/probe';
import type { RunConfigInput } from '../../src-main/engine/bench';
import { cellKey } from '#shared/cell-key';
import { fmtCellThroughput } from '#shared/report/confidence';
import type { DecodeCell } from '#shared/session/schema';
import { startSim } from '../helpers/sim';
import { type RunResult, runThroughEngine } from './lib/run';

const PRECISION = Number(process.env.BENCH_ADAPTIVE_PRECISION ?? 1) / 100;
/** 0 leaves the noisy run out. */
const JITTER = Number(process.env.BENCH_ADAPTIVE_JITTER ?? 0.15);
/**
 * The simulator's clock speed-up: the demo's by default. At 10x every millisecond of the host's timing (when the client
 * reads a token) weighs ten simulated ones in a batch's rate, so windows need longer to reach a precision than they
 * would against a real server; at 1x a simulated second is a real one.
 */
const SPEED = Number(process.env.BENCH_ADAPTIVE_SPEED ?? DEMO_SPEED);
const BASELINE = process.env.BENCH_ADAPTIVE_BASELINE !== '0';
const CELL_GOAL = 0.015;
const WALL_GOAL = 0.4;
const DEMO_SIM_ARGS = ['--max-model-len', '262144', '--gpu-memory-utilization', '0.83', '--disable-uvicorn-access-log'];

async function measure(extraArgs: string[], config: RunConfigInput): Promise<RunResult> {
  const sim = await startSim({ speed: SPEED, args: [...DEMO_SIM_ARGS, ...extraArgs] });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    return await runThroughEngine(
      t.data,
      { ...DEMO_CONFIG, simSpeed: SPEED, ...config },
      {
        onEvent: ({ event: e }) => {
          if ((e.type === 'log' && e.level !== 'info') || e.type === 'server-down')
            process.stderr.write(`[adaptive]   ${e.type === 'log' ? e.level : e.type}: ${e.message}\n`);
        },
      },
    );
  } catch (e) {
    process.stderr.write(`[adaptive] simulator exit ${sim.proc.exitCode} signal ${sim.proc.signalCode}\n`);
    process.stderr.write(`[adaptive] the simulator's last lines:\n${sim.logs().split('\n').slice(-15).join('\n')}\n`);
    throw e;
  } finally {
    await sim.stop();
  }
}

const wall = (r: RunResult): number => (r.endedAt - r.startedAt) / 1000;

/** Wall seconds spent inside decode windows (from each window's opening to its cell's cooldown). */
function windowWall(r: RunResult): number {
  let total = 0;
  let openedAt: number | null = null;
  for (const { at, event: e } of r.events) {
    if (e.type !== 'phase') continue;
    if (e.phase === 'window') openedAt = at;
    else if (e.phase === 'cooldown' && openedAt !== null) {
      total += at - openedAt;
      openedAt = null;
    }
  }
  return total / 1000;
}

/** The stage an event opens (a phase, a prefill), or null for events inside one. */
function stageOf(e: RunResult['events'][number]['event']): string | null {
  if (e.type === 'phase') return e.phase;
  if (e.type === 'prefill-start') return 'prefill';
  if (e.type === 'cell-start') return 'cell start';
  if (e.type === 'cell-done' || e.type === 'prefill-done') return 'between';
  return null;
}

/** Wall seconds per stage: each stage lasts from its opening event to the next stage's. */
function stageWall(r: RunResult): Map<string, number> {
  const total = new Map<string, number>();
  let current = 'start';
  let since = r.startedAt;
  for (const { at, event } of r.events) {
    const next = stageOf(event);
    if (next === null) continue;
    total.set(current, (total.get(current) ?? 0) + (at - since) / 1000);
    current = next;
    since = at;
  }
  total.set(current, (total.get(current) ?? 0) + (r.endedAt - since) / 1000);
  return total;
}

/** Where a run's wall time went: decode windows against everything else, and the rest by stage. */
const breakdown = (r: RunResult): string => {
  const stages = [...stageWall(r)]
    .filter(([name]) => name !== 'window')
    .map(([name, s]) => `${name} ${s.toFixed(1)}`)
    .join(', ');
  return `windows ${windowWall(r).toFixed(1)} s, the rest ${(wall(r) - windowWall(r)).toFixed(1)} s (${stages})`;
};
const pct = (f: number | null): string => (f === null ? '-' : `${(f * 100).toFixed(2)}%`);

function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) process.stdout.write(`${r.map((v, i) => v.padEnd(widths[i])).join('  ')}\n`);
}

function summary(label: string, cells: readonly DecodeCell[]): string {
  const adaptive = cells.filter((c) => c.precision);
  const early = adaptive.filter((c) => c.precision?.stopReason === 'precision').length;
  const windows = adaptive.map((c) => c.windowSeconds ?? 0).sort((a, b) => a - b);
  const median = windows.length ? windows[Math.floor(windows.length / 2)] : 0;
  return `${label}: ${early} of ${adaptive.length} cells reached ±${PRECISION * 100}%, ${adaptive.length - early} stopped at the maximum (and say so); median window ${median.toFixed(1)} s`;
}

async function main(): Promise<void> {
  process.stdout.write(
    `[adaptive] the demo matrix with fixed ${DEMO_CONFIG.secondsPerMeasurement} s windows, simulator at ${SPEED}x...\n`,
  );
  const fixed = await measure([], {});
  if (BASELINE) process.stdout.write(`[adaptive] fixed windows again (the noise floor)...\n`);
  const again = BASELINE ? await measure([], {}) : null;
  process.stdout.write(`[adaptive] the same with --precision ${PRECISION * 100}%...\n`);
  const adaptive = await measure([], { precision: PRECISION });
  if (JITTER > 0)
    process.stdout.write(`[adaptive] adaptive against a noisy simulator (--sim-step-jitter ${JITTER})...\n`);
  const noisy = JITTER > 0 ? await measure(['--sim-step-jitter', String(JITTER)], { precision: PRECISION }) : null;

  const byKey = new Map(adaptive.session.cells.map((c) => [cellKey(c), c]));
  const noisyByKey = new Map((noisy?.session.cells ?? []).map((c) => [cellKey(c), c]));
  const againByKey = new Map((again?.session.cells ?? []).map((c) => [cellKey(c), c]));
  const rows = [['cell', 'status', 'fixed tok/s', 'fixed again', 'adaptive', 'difference', 'stop', 'noisy adaptive']];
  let worst = 0;
  let floor = 0;
  let compared = 0;
  for (const f of fixed.session.cells) {
    const a = byKey.get(cellKey(f));
    const n = noisyByKey.get(cellKey(f));
    const g = againByKey.get(cellKey(f));
    const drift =
      f.totalTokensPerSecond && g?.totalTokensPerSecond ? g.totalTokensPerSecond / f.totalTokensPerSecond - 1 : null;
    if (drift !== null) floor = Math.max(floor, Math.abs(drift));
    const diff =
      f.totalTokensPerSecond && a?.totalTokensPerSecond ? a.totalTokensPerSecond / f.totalTokensPerSecond - 1 : null;
    if (diff !== null) {
      worst = Math.max(worst, Math.abs(diff));
      compared++;
    }
    rows.push([
      `${f.context}x${f.concurrency}`,
      `${f.status}/${a?.status ?? '-'}`,
      fmtCellThroughput(f),
      g ? `${fmtCellThroughput(g)} (${pct(drift)})` : '-',
      a ? fmtCellThroughput(a) : '-',
      pct(diff),
      a?.precision?.stopReason ?? '-',
      n ? fmtCellThroughput(n) : '-',
    ]);
  }
  printTable(rows);
  const ratio = wall(adaptive) / wall(fixed);
  const cellsOk = worst <= CELL_GOAL;
  const wallOk = ratio <= WALL_GOAL;
  process.stdout.write(
    [
      `[adaptive] wall time: fixed ${wall(fixed).toFixed(1)} s, adaptive ${wall(adaptive).toFixed(1)} s, ratio ${(ratio * 100).toFixed(1)}% (goal ≤ ${WALL_GOAL * 100}%): ${wallOk ? 'PASS' : 'FAIL'}`,
      `[adaptive] fixed: ${breakdown(fixed)}; adaptive: ${breakdown(adaptive)}`,
      `[adaptive] worst cell difference ${pct(worst)} over ${compared} cells (goal ≤ ${CELL_GOAL * 100}%): ${cellsOk ? 'PASS' : 'FAIL'}`,
      again
        ? `[adaptive] noise floor: two fixed-window runs differ by up to ${pct(floor)} (fixed again: ${wall(again).toFixed(1)} s)`
        : '',
      `[adaptive] ${summary('quiet simulator', adaptive.session.cells)}`,
      noisy
        ? `[adaptive] ${summary(`noisy simulator (jitter ${JITTER})`, noisy.session.cells)}, wall ${wall(noisy).toFixed(1)} s`
        : '',
      '',
    ].join('\n'),
  );
  if (!cellsOk || !wallOk) process.exitCode = 1;
}

main().catch((e) => {
  process.stderr.write(`bench:adaptive failed: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
