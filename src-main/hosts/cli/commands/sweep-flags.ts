/**
 * `speedmatrix sweep --vary FLAG=V1,V2 [--vary ...] [matrix options] --out-dir DIR -- CMD...`:
 * the same matrix for every combination of launch settings, one server at a time.
 * `sweep --resume DIR` finishes what a stopped sweep left. This file only declares the flags;
 * ./sweep-action.ts runs.
 */
import type { Command } from 'commander';
import { addMatrixOptions, type RunFlags } from './run-flags';
import { addSshOptions, type SshFlags } from './ssh-flags';

export interface SweepFlags extends RunFlags {
  vary: string[];
  outDir?: string;
}

export function registerSweep(program: Command): void {
  const sweep = program
    .command('sweep')
    .description(
      'Run the same matrix for every combination of launch settings: which settings are fastest for this load.',
    )
    .usage('--vary FLAG=V1,V2 [--vary ...] [options] --out-dir DIR -- CMD... | --resume DIR')
    .argument('[cmd...]', 'the server command after --, e.g. -- vllm serve Qwen/Qwen3-8B --port 8000')
    .option(
      '--vary <FLAG=V1,V2>',
      'a launch flag and its values, e.g. --vary --max-num-seqs=64,128,256 (repeat for more flags)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--out-dir <dir>', 'the sweep folder: one session file per variant, sweep.md, sweep.html, sweep.json')
    .option('--resume <dir>', 'finish a stopped sweep: variants not done are run (partly measured ones resume)');
  addMatrixOptions(sweep)
    .option('--api-key-file <file>', 'the Bearer key for /v1 from this file (or set SPEEDMATRIX_API_KEY)')
    .option('--sim-speed <x>', "a simulator's clock speed-up; times are then in simulated seconds")
    .option('--ready-timeout <seconds>', 'startup deadline of each server (default 1200)')
    .option('--json-progress', 'print one JSON event per line instead of a progress bar')
    .option('-y, --yes', 'end servers an earlier killed run left running, without asking');
  addSshOptions(sweep)
    .option('--reattach <id>', 'with --ssh: follow the sweep with this id on the host again, or resume it there')
    .action(async (cmd: string[], flags: SweepFlags & SshFlags & { reattach?: string }) => {
      if (flags.ssh || flags.reattach) {
        const { sweepRemoteCommand } = await import('./sweep-remote-action');
        process.exitCode = await sweepRemoteCommand(cmd, flags);
        return;
      }
      const { runSweepCommand } = await import('./sweep-action');
      process.exitCode = await runSweepCommand(cmd, flags);
    });
}
