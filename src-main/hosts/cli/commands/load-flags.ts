/**
 * `speedmatrix load`: how many requests per second a server serves, and at what latency (docs/load.md).
 *   load --url URL --rates 1,2,4 [...]      a running server
 *   load --launch [...] -- CMD...           start one through the supervisor, stop it at the end
 *   load --demo                              the simulator, a short sweep
 *   load --url URL --trace FILE              replay a trace at its own arrival times
 * This file declares the flags (workflows/inputs/load-input.ts reads them); ./load-action.ts runs.
 */
import type { Command } from 'commander';
import { LOAD_DEFAULTS } from '../../../workflows/inputs/load-input';
import type { LoadFlags } from './flag-types';

export function registerLoad(program: Command): void {
  program
    .command('load')
    .description(
      'Offer requests at set rates (or sweep them) and measure what the server achieves: rate, tok/s, TTFT, time between tokens, end-to-end latency, goodput.',
    )
    .usage('--url URL --rates LIST|sweep [options] | --launch [options] -- CMD... | --demo')
    .argument('[cmd...]', 'with --launch: the server command after --, e.g. -- vllm serve Qwen/Qwen3-0.6B --port 8000')
    .option('--url <url>', 'a running OpenAI-compatible server, e.g. http://127.0.0.1:8000')
    .option('--api-key-file <file>', 'read the Bearer key for /v1 from this file (or set SPEEDMATRIX_API_KEY)')
    .option('--api-key <key>', 'the key itself: avoid, it shows in the process list and shell history')
    .option('--model <name>', 'served model to load (default: the first one served)')
    .option(
      '--rates <list>',
      'requests per second, e.g. 0.5,1,2,4; or "sweep": a synchronous pass, a throughput pass, then rates between',
    )
    .option(
      '--sweep-points <n>',
      `with --rates sweep: rates between the two passes (default: ${LOAD_DEFAULTS.sweepPoints})`,
    )
    .option('--arrivals <kind>', 'poisson, constant or gamma:CV (CV above 1 is burstier) (default: poisson)')
    .option(
      '--max-in-flight <n>',
      'cap on requests in flight; arrivals past it wait (default: no cap; the throughput pass: 64)',
    )
    .option('--duration <seconds>', `measured seconds of arrivals per rate (default: ${LOAD_DEFAULTS.durationSeconds})`)
    .option(
      '--warmup <seconds>',
      `seconds of arrivals before each rate's window, not measured (default: ${LOAD_DEFAULTS.warmupSeconds})`,
    )
    .option(
      '--input-len <tokens>',
      `prompt tokens: 1024, 512-2048 (uniform) or 1024~256 (normal) (default: ${LOAD_DEFAULTS.inputTokens})`,
    )
    .option('--output-len <tokens>', `output tokens (max_tokens), same forms (default: ${LOAD_DEFAULTS.outputTokens})`)
    .option(
      '--shared-prefix <tokens>',
      'every prompt starts with the same this many tokens (prefix caching) (default: 0)',
    )
    .option(
      '--dataset <file>',
      'prompts from a file: ShareGPT-style JSON, or JSON Lines of {"prompt": ..., "output_len": ...} (nothing is downloaded)',
    )
    .option(
      '--trace <file>',
      'replay a Mooncake trace (JSON Lines of {"timestamp": ms, "input_length", "output_length", "hash_ids"}) at its own times',
    )
    .option('--trace-speed <x>', 'with --trace: replay x times as fast (2: half the gaps) (default: 1)')
    .option(
      '--turns <n>',
      'conversations of n turns: each turn sends the whole history plus a new message (--rates: conversations per second)',
    )
    .option('--think-time <seconds>', 'with --turns: seconds between an answer and the next turn (default: 0)')
    .option('--endpoint <kind>', 'chat (/v1/chat/completions) or completions (/v1/completions) (default: chat)')
    .option('--ignore-eos', 'answers run to their output length (default)')
    .option('--no-ignore-eos', 'answers may end by themselves before their output length')
    .option('--seed <n>', 'seed of arrivals and lengths (default: 0)')
    .option('--slo <targets>', 'per-request latency targets for goodput, e.g. ttft<=500ms,tbt<=50ms,e2e<=20s')
    .option('--hardware <file>', "the server's hardware, for a server on another machine (`speedmatrix hw --json`)")
    .option('--out <file>', 'session file (default: ./speedmatrix-load-<model>-<time>.speedmatrix.json)')
    .option('--json-progress', 'print one JSON event per line')
    .option('--launch', 'start the server command given after -- through the supervisor, stop it at the end')
    .option('--demo', 'launch the simulator and run a short sweep')
    .option(
      '--sim-speed <x>',
      "a simulator's clock speed-up (default: 10 with --demo); times are then in simulated seconds",
    )
    .option('--ready-timeout <seconds>', 'with --launch/--demo: startup deadline (default: 1200)')
    .option('-y, --yes', 'with --launch/--demo: end servers an earlier killed run left running, without asking')
    .action(async (cmd: string[], flags: LoadFlags) => {
      const { runLoadCommand } = await import('./load-action');
      process.exitCode = await runLoadCommand(cmd, flags);
    });
}
