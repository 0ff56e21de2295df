/**
 * What a sweep will do before it starts (variants to run, server starts, cells, measuring
 * time) and how long is left while it runs. The CLI prints the plan as one line; the app shows
 * the same figures. See docs/sweeps.md.
 */
import { planRun } from '../bench/plan';
import type { RunConfigInput } from '../bench/types';
import type { LaunchOptions } from '../server/launch';
import { flagValue } from '../server/command-line';
import { fmtDuration, plural } from '../../src-shared/report/format';
import type { SweepPlanFigures } from '../../src-shared/ipc/contract';
import { mean } from '../../src-shared/mean';
import type { VariantState } from './manifest';

/** The plan of the variants not done yet, each on a fresh server whose KV budget is not known yet. */
export function planSweep(
  variants: readonly Pick<VariantState, 'state'>[],
  config: RunConfigInput,
  first: LaunchOptions,
): SweepPlanFigures {
  const toRun = variants.filter((v) => v.state !== 'done').length;
  const simulated = first.engineKind === 'simulator';
  const speed = Number(flagValue([...(first.extraArgs ?? []), ...(first.simArgs ?? [])], '--sim-speed'));
  const plan = planRun(config, {
    maxModelLen: first.maxModelLen ?? null,
    kvBudget: { tokens: null, source: 'unknown', detail: null, maxConcurrency: null, tokensPerRequest: null },
    simulated,
    simSpeed: config.simSpeed ?? (simulated && speed > 0 ? speed : first.simSpeed),
  });
  const cellsPerVariant = plan.counts.toRun;
  return {
    variants: variants.length,
    toRun,
    serverStarts: toRun,
    cellsPerVariant,
    cells: cellsPerVariant * toRun,
    secondsPerVariant: plan.etaSeconds,
    measuringSeconds: plan.etaSeconds * toRun,
  };
}

/** The CLI's plan line. */
export function sweepPlanLine(p: SweepPlanFigures): string {
  return `Sweep plan: ${p.toRun} of ${p.variants} variants to run (${plural(p.serverStarts, 'server start')}), up to ${plural(p.cellsPerVariant, 'cell')} each (${p.cells} in all; Over capacity is known once each server is up), about ${fmtDuration(p.measuringSeconds)} of measuring plus the server starts.`;
}

/**
 * Seconds left in a sweep. Once a variant has finished here, each variant still to come is
 * expected to take as long as those did, server start included; before that, the plan's
 * measuring time, which leaves the server starts out (`withServerStarts` says which).
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
}): { seconds: number; withServerStarts: boolean } {
  const measured = o.finished.length > 0;
  const perVariant = mean(o.finished) ?? o.planned;
  return { seconds: (o.current ?? perVariant) + o.after * perVariant, withServerStarts: measured };
}
