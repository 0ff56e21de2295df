import type { Command } from 'commander';
import { addSshOptions, type SshFlags } from './ssh-flags';

/** What a person can do on a machine with no GPU. */
const NO_GPU_HINT =
  'No GPU here to benchmark: `speedmatrix run --demo` tries SpeedMatrix against its simulated vLLM server, and `speedmatrix run --url URL` measures a server on another machine.';

/** The hardware and what detecting it said: here, or on the --ssh host by its own speedmatrix. */
async function detect(o: SshFlags, timeoutS: number) {
  if (o.ssh) {
    const [{ parseSshTarget }, { remoteHardware }] = await Promise.all([
      import('../../../workflows/remote/ssh'),
      import('../../../workflows/remote/remote-cli'),
    ]);
    return { ...(await remoteHardware(parseSshTarget(o.ssh, o.sshOption), timeoutS)), seen: undefined };
  }
  const { detectHardware } = await import('../../../platform/hardware/detect');
  return detectHardware({ timeoutMs: timeoutS * 1000 });
}

export function registerHw(program: Command): void {
  const hw = program
    .command('hw')
    .description(
      "Detect this machine: GPUs (nvidia-smi, amd-smi, Apple), CPU, RAM and OS, as the report's Hardware block.",
    )
    .option('--json', "print the session's hardware object (plus what each source saw) as JSON")
    .option('--timeout <seconds>', 'deadline for each external command such as nvidia-smi', '10');
  addSshOptions(hw).action(async (o: { json?: boolean; timeout: string } & SshFlags) => {
    const timeoutS = Number(o.timeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0) {
      process.stderr.write(`speedmatrix hw: --timeout must be a positive number of seconds, got "${o.timeout}"\n`);
      process.exitCode = 2;
      return;
    }
    const { formatHardware } = await import('../../../platform/hardware/format-hw');
    const r = await detect(o, timeoutS);
    if (o.json)
      process.stdout.write(
        `${JSON.stringify({ hardware: r.hardware, seen: r.seen, noGpuMessage: r.noGpuMessage }, null, 2)}\n`,
      );
    else {
      process.stdout.write(formatHardware(r.hardware));
      if (r.noGpuMessage && !o.ssh) process.stdout.write(`\n${NO_GPU_HINT}\n`);
    }
  });
}
