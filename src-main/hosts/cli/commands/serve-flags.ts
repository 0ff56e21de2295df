import type { Command } from 'commander';
import type { ServeFlags } from './flag-types';
import { addSshOptions, type SshFlags } from './ssh-flags';

export function registerServe(program: Command): void {
  const serve = program
    .command('serve')
    .description(
      'Run any server command under the supervisor: progress, the ready line (URL, model, max_model_len, KV budget), a clean stop on Ctrl-C.',
    )
    .usage('[options] -- CMD...')
    .argument('<cmd...>', 'the server command, after --, e.g. -- vllm serve Qwen/Qwen3-0.6B --port 8000')
    .option('--ready-timeout <seconds>', 'startup deadline', '1200')
    .option('--stop-timeout <seconds>', 'wait after SIGTERM before SIGKILL of the whole process group', '30')
    .option('--log-file <file>', 'also write the server log (ANSI stripped) to this file')
    .option('--json', 'print one JSON object per event instead of text')
    .option('-y, --yes', 'end servers an earlier killed SpeedMatrix left running, without asking');
  addSshOptions(serve)
    .option('--reattach <id>', 'with --ssh: follow the server with this id on the host again')
    .action(async (cmd: string[], o: ServeFlags & SshFlags & { reattach?: string }) => {
      if (o.ssh || o.reattach) {
        const { serveRemoteCommand } = await import('./serve-remote-action');
        process.exitCode = await serveRemoteCommand(cmd, o);
        return;
      }
      const { serveCommand } = await import('./serve-action');
      process.exitCode = await serveCommand(cmd, o);
    });
}
