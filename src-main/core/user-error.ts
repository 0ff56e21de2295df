import { CANCELLED } from '../../src-shared/ipc/contract';

/** An error whose message is already a sentence for a person; anything else gets a prefix. */
export class UserError extends Error {}

/** The person closed a file dialog: nothing went wrong, and the page says nothing (result code 'cancelled'). */
export class CancelledError extends UserError {
  constructor() {
    super(CANCELLED);
  }
}

export function describeError(e: unknown): string {
  if (e instanceof UserError) return e.message;
  const msg = e instanceof Error ? e.message : String(e);
  return `Something went wrong: ${msg}`;
}
