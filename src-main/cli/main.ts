/**
 * The headless `speedmatrix` CLI: the same core as the app, for machines with no display.
 * Exit codes: 0 done, 1 could not do it, 2 usage error, 130 cancelled.
 */
import { Command, CommanderError } from 'commander';
import { APP_VERSION } from '../runtime/app-version';
import { registerCompare } from './commands/compare';
import { registerHw } from './commands/hw';
import { registerImport } from './commands/import';
import { registerReport } from './commands/report';
import { registerRun } from './commands/run';
import { registerServe } from './commands/serve';
import { registerSim } from './commands/sim';
import { registerValidate } from './commands/validate';

export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

export function buildProgram(): Command {
  const program = new Command('speedmatrix')
    .description('LLM inference speed test matrix: prefill and sustained decode across context lengths and concurrency.')
    .version(APP_VERSION, '-V, --version')
    .showHelpAfterError()
    .configureHelp({ showGlobalOptions: false });
  for (const register of [
    registerRun,
    registerReport,
    registerImport,
    registerCompare,
    registerHw,
    registerServe,
    registerSim,
    registerValidate,
  ]) {
    register(program);
  }
  // Usage errors exit 2 with the usage shown; --help and --version exit 0.
  program.exitOverride();
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    process.exitCode = EXIT.usage;
    return;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      const helpish = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code);
      process.exitCode = helpish ? EXIT.ok : EXIT.usage;
      return;
    }
    process.stderr.write(`speedmatrix: ${(e as Error).message}\n`);
    process.exitCode = EXIT.failed;
  }
}
