import { CANCELLED } from '#shared/ipc/contract';
import { RunRefused } from '../../workflows/orchestrator/orchestrator';

/** An error whose message is already a sentence for a person; anything else gets a prefix. */
export class UserError extends Error {}

/** The person closed a file dialog: nothing went wrong, and the page says nothing (result code 'cancelled'). */
export class CancelledError extends UserError {
  constructor() {
    super(CANCELLED);
  }
}

/**
 * Runs a check written for the CLI (one set of rules for both), its messages in the form's words:
 * each flag it names becomes the label of the form's field (`labels`: flag -> label).
 */
export function inFieldWords<T>(labels: Readonly<Record<string, string>>, check: () => T): T {
  try {
    return check();
  } catch (e) {
    const said = Object.entries(labels).reduce((m, [flag, label]) => m.replaceAll(flag, label), (e as Error).message);
    throw new UserError(said);
  }
}

export function describeError(e: unknown): string {
  if (e instanceof UserError || e instanceof RunRefused) return e.message;
  const msg = e instanceof Error ? e.message : String(e);
  return `Something went wrong: ${msg}`;
}
