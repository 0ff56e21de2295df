import type { Command } from 'commander';

// Placeholder registration; the command's issue fills in options and the action.
export function registerHw(program: Command): void {
  program
    .command('hw')
    .description('(coming soon)')
    .action(() => {
      process.stderr.write('speedmatrix hw: not available in this build yet.\n');
      process.exitCode = 1;
    });
}
