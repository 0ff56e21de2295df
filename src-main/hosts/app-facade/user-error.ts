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

export function describeError(e: unknown): string {
  if (e instanceof UserError || e instanceof RunRefused) return e.message;
  const msg = e instanceof Error ? e.message : String(e);
  return `Something went wrong: ${msg}`;
}
