import type { Command } from 'commander';

// Placeholder registration; the command's issue fills in options and the action.
export function registerSim(program: Command): void {
  program
    .command('sim')
    .description('(coming soon)')
    .action(() => {
      process.stderr.write('speedmatrix sim: not available in this build yet.\n');
      process.exitCode = 1;
    });
}
