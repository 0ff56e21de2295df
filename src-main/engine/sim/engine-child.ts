/**
 * The "engine core" child process. It holds nothing real; it exists so the process tree looks
 * like vLLM's (API server -> VLLM::EngineCore): SIGKILL of the leader leaves it orphaned for a
 * while, as on a real machine, and it exits on its own once the leader has been gone a few seconds.
 * In the app it is the leader's sibling, both started by the app (engine-process.ts): it watches
 * the leader's pid, and goes too when the app that started it goes.
 */
export function runEngineChild(argv: string[]): void {
  process.title = 'VLLM::EngineCore';
  const i = argv.indexOf('--parent-pid');
  const parent = i >= 0 ? Number(argv[i + 1]) : process.ppid;
  // Whoever started it (the leader, or the app) is gone once it is re-parented.
  const starter = process.ppid;
  const orphanMs = Number(process.env.SIM_ENGINE_ORPHAN_SECONDS ?? 3) * 1000;
  let goneSince: number | undefined;
  const alive = (): boolean => {
    if (process.ppid !== starter) return false;
    try {
      process.kill(parent, 0);
      return true;
    } catch {
      return false;
    }
  };
  setInterval(() => {
    if (alive()) {
      goneSince = undefined;
      return;
    }
    goneSince ??= Date.now();
    if (Date.now() - goneSince >= orphanMs) process.exit(0);
  }, 250);
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => process.exit(0));
}
