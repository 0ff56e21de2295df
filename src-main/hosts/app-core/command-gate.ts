/**
 * The page may ask main to spawn a command line it wrote itself (a custom command, vLLM's
 * executable with extra arguments and environment, a Docker image) or to resume a sweep folder
 * from elsewhere, whose sweep.json names the commands. A page is not trusted with that: before
 * such a spawn, the host (the app's main process) shows the exact argv and added environment
 * and the person says yes. The simulator, SpeedMatrix's own program, needs no question.
 */
import { createHash } from 'node:crypto';
import type { BuiltLaunch } from '../../engine/server';
import { REDACTED, redactArgv, redactEnv } from '#shared/session/secrets';
import { CancelledError } from './user-error';

/** One command as the person sees it: secrets replaced by <redacted>, nothing else changed. */
export interface CommandToConfirm {
  label: string;
  argv: string[];
  /** The variables added to SpeedMatrix's own environment. */
  env: Record<string, string>;
  /**
   * A hash of the exact argv and environment, secrets included: what an approval is kept by, so
   * a different secret (a `RUN_KEY` that `sh -c 'eval "$RUN_KEY"'` runs) is asked about again.
   * Never shown.
   */
  exact: string;
}

/** Asks the person; true means start it. */
export type ConfirmCommands = (why: string, commands: CommandToConfirm[]) => Promise<boolean>;

export function commandToConfirm(
  label: string,
  built: Pick<BuiltLaunch, 'argv' | 'env'>,
  apiKey?: string,
): CommandToConfirm {
  const argv = redactArgv(built.argv).map((a) => (apiKey && a === apiKey ? REDACTED : a));
  const exact = createHash('sha256')
    .update(JSON.stringify([built.argv, Object.entries(built.env).sort(), apiKey ?? null]))
    .digest('hex');
  return { label, argv, env: redactEnv(built.env), exact };
}

/** Asks once per exact set of commands (argv and environment, secrets included) in this process; a "no" is a quiet cancel. */
export class CommandGate {
  private readonly approved = new Set<string>();

  constructor(private readonly confirm: ConfirmCommands | undefined) {}

  async check(why: string, commands: CommandToConfirm[]): Promise<void> {
    if (!this.confirm || commands.length === 0) return;
    const key = commands.map((c) => c.exact).join(' ');
    if (this.approved.has(key)) return;
    if (!(await this.confirm(why, commands))) throw new CancelledError();
    this.approved.add(key);
  }
}
