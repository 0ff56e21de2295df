import type { Command } from 'commander';

// Placeholder registration; the command's issue fills in options and the action.
export function registerReport(program: Command): void {
  program
    .command('report')
    .description('(coming soon)')
    .action(() => {
      process.stderr.write('speedmatrix report: not available in this build yet.\n');
      process.exitCode = 1;
    });
}
