import type { Command } from 'commander';

// Placeholder registration; the command's issue fills in options and the action.
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('(coming soon)')
    .action(() => {
      process.stderr.write('speedmatrix serve: not available in this build yet.\n');
      process.exitCode = 1;
    });
}
