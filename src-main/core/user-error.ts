/** An error whose message is already a sentence for a person; anything else gets a prefix. */
export class UserError extends Error {}

export function describeError(e: unknown): string {
  if (e instanceof UserError) return e.message;
  const msg = e instanceof Error ? e.message : String(e);
  return `Something went wrong: ${msg}`;
}
