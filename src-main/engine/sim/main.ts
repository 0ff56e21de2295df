/**
 * Entry of the simulated vLLM server as its own process:
 *   main.ts serve [MODEL] [vllm flags] [sim flags]   the server (see README.md)
 *   main.ts engine-core --parent-pid N              the engine child the server starts
 * Modules load lazily so the engine child stays small.
 */
function main(argv: string[]): void {
  // vLLM keeps serving when whoever read its log goes away (Python ignores SIGPIPE and its
  // logging drops write errors): the simulator does the same instead of dying on EPIPE.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const [cmd, ...rest] = argv;
  if (cmd === 'engine-core') {
    void import('./engine-child').then((m) => m.runEngineChild(rest));
    return;
  }
  if (cmd === 'serve') {
    void import('./serve').then((m) => m.runServe(rest));
    return;
  }
  process.stderr.write('usage: sim serve [MODEL] [vllm flags] [--sim-* flags]   (see src-main/engine/sim/README.md)\n');
  process.exitCode = 2;
}

main(process.argv.slice(2));
