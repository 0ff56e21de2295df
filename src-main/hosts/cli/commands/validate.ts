import type { Command } from 'commander';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description(
      'Check a session file (.speedmatrix.json) and print a one-screen summary. Exit 0 when valid, 1 when not.',
    )
    .argument('<file>', 'session file to check')
    .action(async (file: string) => {
      const [{ readSessionFile }, { summarizeSession }] = await Promise.all([
        import('../../../platform/session/read'),
        import('../../../platform/session/summary'),
      ]);
      const result = await readSessionFile(file);
      if (!result.ok) {
        process.stderr.write(`INVALID  ${result.error.message}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`VALID  ${file}\n${summarizeSession(result.data)}\n`);
    });
}
