/**
 * `speedmatrix run`: benchmark a server into a speed test matrix.
 *   run --url URL [...]               a running server (attach)
 *   run --launch [...] -- CMD...      start one through the supervisor, stop it at the end
 *   run --demo                        the simulator (profile a), a compact matrix in about 2 minutes
 *   run --resume FILE                 continue a session where it stopped
 * Exit codes: 0 completed (even with failed cells), 1 could not run, 2 usage error, 130 cancelled.
 * This file only declares the flags (workflows/inputs/run-input.ts reads them); ./run-action.ts runs.
 */
import type { Command } from 'commander';
import { DEFAULT_CONCURRENCY_WORDS } from '#shared/default-concurrency';
import type { RunFlags } from './flag-types';
import { addSshOptions, type SshFlags } from './ssh-flags';

/** The matrix's options, shared by `run` and `sweep`. */
export function addMatrixOptions(cmd: Command): Command {
  return cmd
    .option(
      '--contexts <list>',
      'decode contexts, e.g. 0,8k,16k,32k (default: 0,8K,16K,32K,64K,128K and the largest that fits)',
    )
    .option('--concurrency <list>', `simultaneous requests, e.g. 1,2,4 (default: ${DEFAULT_CONCURRENCY_WORDS})`)
    .option(
      '--prefill-contexts <list>',
      'contexts measured for prefill (default: the decode contexts plus 256K where it fits; "none" for none)',
    )
    .option('--duration <seconds>', 'measurement window per cell (default: 30); with --precision, the longest one')
    .option(
      '--precision <percent>',
      'stop each decode cell once its total tok/s is known to ±this, e.g. 1% (a 95% interval; docs/adaptive-precision.md)',
    )
    .option('--min-duration <seconds>', 'with --precision: the shortest window per cell (default: 5)')
    .option('--max-output <tokens>', 'max_tokens of every request (default: 4096)')
    .option(
      '--output-len <tokens>',
      "each decode request's max_tokens drawn from 256 (fixed), 128-512 (uniform) or 256~64 (normal), in place of --max-output",
    )
    .option(
      '--shared-prefix <tokens>',
      'the same text of about this many tokens first in every prompt (prefix caching)',
    )
    .option('--token-targeting <mode>', 'exact (POST /tokenize) or estimate (default: exact)')
    .option('--kv-budget <tokens>', 'KV cache budget in tokens, when the server does not state one')
    .option(
      '--repeat <n>',
      'measure every cell n times in interleaved passes; figures are means with a 95% interval (default: 1)',
    );
}

export function registerRun(program: Command): void {
  const run = program
    .command('run')
    .description(
      'Benchmark a server: prefill and sustained decode across contexts and concurrency (try `run --demo` first).',
    )
    .usage('--url URL [options] | --launch [options] -- CMD... | --demo | --resume FILE')
    .argument('[cmd...]', 'with --launch: the server command after --, e.g. -- vllm serve Qwen/Qwen3-0.6B --port 8000')
    .option('--url <url>', 'a running OpenAI-compatible server, e.g. http://127.0.0.1:8000')
    .option(
      '--api-key-file <file>',
      'read the Bearer key for /v1 from this file (or set SPEEDMATRIX_API_KEY); never written to files',
    )
    .option('--api-key <key>', 'the key itself: avoid, it shows in the process list, shell history and npm logs')
    .option('--model <name>', 'served model to benchmark (default: the first one served)');
  addMatrixOptions(run)
    .option(
      '--hardware <file>',
      "the server's hardware, for a server on another machine: `speedmatrix hw --json > hw.json` run there",
    )
    .option(
      '--out <file>',
      'session file (default: ./speedmatrix-<model>-<time>.speedmatrix.json; --demo: ./speedmatrix-demo-<model>-<time>...)',
    )
    .option('--report <file.md>', 'also write a Markdown report')
    .option('--resume <file>', 'continue this session: the same plan, only the cells not done')
    .option('--json-progress', 'print one JSON event per line instead of a progress bar')
    .option('--reattach <id>', 'with --ssh: follow the run with this id on the host again, or resume it there')
    .option('--launch', 'start the server command given after -- through the supervisor, stop it at the end')
    .option(
      '--demo',
      'launch the simulator (profile rtx-pro-6000-fara-4b-bf16) and run a compact matrix, about 2 minutes',
    )
    .option(
      '--sim-speed <x>',
      "a simulator's clock speed-up (default: 10 with --demo; a simulator attached by --url: give its --sim-speed); times are then in simulated seconds",
    )
    .option('--ready-timeout <seconds>', 'with --launch/--demo: startup deadline (default: 1200)')
    .option('-y, --yes', 'with --launch/--demo: end servers an earlier killed run left running, without asking')
    .option(
      '--scout-deadline-floor <seconds>',
      'a prefill scout waits at least this long (default: 120); it waits twice the time expected from smaller prefills',
    )
    .option(
      '--scout-deadline-cap <seconds>',
      'and at most this long (default: 3600; a 256K prefill on a slow card takes minutes)',
    );
  addSshOptions(run).action(async (cmd: string[], flags: RunFlags & SshFlags & { reattach?: string }) => {
    if (flags.ssh || flags.reattach) {
      const { runRemoteCommand } = await import('./run-remote-action');
      process.exitCode = await runRemoteCommand(cmd, flags);
      return;
    }
    const { runBenchmarkCommand } = await import('./run-action');
    process.exitCode = await runBenchmarkCommand(cmd, flags);
  });
}
