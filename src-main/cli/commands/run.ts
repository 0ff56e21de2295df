import type { Command } from 'commander';

// Placeholder registration; the command's issue fills in options and the action.
export function registerRun(program: Command): void {
  program
    .command('run')
    .description('(coming soon)')
    .action(() => {
      process.stderr.write('speedmatrix run: not available in this build yet.\n');
      process.exitCode = 1;
    });
}
