import type { Command } from 'commander';

// Placeholder registration; the command's issue fills in options and the action.
export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('(coming soon)')
    .action(() => {
      process.stderr.write('speedmatrix compare: not available in this build yet.\n');
      process.exitCode = 1;
    });
}
