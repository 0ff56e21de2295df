import type { Command } from 'commander';
import { simHelp } from '../../../engine/sim/help';

/**
 * `speedmatrix sim serve MODEL [vllm flags] [sim flags]`: the simulated vLLM server, in this
 * process. Its argv is parsed by the simulator itself, so unknown vLLM flags pass through.
 */
export function registerSim(program: Command): void {
  const sim = program
    .command('sim')
    .description('Simulated vLLM server for demos and tests (sim serve --help lists its flags and profiles).');
  sim
    .command('serve')
    .description('Start the simulated vLLM server; takes `vllm serve` flags plus --sim-* flags.')
    // Its flags are the simulator's own (`help sim serve` prints them too); --help is read below.
    .configureHelp({ formatHelp: () => simHelp() })
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]', 'MODEL, vLLM flags and --sim-* flags')
    .action(async (args: string[]) => {
      if (args.includes('--help') || args.includes('-h')) {
        process.stdout.write(simHelp());
        return;
      }
      const { runServe } = await import('../../../engine/sim/serve');
      await runServe(args);
    });
}
