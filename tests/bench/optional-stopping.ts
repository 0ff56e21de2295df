/**
 * `npm run bench:optional-stopping`: does the adaptive window's stated 95% interval (docs/adaptive-precision.md) still
 * hold the true rate once the window closes *because* the interval looked narrow enough? Pure and seeded: the
 * stopping rule of `precision.ts` (a reading every 0.25 s, batch means, --min-duration, --duration 30 s, ±1%) runs
 * over token counts whose rate wanders around a known mean of 100 tok/s (a log-normal AR(1) factor, as the
 * simulator's --sim-step-jitter makes it), for several noise levels and memory lengths. Printed per case: the share
 * of windows whose interval held 100, the same among those that closed early, and the mean window length.
 *
 *   BENCH_STOPPING_TRIALS=2000 BENCH_STOPPING_MIN=10 npm run bench:optional-stopping
 */
import { batchMeansInterval, stopDecision, type TokenTick } from '../../src-main/engine/bench/precision';
import { rng } from '../../src-main/engine/sim/text';

const TRIALS = Number(process.env.BENCH_STOPPING_TRIALS ?? 1000);
const MIN_SECONDS = Number(process.env.BENCH_STOPPING_MIN ?? 5);
const TICK = 0.25;
const TRUE_RATE = 100;

const uniform = rng(11);
const gaussian = (): number => Math.sqrt(-2 * Math.log(Math.max(1e-12, uniform()))) * Math.cos(2 * Math.PI * uniform());

function coverage(sd: number, memorySeconds: number): string {
  const rho = Math.exp(-TICK / memorySeconds);
  let held = 0;
  let early = 0;
  let heldEarly = 0;
  let seconds = 0;
  for (let k = 0; k < TRIALS; k++) {
    let x = gaussian();
    const ticks: TokenTick[] = [{ t: 0, tokens: 0 }];
    for (;;) {
      x = rho * x + Math.sqrt(1 - rho * rho) * gaussian();
      const last = ticks[ticks.length - 1];
      const t = last.t + TICK;
      ticks.push({ t, tokens: last.tokens + TRUE_RATE * Math.exp(sd * x - (sd * sd) / 2) * TICK });
      const ci = batchMeansInterval(ticks);
      const reason = stopDecision(t, ci, { relative: 0.01, minSeconds: MIN_SECONDS, maxSeconds: 30 });
      if (!reason) continue;
      const ok = ci !== null && Math.abs(ci.rate - TRUE_RATE) <= ci.halfWidth;
      if (ok) held++;
      if (reason === 'precision') {
        early++;
        if (ok) heldEarly++;
      }
      seconds += t;
      break;
    }
  }
  const pct = (a: number, b: number) => (b ? `${((a / b) * 100).toFixed(1)}%` : '-');
  return `step-rate sd ${sd * 100}%, memory ${memorySeconds} s: interval held ${pct(held, TRIALS)}; closed early ${early} of ${TRIALS}, held among those ${pct(heldEarly, early)}; mean window ${(seconds / TRIALS).toFixed(1)} s`;
}

process.stdout.write(`[optional-stopping] ${TRIALS} windows per case, ±1%, --min-duration ${MIN_SECONDS} s\n`);
for (const sd of [0.02, 0.05, 0.1])
  for (const memory of [0.5, 2]) process.stdout.write(`[optional-stopping] ${coverage(sd, memory)}\n`);
