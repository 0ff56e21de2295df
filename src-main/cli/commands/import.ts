import type { Command } from 'commander';

// Placeholder registration; the command's issue fills in options and the action.
export function registerImport(program: Command): void {
  program
    .command('import')
    .description('(coming soon)')
    .action(() => {
      process.stderr.write('speedmatrix import: not available in this build yet.\n');
      process.exitCode = 1;
    });
}
