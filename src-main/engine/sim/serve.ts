/**
 * `serve`: start the simulated vLLM server the way vLLM starts (log lines, load delay during
 * which connections are refused, startup errors in vLLM's words), run it, and shut it down on
 * SIGTERM/SIGINT with vLLM's shutdown lines.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { applyProfileVersion, parseServeArgs, type ServeConfig } from './args';
import { Engine } from './engine';
import { type EngineProcess, startEngineProcess } from './engine-process';
import { StepJitter } from './jitter';
import { SimHttp } from './http';
import { Logger, colours, paint, thousands } from './logs';
import { SIM_LAG_METRIC } from './metrics';
import { availableKvLine, planKv, type KvPlan } from './kv-budget';
import { loadProfile, type Profile } from './profile';
import { buildProse } from './text';
import { vllmTraits } from './vllm-traits';

/** How long a crashed server keeps answering (/health 503) before it exits. */
const CRASH_EXIT_MS = 1000;
/** How often the log says how much of its own clock the engine gave up (as vLLM's stats line, every 10 s). */
const LAG_LOG_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Python's repr of the `non-default args` dict. */
function pyRepr(v: unknown): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  return 'None';
}

const ROUTES: [string, string][] = [
  ['/openapi.json', 'GET, HEAD'],
  ['/docs', 'GET, HEAD'],
  ['/health', 'GET'],
  ['/load', 'GET'],
  ['/ping', 'POST, GET'],
  ['/tokenize', 'POST'],
  ['/detokenize', 'POST'],
  ['/v1/models', 'GET'],
  ['/version', 'GET'],
  ['/v1/chat/completions', 'POST'],
  ['/v1/completions', 'POST'],
  ['/metrics', 'GET'],
];

/** One simulated server process: its API server, its engine core, their logs, and their ends. */
class SimulatedServer {
  private readonly out = (s: string) => process.stdout.write(s);
  private readonly err = (s: string) => process.stderr.write(s);
  readonly log: Logger;
  private child?: EngineProcess;
  private http?: Server;
  private engine?: Engine;
  private readonly sockets = new Set<Socket>();
  private stopping = false;
  private dead = false;
  private statsTimer?: NodeJS.Timeout;
  private lagTimer?: NodeJS.Timeout;

  constructor(
    private readonly cfg: ServeConfig,
    private readonly profile: Profile,
  ) {
    this.log = new Logger(this.out, process.pid, 0, colours(process.stdout));
  }

  private get model(): string {
    return this.cfg.model ?? this.profile.model.name;
  }

  /** A failure message as the profile's release words it (the device is named from December 2025). */
  private inVersionWords(message: string): string {
    return vllmTraits(this.profile.vllmVersion).freeMemoryNamesDevice
      ? message.replace('Free memory on device (', 'Free memory on device cuda:0 (')
      : message;
  }

  /** A startup failure: the root cause in vLLM's shape, then exit 1. */
  private engineFailure(message: string): never {
    const src = 'core.py:708';
    this.log.engine('ERROR', src, 'EngineCore failed to start.');
    this.log.engine('ERROR', src, 'Traceback (most recent call last):');
    this.log.engine(
      'ERROR',
      src,
      '  File "/usr/lib/python3/site-packages/vllm/v1/engine/core.py", line 699, in run_engine_core',
    );
    this.log.engine('ERROR', src, message);
    this.err(
      `Process EngineCore_DP0:\nTraceback (most recent call last):\n  File "/usr/lib/python3/site-packages/vllm/v1/engine/core.py", line 712, in run_engine_core\n    raise e\n${message}\n`,
    );
    this.apiFailure('RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}');
  }

  private apiFailure(message: string): never {
    const prefix = paint(colours(process.stderr), '\x1b[1;36m', `(APIServer pid=${process.pid})`);
    this.err(`${prefix} Traceback (most recent call last):\n`);
    this.err(`${prefix}   File "/usr/bin/vllm", line 10, in <module>\n`);
    this.err(`${prefix} ${message}\n`);
    this.exitFailed();
  }

  private exitFailed(): never {
    this.killChild('SIGKILL');
    process.exit(1);
  }

  private async spawnChild(): Promise<void> {
    this.child = await startEngineProcess();
    this.log.enginePid = this.child.pid;
  }

  private killChild(signal: NodeJS.Signals): void {
    this.child?.signal(signal);
  }

  private async portFree(): Promise<boolean> {
    return new Promise((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(this.cfg.port, this.cfg.host, () => probe.close(() => resolve(true)));
    });
  }

  /**
   * A port another program holds: one line a person can act on, in the words of the error vLLM
   * raises (which is what a supervisor reading the log recognises), not a traceback.
   */
  private portBusy(): never {
    this.err(
      `OSError: [Errno 98] Address already in use: port ${this.cfg.port} is taken by another program; choose another --port.\n`,
    );
    this.exitFailed();
  }

  private kvLines(plan: KvPlan): void {
    const src = 'kv_cache_utils.py:1087';
    const conc = `Maximum concurrency for ${thousands(plan.maxModelLen)} tokens per request: ${plan.maxConcurrency.toFixed(2)}x`;
    switch (this.cfg.sim.logStyle) {
      case 1:
        this.log.engine('INFO', 'gpu_executor.py:122', `# GPU blocks: ${plan.numGpuBlocks}, # CPU blocks: 2048`);
        this.log.engine(
          'INFO',
          'gpu_executor.py:126',
          `Maximum concurrency for ${plan.maxModelLen} tokens per request: ${plan.maxConcurrency.toFixed(2)}x`,
        );
        break;
      case 2:
        this.log.engine('INFO', src, `GPU KV cache size: ${thousands(plan.kvCacheTokens)} tokens`);
        this.log.engine('INFO', 'kv_cache_utils.py:1091', conc);
        break;
      case 3:
        this.log.engine('INFO', src, `GPU KV cache size: ${thousands(plan.kvCacheTokens)} tokens, ${conc}`);
        break;
    }
  }

  /** vLLM's version line of the profile's release: the old sentence, or the logo (vllm/entrypoints/utils.py). */
  private versionLine(): void {
    const v = this.profile.vllmVersion;
    if (vllmTraits(v).versionLine === 'api-server') {
      this.log.api('INFO', 'api_server.py:1839', `vLLM API server version ${v}`);
      return;
    }
    const [w, o, b, r] = this.log.colour ? ['\x1b[97;1m', '\x1b[93m', '\x1b[94m', '\x1b[0m'] : ['', '', '', ''];
    this.log.api('INFO', 'utils.py:299', '');
    this.log.raw(`       ${w}█     █     █▄   ▄█${r}`);
    this.log.raw(` ${o}▄▄${r} ${b}▄█${r} ${w}█     █     █ ▀▄▀ █${r}  version ${w}${v}${r}`);
    this.log.raw(`  ${o}█${r}${b}▄█▀${r} ${w}█     █     █     █${r}  model   ${w}${this.model}${r}`);
    this.log.raw(`   ${b}▀▀${r}  ${w}▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀${r}`);
  }

  async start(): Promise<void> {
    const { cfg, profile, log } = this;
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void this.shutdown());
    for (const w of cfg.warnings) log.api('WARNING', 'arg_utils.py:1754', w);
    this.versionLine();
    log.api('INFO', 'utils.py:328', `non-default args: ${pyRepr(cfg.nonDefault)}`);
    if (!(await this.portFree())) this.portBusy();

    const r = planKv(profile, {
      maxModelLen: cfg.maxModelLen,
      gpuMemoryUtilization: cfg.gpuMemoryUtilization,
      kvCacheDtype: cfg.kvCacheDtype,
      blockSize: cfg.blockSize,
      tensorParallelSize: cfg.tensorParallelSize,
      enforceEager: enforceEager(cfg),
    });
    const failure = r.ok ? undefined : this.inVersionWords(r.error.lines.join('\n'));
    if (failure?.includes('derived max_model_len')) this.apiFailure(failure);
    const maxLen = r.ok ? r.plan.maxModelLen : cfg.maxModelLen === 'auto' ? profile.model.maxModelLen : cfg.maxModelLen;
    log.api('INFO', 'model.py:1510', `Using max model len ${maxLen}`);
    const servedNames = cfg.servedModelNames.length ? cfg.servedModelNames : [this.model];

    const load = loadSeconds(cfg, profile) * 1000;
    const t0 = performance.now();
    await this.spawnChild();
    log.engine(
      'INFO',
      'core.py:77',
      `Initializing a V1 LLM engine (v${profile.vllmVersion}) with config: model='${this.model}', speculative_config=None, tokenizer='${this.model}', dtype=torch.${profile.model.dtype}, max_seq_len=${maxLen}, download_dir=None, load_format=auto, tensor_parallel_size=${cfg.tensorParallelSize}, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=${enforceEager(cfg) ? 'True' : 'False'}, kv_cache_dtype=${cfg.kvCacheDtype}, device_config=cuda, served_model_name=${servedNames[0]}, enable_prefix_caching=${cfg.enablePrefixCaching ? 'True' : 'False'}, chunked_prefill_enabled=True`,
    );
    if (failure?.startsWith('ValueError: Free memory')) this.engineFailure(failure);
    await sleep(load * 0.1);
    log.engine('INFO', 'gpu_model_runner.py:1953', `Starting to load model ${this.model}...`);
    const tLoad = performance.now();
    await sleep(load * 0.5);
    if (failure?.startsWith('torch.OutOfMemoryError')) this.engineFailure(failure);
    log.engine(
      'INFO',
      'gpu_model_runner.py:1985',
      `Model loading took ${profile.model.weightsGiB.toFixed(2)} GiB memory and ${((performance.now() - tLoad) / 1000).toFixed(6)} seconds`,
    );
    // With --enforce-eager vLLM neither compiles nor captures graphs, and prints neither line.
    const eager = enforceEager(cfg);
    if (!eager) {
      const tCompile = performance.now();
      await sleep(load * 0.15);
      log.engine(
        'INFO',
        'monitor.py:53',
        `torch.compile took ${((performance.now() - tCompile) / 1000).toFixed(2)} s in total`,
      );
    }
    await sleep(load * 0.1);
    if (!r.ok) this.engineFailure(failure!);
    const plan = r.plan;
    log.engine('INFO', 'gpu_worker.py:298', availableKvLine(plan, profile.vllmVersion));
    this.kvLines(plan);
    if (!eager) {
      const tGraph = performance.now();
      await sleep(load * 0.15);
      log.engine(
        'INFO',
        'gpu_model_runner.py:2767',
        `Graph capturing finished in ${Math.round((performance.now() - tGraph) / 1000)} secs, took ${(profile.memory.cudaGraphGiB ?? 0.45).toFixed(2)} GiB`,
      );
    }
    log.engine(
      'INFO',
      'core.py:218',
      `init engine (profile, create kv cache, warmup model) took ${((performance.now() - t0) / 1000).toFixed(2)} seconds`,
    );
    if (this.stopping) return;

    const f = cfg.sim.faults;
    const engine = new Engine({
      profile,
      numGpuBlocks: plan.numGpuBlocks,
      blockSize: plan.blockSize,
      prefixCaching: cfg.enablePrefixCaching,
      maxNumSeqs: cfg.maxNumSeqs ?? (profile.gpu.memoryGiB >= 70 ? 1024 : 256),
      maxNumBatchedTokens: cfg.maxNumBatchedTokens ?? profile.scheduler.maxNumBatchedTokens,
      maxModelLen: plan.maxModelLen,
      kvBytesPerToken: plan.bytesPerToken,
      speed: cfg.sim.speed,
      jitter: cfg.sim.stepJitter > 0 ? new StepJitter(cfg.sim.stepJitter, cfg.sim.seed) : undefined,
      hangAfterTokens: f.hangAfterTokens,
      crashAfterTokens: f.crashAfterTokens,
      onCrash: () => this.crash(`after ${f.crashAfterTokens} generated tokens (--sim-crash-after-tokens)`),
    });
    this.engine = engine;
    const api = new SimHttp({
      cfg,
      profile,
      plan,
      engine,
      logger: log,
      corpus: buildProse(cfg.sim.seed),
      servedNames,
      modelPath: this.model,
      healthy: () => !this.dead,
    });

    log.api('INFO', 'api_server.py:1611', "Supported_tasks: ['generate']");
    const hostShown = `http://${cfg.host}:${cfg.port}`;
    if (cfg.sim.logStyle === 1) log.api('INFO', 'api_server.py:1880', `Starting vLLM API server 0 on ${hostShown}`);
    else log.api('INFO', 'launcher.py:29', `Starting vLLM server on ${hostShown}`);
    log.api('INFO', 'launcher.py:37', 'Available routes are:');
    for (const [path, methods] of ROUTES) log.api('INFO', 'launcher.py:45', `Route: ${path}, Methods: ${methods}`);

    const server = createServer((req, res) => api.handle(req, res));
    server.keepAliveTimeout = 5000;
    server.on('connection', (s: Socket) => {
      s.setNoDelay(true);
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    this.http = server;
    await new Promise<void>((resolve) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        e.code === 'EADDRINUSE' ? this.portBusy() : this.apiFailure(`OSError: ${e.message}`),
      );
      server.listen(cfg.port, cfg.host, () => resolve());
    });
    log.uvicorn(`Started server process [${process.pid}]`);
    log.uvicorn('Waiting for application startup.');
    log.uvicorn('Application startup complete.');

    if (f.crashAfterSeconds !== undefined) {
      setTimeout(
        () => this.crash(`after ${f.crashAfterSeconds} s (--sim-crash-after-seconds)`),
        f.crashAfterSeconds * 1000,
      ).unref();
    }
    if (cfg.logStats) this.startStats(engine);
    this.watchLag(engine);
  }

  /** Says in the log when the engine gave up part of its schedule (the host was too busy to run it). */
  private watchLag(engine: Engine): void {
    let last = engine.lagSecondsLost;
    this.lagTimer = setInterval(() => {
      const lost = engine.lagSecondsLost - last;
      last = engine.lagSecondsLost;
      if (lost > 0)
        this.log.engine(
          'WARNING',
          'core.py:300',
          `Simulated engine fell behind its own clock: ${lost.toFixed(3)} simulated seconds could not be caught up in the last 10 s (the host is busy; ${SIM_LAG_METRIC} counts them); measurements taken meanwhile are marked.`,
        );
    }, LAG_LOG_MS);
    this.lagTimer.unref();
  }

  private startStats(engine: Engine): void {
    const preemptionsShown = vllmTraits(this.profile.vllmVersion).statsPreemptions;
    let last = { t: performance.now(), prompt: 0, gen: 0, q: 0, h: 0, pre: 0 };
    this.statsTimer = setInterval(() => {
      const now = performance.now();
      const cur = {
        t: now,
        prompt: engine.prefillComputed,
        gen: engine.generationTokensTotal,
        q: engine.prefixQueries,
        h: engine.prefixHits,
        pre: engine.preemptionsTotal,
      };
      const busy = engine.inFlight > 0 || cur.gen !== last.gen || cur.prompt !== last.prompt;
      if (busy) {
        const s = (now - last.t) / 1000;
        const hit = cur.q > last.q ? ((cur.h - last.h) / (cur.q - last.q)) * 100 : 0;
        // vllm/v1/metrics/loggers.py: "Preemptions: N" only when some happened since the last line.
        const preempted = preemptionsShown && cur.pre > last.pre ? `Preemptions: ${cur.pre - last.pre}, ` : '';
        this.log.api(
          'INFO',
          'loggers.py:123',
          `Engine 000: Avg prompt throughput: ${((cur.prompt - last.prompt) / s).toFixed(1)} tokens/s, Avg generation throughput: ${((cur.gen - last.gen) / s).toFixed(1)} tokens/s, Running: ${engine.running.length} reqs, Waiting: ${engine.waiting.length} reqs, ${preempted}GPU KV cache usage: ${(engine.pool.usage * 100).toFixed(1)}%, Prefix cache hit rate: ${hit.toFixed(1)}%`,
        );
      }
      last = cur;
    }, 10_000);
    this.statsTimer.unref();
  }

  /** Fault: the engine dies mid-run and takes the server with it (exit 1). */
  private crash(why: string): void {
    if (this.stopping) return;
    this.stopping = true;
    this.dead = true;
    this.engine?.stop();
    this.log.engine('ERROR', 'core.py:781', 'EngineCore encountered a fatal error.');
    this.log.engine('ERROR', 'core.py:781', `RuntimeError: simulated engine crash ${why}`);
    this.log.api('ERROR', 'async_llm.py:480', 'AsyncLLM output_handler failed.');
    const dead = 'EngineCore encountered an issue. See stack trace (above) for the root cause.';
    this.log.api('ERROR', 'async_llm.py:480', `vllm.v1.engine.exceptions.EngineDeadError: ${dead}`);
    this.killChild('SIGKILL');
    // Like vLLM: open streams get the error, /health answers 503, then the server goes down.
    this.engine?.failAll(dead);
    setTimeout(() => {
      this.log.api('INFO', 'launcher.py:99', 'Shutting down FastAPI HTTP server.');
      for (const s of this.sockets) s.destroy();
      process.exit(1);
    }, CRASH_EXIT_MS);
  }

  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.statsTimer) clearInterval(this.statsTimer);
    if (this.lagTimer) clearInterval(this.lagTimer);
    this.log.api('INFO', 'launcher.py:99', 'Shutting down FastAPI HTTP server.');
    this.engine?.stop();
    this.http?.close();
    for (const s of this.sockets) s.destroy();
    this.log.uvicorn('Shutting down');
    this.log.uvicorn('Waiting for application shutdown.');
    this.log.uvicorn('Application shutdown complete.');
    const c = this.child;
    if (c) {
      c.signal('SIGTERM');
      if (!(await c.ended(5000))) {
        c.signal('SIGKILL');
        await c.ended(1000);
      }
    }
    this.log.uvicorn(`Finished server process [${process.pid}]`);
    process.exit(0);
  }
}

/** Wall seconds of loading before the server listens: --sim-load-seconds, else the profile's at --sim-speed. */
function loadSeconds(cfg: ServeConfig, profile: Profile): number {
  return cfg.sim.loadSeconds ?? profile.startup.loadSeconds / cfg.sim.speed;
}

/**
 * How long `serve` with this argv (after the word `serve`) loads before it answers /health, for
 * plans made before it starts; null when it would refuse the arguments.
 */
export function serveLoadSeconds(argv: string[]): number | null {
  const parsed = parseServeArgs(argv);
  const profile = parsed.ok ? loadProfile(parsed.data.sim.profile) : null;
  if (!parsed.ok || !profile?.ok) return null;
  return loadSeconds(parsed.data, profile.data) * (enforceEager(parsed.data) ? 1 - EAGER_SKIPS : 1);
}

/** The share of the load --enforce-eager skips, as vLLM does: no torch.compile (15%), no graph capture (15%). */
const EAGER_SKIPS = 0.3;
const enforceEager = (cfg: ServeConfig): boolean => cfg.nonDefault.enforce_eager === true;

/** Run `serve` with its argv (after the word `serve`). Exits the process when done. */
export async function runServe(argv: string[]): Promise<void> {
  const parsed = parseServeArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(`usage: vllm serve [model_tag] [options]\nvllm serve: error: ${parsed.error}\n`);
    process.exitCode = 2;
    return;
  }
  const profile = loadProfile(parsed.data.sim.profile);
  if (!profile.ok) {
    process.stderr.write(`sim serve: ${profile.error}\n`);
    process.exitCode = 1;
    return;
  }
  const cfg = applyProfileVersion(parsed.data, profile.data.vllmVersion);
  if (!cfg.ok) {
    process.stderr.write(`usage: vllm serve [model_tag] [options]\nvllm serve: error: ${cfg.error}\n`);
    process.exitCode = 2;
    return;
  }
  await new SimulatedServer(cfg.data, profile.data).start();
}
