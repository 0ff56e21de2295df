import type { Command } from 'commander';

export function registerHw(program: Command): void {
  program
    .command('hw')
    .description(
      "Detect this machine: GPUs (nvidia-smi, amd-smi, Apple), CPU, RAM and OS, as the report's Hardware block.",
    )
    .option('--json', "print the session's hardware object (plus what each source saw) as JSON")
    .option('--timeout <seconds>', 'deadline for each external command such as nvidia-smi', '10')
    .action(async (o: { json?: boolean; timeout: string }) => {
      const timeoutS = Number(o.timeout);
      if (!Number.isFinite(timeoutS) || timeoutS <= 0) {
        process.stderr.write(`speedmatrix hw: --timeout must be a positive number of seconds, got "${o.timeout}"\n`);
        process.exitCode = 2;
        return;
      }
      const [{ detectHardware }, { formatHardware }] = await Promise.all([
        import('../../../platform/hardware/detect'),
        import('../../../platform/hardware/format-hw'),
      ]);
      const r = await detectHardware({ timeoutMs: timeoutS * 1000 });
      if (o.json)
        process.stdout.write(
          `${JSON.stringify({ hardware: r.hardware, seen: r.seen, noGpuMessage: r.noGpuMessage }, null, 2)}\n`,
        );
      else process.stdout.write(formatHardware(r.hardware));
    });
}
