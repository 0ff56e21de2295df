/**
 * `speedmatrix run`: benchmark a server into a speed test matrix.
 *   run --url URL [...]               a running server (attach)
 *   run --launch [...] -- CMD...      start one through the supervisor, stop it at the end
 *   run --demo                        the simulator (profile a), a compact matrix in about 2 minutes
 *   run --resume FILE                 continue a session where it stopped
 * Exit codes: 0 completed (even with failed cells), 1 could not run, 2 usage error, 130 cancelled.
 * This file only declares the flags and turns them into a configuration; ./run-action.ts runs.
 */
import type { Command } from 'commander';
import type { RunConfigInput, TokenTargeting } from '../../../engine/bench/types';
import { streamsCeilingReason } from '../../../engine/bench';
import { parseTokenCount } from '#shared/report/format';
import { parseLength, parseTokens } from './load-flags';
import { addSshOptions, type SshFlags } from './ssh-flags';

export interface RunFlags {
  url?: string;
  apiKey?: string;
  apiKeyFile?: string;
  model?: string;
  contexts?: string;
  concurrency?: string;
  prefillContexts?: string;
  duration?: string;
  precision?: string;
  minDuration?: string;
  maxOutput?: string;
  outputLen?: string;
  sharedPrefix?: string;
  tokenTargeting?: string;
  kvBudget?: string;
  repeat?: string;
  out?: string;
  report?: string;
  resume?: string;
  jsonProgress?: boolean;
  launch?: boolean;
  demo?: boolean;
  simSpeed?: string;
  readyTimeout?: string;
  hardware?: string;
  yes?: boolean;
  scoutDeadlineFloor?: string;
  scoutDeadlineCap?: string;
}

class UsageError extends Error {}

function parseCounts(flag: string, text: string, min: number, example: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',')) {
    if (!part.trim()) continue;
    const v = parseTokenCount(part);
    // A fraction is a count only with a K or M suffix (8.5k); "1.5" would be rounded silently.
    const fraction = /\.\d*\s*$/.test(part);
    if (v === null || v < min || fraction)
      throw new UsageError(
        `${flag}: "${part.trim()}" is not a ${min > 0 ? 'positive ' : ''}whole number (e.g. ${flag} ${example}).`,
      );
    out.push(v);
  }
  if (out.length === 0)
    throw new UsageError(`${flag}: give at least one value, comma-separated (e.g. ${flag} ${example}).`);
  return out;
}

export function positiveNumber(flag: string, text: string): number {
  const v = Number(text);
  if (!Number.isFinite(v) || v <= 0) throw new UsageError(`${flag} must be a positive number, got "${text}".`);
  return v;
}

/** The run configuration from the flags (only what was given; the plan fills the method's defaults). */
export function configFromFlags(f: RunFlags): RunConfigInput {
  const c: RunConfigInput = {};
  if (f.contexts) c.contexts = parseCounts('--contexts', f.contexts, 0, '0,8k,32k');
  if (f.concurrency) c.concurrency = parseCounts('--concurrency', f.concurrency, 1, '1,4,16');
  const ceiling = c.concurrency && streamsCeilingReason(c.concurrency);
  if (ceiling) throw new UsageError(ceiling);
  if (f.prefillContexts !== undefined)
    c.prefillContexts =
      f.prefillContexts.trim() === 'none' ? [] : parseCounts('--prefill-contexts', f.prefillContexts, 1, '8k,32k,128k');
  if (f.duration) c.secondsPerMeasurement = positiveNumber('--duration', f.duration);
  if (f.maxOutput) {
    const n = positiveNumber('--max-output', f.maxOutput);
    if (!Number.isInteger(n))
      throw new UsageError(`--max-output must be a whole number of tokens, got "${f.maxOutput}".`);
    c.maxOutputTokens = n;
  }
  Object.assign(c, promptShapeFromFlags(f));
  if (f.tokenTargeting) {
    if (f.tokenTargeting !== 'exact' && f.tokenTargeting !== 'estimate')
      throw new UsageError(`--token-targeting must be exact or estimate, got "${f.tokenTargeting}".`);
    c.tokenTargeting = f.tokenTargeting as TokenTargeting;
  }
  if (f.kvBudget) {
    const v = parseTokenCount(f.kvBudget);
    if (v === null || v <= 0) throw new UsageError(`--kv-budget must be a number of tokens, got "${f.kvBudget}".`);
    c.kvBudgetTokens = v;
  }
  if (f.repeat) {
    const n = positiveNumber('--repeat', f.repeat);
    if (!Number.isInteger(n)) throw new UsageError(`--repeat must be a whole number of times, got "${f.repeat}".`);
    c.repeat = n;
  }
  Object.assign(c, precisionFromFlags(f, c.secondsPerMeasurement));
  checkPrefixFits(c);
  if (f.simSpeed) c.simSpeed = positiveNumber('--sim-speed', f.simSpeed);
  if (f.scoutDeadlineFloor || f.scoutDeadlineCap) {
    c.scoutDeadline = {};
    if (f.scoutDeadlineFloor)
      c.scoutDeadline.floorSeconds = positiveNumber('--scout-deadline-floor', f.scoutDeadlineFloor);
    if (f.scoutDeadlineCap) c.scoutDeadline.capSeconds = positiveNumber('--scout-deadline-cap', f.scoutDeadlineCap);
  }
  return c;
}

/** --output-len and --shared-prefix (docs/method.md, "Prompt shapes"), read by the load command's own parsers. */
export function promptShapeFromFlags(
  f: Pick<RunFlags, 'outputLen' | 'sharedPrefix' | 'maxOutput'>,
): Partial<RunConfigInput> {
  const out: Partial<RunConfigInput> = {};
  if (f.outputLen !== undefined) {
    if (f.maxOutput !== undefined)
      throw new UsageError("--output-len sets each request's max_tokens: leave out --max-output.");
    out.outputLength = parseLength('--output-len', f.outputLen);
  }
  if (f.sharedPrefix !== undefined)
    out.sharedPrefixTokens = parseTokens('--shared-prefix', f.sharedPrefix, '--shared-prefix 4096');
  return out;
}

/** A shared prefix must leave every measured context room for its own part. */
export function checkPrefixFits(c: RunConfigInput): void {
  const prefix = c.sharedPrefixTokens ?? 0;
  const short = [...(c.contexts ?? []), ...(c.prefillContexts ?? [])].filter((x) => x > 0 && x <= prefix);
  if (short.length)
    throw new UsageError(
      `--shared-prefix ${prefix} leaves no room for the context's own part at ${short.join(', ')} tokens: every non-zero context must be longer.`,
    );
}

/** "1%", "0.5 %" or "1": a precision in percent, as a share (0.01). */
export function parsePercent(flag: string, text: string): number {
  const v = Number(text.trim().replace(/\s*%$/, ''));
  if (!Number.isFinite(v) || v <= 0 || v >= 100)
    throw new UsageError(`${flag} must be a percentage above 0 and below 100, e.g. ${flag} 1%; got "${text}".`);
  return v / 100;
}

/** --precision and --min-duration (docs/adaptive-precision.md); --duration stays the longest window. */
function precisionFromFlags(f: RunFlags, maxSeconds: number | undefined): Partial<RunConfigInput> {
  if (f.minDuration && !f.precision)
    throw new UsageError('--min-duration only applies with --precision (e.g. --precision 1% --min-duration 5).');
  if (!f.precision) return {};
  const out: Partial<RunConfigInput> = { precision: parsePercent('--precision', f.precision) };
  if (f.minDuration) {
    const min = positiveNumber('--min-duration', f.minDuration);
    if (maxSeconds !== undefined && min > maxSeconds)
      throw new UsageError(
        `--min-duration (${min} s) is longer than --duration (${maxSeconds} s), the longest window.`,
      );
    out.minSecondsPerMeasurement = min;
  }
  return out;
}

/** The matrix's options, shared by `run` and `sweep`. */
export function addMatrixOptions(cmd: Command): Command {
  return cmd
    .option(
      '--contexts <list>',
      'decode contexts, e.g. 0,8k,16k,32k (default: 0,8K,16K,32K,64K,128K and the largest that fits)',
    )
    .option('--concurrency <list>', 'simultaneous requests, e.g. 1,2,4 (default: 1..128 in powers of two)')
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
