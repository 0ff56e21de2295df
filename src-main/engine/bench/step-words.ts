/** The words a run uses for its steps and reasons (runner.ts). */
import { fmtCell, fmtContext } from '#shared/report/format';
import type { PlanStep } from './types';

/** "The warm-up", "The 32K prefill scout", "Cell 32K × 4 (repetition 2)": a step, as messages name it. */
export function describeStep(s: PlanStep): string {
  if (s.kind === 'warmup') return 'The warm-up';
  if (s.kind === 'prefill') return `The ${fmtContext(s.context)} prefill scout`;
  return `Cell ${fmtCell(s.context, s.concurrency)}${s.repetition > 1 ? ` (repetition ${s.repetition})` : ''}`;
}

/** Reasons that apply, in one sentence; null when none does. */
export function joinReasons(...reasons: (string | null)[]): string | null {
  const said = reasons.filter((r): r is string => r !== null);
  return said.length ? said.join('; ') : null;
}
