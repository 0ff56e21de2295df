/**
 * What a sweep will do before it starts (variants to run, server starts, cells, measuring
 * time) and how long is left while it runs. The CLI prints the plan as one line; the app shows
 * the same figures. See docs/sweeps.md.
 */
import { planRun } from '../../engine/bench/plan';
import type { RunConfigInput } from '../../engine/bench/types';
import { type LaunchOptions, buildLaunch, toServerLaunch } from '../../engine/server/launch';
import { flagValue } from '../../engine/server/command-line';
import { serveLoadSeconds } from '../../engine/sim/serve';
import type { SweepPlanFigures } from '#shared/sweep/plan-words';
import { mean } from '#shared/mean';
import { sweepPlanWords } from '#shared/sweep/plan-words';
import type { VariantState } from './manifest';

/**
 * The plan of the variants not done yet, each on a fresh server whose KV budget is not known
 * yet, each planned with its own launch flags (a variant whose --max-num-seqs is below a cell's
 * concurrency plans that cell as Requests queued, and its ETA counts the readiness deadline).
 * A simulated server's start is known from its command; a real engine's only once one started.
 */
export function planSweep(
  variants: readonly { state: VariantState['state']; launch: LaunchOptions }[],
  config: RunConfigInput,
): SweepPlanFigures {
  const toStart = variants.filter((v) => v.state !== 'done');
  const plans = toStart.map(({ launch }) => {
    const simulated = launch.engineKind === 'simulator';
    const speed = Number(flagValue([...(launch.extraArgs ?? []), ...(launch.simArgs ?? [])], '--sim-speed'));
    return planRun(config, {
      maxModelLen: launch.maxModelLen ?? null,
      kvBudget: { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null },
      simulated,
      simSpeed: config.simSpeed ?? (simulated && speed > 0 ? speed : launch.simSpeed),
      launch: toServerLaunch(launch, buildLaunch(launch)),
    });
  });
  const starts = toStart.map(({ launch }) => serverStartSeconds(launch));
  const toRun = plans.length;
  const measuringSeconds = plans.reduce((a, p) => a + p.etaSeconds, 0);
  const cells = plans.reduce((a, p) => a + p.counts.toRun, 0);
  return {
    variants: variants.length,
    toRun,
    serverStarts: toRun,
    cellsPerVariant: Math.max(0, ...plans.map((p) => p.counts.toRun)),
    cells,
    queuedCells: plans.reduce((a, p) => a + p.cells.filter((c) => c.expectQueued).length, 0),
    secondsPerVariant: toRun ? measuringSeconds / toRun : 0,
    measuringSeconds,
    serverStartSeconds: starts.every((x) => x !== null) ? starts.reduce((a, x) => a + x, 0) : null,
  };
}

/** Seconds a server takes to start, where its command says (the simulator's load time); else null. */
function serverStartSeconds(launch: LaunchOptions): number | null {
  const program = launch.engineKind === 'simulator' ? buildLaunch(launch).program : undefined;
  // Its load, plus the first /health poll that finds it up (the supervisor polls every 0.5 s).
  const load = program ? serveLoadSeconds(program.args.slice(1)) : null;
  return load === null ? null : load + 0.5;
}

/** The CLI's plan line: the plan's words, as the app shows them too. */
export const sweepPlanLine = (p: SweepPlanFigures): string => `Sweep plan: ${sweepPlanWords(p)}.`;

/**
 * Seconds left in a sweep. Once a variant has finished here, each variant still to come is
 * expected to take as long as those did, server start included; before that, the plan's
 * measuring time plus a server start where its length is known (the simulator's from its
 * command, a real engine's once one has started in this sweep); `withServerStarts` says whether
 * the starts are in.
 */
export function sweepSecondsLeft(o: {
  /** Seconds left in the variant being measured (its run's ETA), or null while its server starts. */
  current: number | null;
  /** Variants still to run after the current one. */
  after: number;
  /** Wall seconds of the variants finished in this sweep run, server start included. */
  finished: readonly number[];
  /** The plan's measuring seconds per variant. */
  planned: number;
  /** Seconds one server start takes, where known (planned, or seen in this sweep run); else null. */
  serverStart: number | null;
}): { seconds: number; withServerStarts: boolean } {
  const finished = mean(o.finished);
  const perVariant = finished ?? o.planned + (o.serverStart ?? 0);
  const withServerStarts = finished !== null || o.serverStart !== null;
  return { seconds: (o.current ?? perVariant) + o.after * perVariant, withServerStarts };
}
