/**
 * Start the real simulated vLLM server (src-main/engine/sim) as a separate process on a free port,
 * wait until it answers /health, and clean it up (leader and its engine child) afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { nodeProgram } from '../../src-main/platform/runtime/node-entry';
import { ROOT } from './paths';
import { killGroupNow } from '../../src-main/engine/server/orphans';
import { signalChild } from '../../src-main/platform/processes/signal-child';

/**
 * The real 12 GB consumer card's launch line, for the `consumer-12gb-4b-int4` profile: at 256K only its int4 KV cache
 * leaves room for a request (float16 would not).
 */
export const CONSUMER_CARD_ARGS = [
  ...['--max-model-len', '262144', '--gpu-memory-utilization', '0.94'],
  ...['--max-num-seqs', '128', '--kv-cache-dtype', 'int4_per_token_head'],
];

export interface StartSimOptions {
  /** MODEL argument (default: the profile's model name). */
  model?: string;
  /** --sim-profile NAME|FILE */
  profile?: string;
  /** Extra vLLM / sim flags, passed as they are. */
  args?: string[];
  /** --sim-speed (default 1). */
  speed?: number;
  /** --sim-debug: enables GET /sim/requests. */
  debug?: boolean;
  /** --api-key */
  apiKey?: string;
  /** --sim-load-seconds (default 0.2). */
  loadSeconds?: number;
  /** How long to wait for /health (default 45 s). */
  readyTimeoutMs?: number;
  /** Do not wait for /health (for tests of failing starts); resolves once spawned. */
  noWait?: boolean;
}

export interface SimHandle {
  url: string;
  port: number;
  pid: number;
  proc: ChildProcess;
  /** stdout + stderr so far, ANSI codes included. */
  logs(): string;
  /** The engine child's pid, read from its `(EngineCore_DP0 pid=N)` log prefix. */
  enginePid(): number | undefined;
  /** Resolves with the exit code once the leader has exited. */
  exited: Promise<number | null>;
  /** SIGTERM the leader, wait up to 8 s, then SIGKILL its whole process group (engine included). */
  stop(): Promise<void>;
}

const live = new Set<SimHandle>();
process.once('exit', () => {
  for (const h of live) killGroup(h.pid);
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** End a simulator's whole process group, through the supervisor's own process control. */
function killGroup(pid: number): void {
  killGroupNow(pid);
}

export async function startSim(opts: StartSimOptions = {}): Promise<SimHandle> {
  // The free port can be taken by someone else before the sim binds it: try another one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (e) {
      if (attempt >= 3 || !/Address already in use/.test((e as Error).message)) throw e;
    }
  }
}

async function startOnce(opts: StartSimOptions): Promise<SimHandle> {
  const port = await freePort();
  const cmd = nodeProgram('sim');
  const args = [...cmd.args, 'serve'];
  if (opts.model) args.push(opts.model);
  args.push('--host', '127.0.0.1', '--port', String(port));
  args.push('--sim-load-seconds', String(opts.loadSeconds ?? 0.2));
  if (opts.profile) args.push('--sim-profile', opts.profile);
  if (opts.speed !== undefined) args.push('--sim-speed', String(opts.speed));
  if (opts.debug) args.push('--sim-debug');
  if (opts.apiKey) args.push('--api-key', opts.apiKey);
  args.push(...(opts.args ?? []));

  // Own process group, so stop() can take the engine child down with the leader.
  const proc = spawn(cmd.command, args, {
    cwd: ROOT,
    env: { ...process.env, VLLM_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  const handle: SimHandle = {
    url,
    port,
    pid: proc.pid!,
    proc,
    logs: () => out,
    enginePid: () => {
      // eslint-disable-next-line no-control-regex
      const m = /\(EngineCore(?:_DP0)? pid=(\d+)\)/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''));
      return m ? Number(m[1]) : undefined;
    },
    exited,
    stop: async () => {
      const engine = handle.enginePid();
      if (proc.exitCode === null && proc.signalCode === null) {
        signalChild(proc, 'SIGTERM');
        const timer = new Promise((r) => setTimeout(r, 8000));
        await Promise.race([exited, timer]);
      }
      killGroup(proc.pid!);
      if (engine) {
        try {
          process.kill(engine, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      live.delete(handle);
    },
  };
  live.add(handle);
  if (opts.noWait) return handle;

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 45_000);
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) {
      await handle.stop();
      throw new Error(`simulator exited before it was ready (code ${proc.exitCode}). Log:\n${out}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return handle;
    } catch {
      /* connection refused while loading */
    }
    if (Date.now() > deadline) {
      await handle.stop();
      throw new Error(`simulator not ready after ${opts.readyTimeoutMs ?? 45_000} ms. Log:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
