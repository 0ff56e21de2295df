/**
 * The headless `speedmatrix` CLI: the same engine and workflows as the app, for machines with no display.
 * Exit codes: 0 done, 1 could not do it, 2 usage error, 130 cancelled.
 *
 * Start-up is kept short: only commander and the commands' option lists load here; each
 * command loads what it needs (hardware, supervisor, engine, reports) when it runs.
 */
import { Command, CommanderError } from 'commander';
import { APP_VERSION } from '../../platform/runtime/app-version';
import { registerCompare } from './commands/compare';
import { registerHw } from './commands/hw';
import { registerImport } from './commands/import';
import { registerLoad } from './commands/load-flags';
import { registerReport } from './commands/report';
import { registerRun } from './commands/run-flags';
import { registerServe } from './commands/serve-flags';
import { registerSim } from './commands/sim';
import { registerSite } from './commands/site';
import { registerSweep } from './commands/sweep-flags';
import { registerValidate } from './commands/validate';
import { EXIT } from './commands/exit';
import { optionDescription } from './help-format';

/** What follows a usage error: one line naming the help of the command that refused. */
function helpHint(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return `Run '${names.join(' ')} --help' for the options.`;
}

function buildProgram(): Command {
  const program = new Command('speedmatrix')
    .description(
      'LLM inference speed test matrix: prefill and sustained decode across context lengths and concurrency.',
    )
    .version(APP_VERSION, '-V, --version')
    .configureHelp({ showGlobalOptions: false, optionDescription })
    .configureOutput({ outputError: (text, write) => write(`speedmatrix: ${text.replace(/^error: /, '')}`) });
  for (const register of [
    registerRun,
    registerLoad,
    registerReport,
    registerImport,
    registerCompare,
    registerHw,
    registerServe,
    registerSim,
    registerSweep,
    registerSite,
    registerValidate,
  ]) {
    register(program);
  }
  addHelpCommand(program);
  // Usage errors print the error and where the help is (not the whole help), and exit 2.
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const cmd of all(program)) cmd.exitOverride().showHelpAfterError(helpHint(cmd));
  return program;
}

/**
 * `help [command...]`: the help of the command named, however deep (`help sim serve`);
 * commander's own looks at the first name only.
 */
function addHelpCommand(program: Command): void {
  program.helpCommand(false);
  program
    .command('help')
    .description('display help for command')
    .argument('[command...]', 'the command, e.g. run or sim serve')
    .action((names: string[]) => {
      let cmd = program;
      for (const name of names) {
        const sub = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!sub)
          cmd.error(`unknown command '${names.join(' ')}'`, { exitCode: EXIT.usage, code: 'commander.unknownCommand' });
        cmd = sub!;
      }
      cmd.outputHelp();
    });
}

/**
 * `speedmatrix ... | head -2` closes the pipe early. That is no error worth a stack trace, and
 * no reason to stop: what is left to print goes nowhere and the command carries on, so a run
 * still measures and writes its session (never a half-written file), and its exit code stands.
 */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      stream.write = () => true;
    });
  }
}

export async function main(argv: string[]): Promise<void> {
  quietOnClosedPipe();
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
