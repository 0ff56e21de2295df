/**
 * `speedmatrix sweep --vary FLAG=V1,V2 [--vary ...] [matrix options] --out-dir DIR -- CMD...`:
 * the same matrix for every combination of launch settings, one server at a time.
 * `sweep --resume DIR` finishes what a stopped sweep left. With --slurm each variant is a Slurm
 * batch job instead (./sweep-slurm-action.ts); `sweep --status DIR` and `sweep --report DIR` read a sweep folder. This file only declares the flags;
 * ./sweep-action.ts runs.
 */
import { type Command, Option } from 'commander';
import type { SweepFlags } from './flag-types';
import { addMatrixOptions } from './run-flags';
import { addSshOptions, type SshFlags } from './ssh-flags';

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
    .option('--resume <dir>', 'finish a stopped sweep: variants not done are run (partly measured ones resume)')
    .option(
      '--slurm',
      'submit each variant as a Slurm batch job (sbatch); the folder must be on storage the nodes share',
    )
    .option(
      '--slurm-option <option>',
      'an sbatch option for every job, e.g. --slurm-option=--partition=gpu --slurm-option=--gres=gpu:1 (repeat)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--slurm-poll <seconds>', "how often a Slurm sweep asks for its jobs' states while it waits (default: 10)")
    .option('--status <dir>', "a sweep's variants: for a Slurm sweep each job's state, a failed one's reason and log")
    .option('--report <dir>', 'write sweep.md and sweep.html from what the sweep folder holds now')
    .addOption(new Option('--slurm-job <variant>').hideHelp());
  addMatrixOptions(sweep)
    .option('--api-key-file <file>', 'the Bearer key for /v1 from this file (or set SPEEDMATRIX_API_KEY)')
    .option('--sim-speed <x>', "a simulator's clock speed-up; times are then in simulated seconds")
    .option('--ready-timeout <seconds>', 'startup deadline of each server (default: 1200)')
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
      const slurm = await import('./sweep-slurm-action');
      process.exitCode = flags.slurmJob
        ? await slurm.runSlurmJob(flags.slurmJob, flags)
        : flags.status
          ? await slurm.sweepStatusCommand(flags.status)
          : flags.report
            ? await slurm.sweepReportCommand(flags.report)
            : (await slurm.isSlurmSweep(flags))
              ? await slurm.runSlurmSweep(cmd, flags)
              : await runSweepCommand(cmd, flags);
    });
}
