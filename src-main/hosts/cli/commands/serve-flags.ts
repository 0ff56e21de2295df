import type { Command } from 'commander';

export interface ServeFlags {
  readyTimeout: string;
  stopTimeout: string;
  logFile?: string;
  json?: boolean;
  yes?: boolean;
}

export function registerServe(program: Command): void {
  program
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
    .option('-y, --yes', 'end servers an earlier killed SpeedMatrix left running, without asking')
    .action(async (cmd: string[], o: ServeFlags) => {
      const { serveCommand } = await import('./serve-action');
      process.exitCode = await serveCommand(cmd, o);
    });
}
