/**
 * Startup failures turned into something a person can act on: what went wrong, the engine's
 * own root-cause line, and advice with real numbers ("lower --max-model-len to at most 157216").
 * Pure: log lines and exit facts in, a StartupFailure out.
 */
import { stripAnsi } from './log-parse';
import { batchFileMessage } from '../../platform/processes/command-lookup';

export type FailureKind =
  | 'no-kv-memory'
  | 'max-seq-len-exceeds-kv'
  | 'free-memory-below-utilization'
  | 'max-model-len-above-model-limit'
  | 'max-num-seqs-above-mamba-blocks'
  | 'cuda-out-of-memory'
  | 'unknown-model'
  | 'gated-model'
  | 'unsupported-architecture'
  | 'bad-arguments'
  | 'port-in-use'
  | 'distributed-port-in-use'
  | 'executable-not-found'
  | 'docker-unavailable'
  | 'exited-before-ready'
  | 'ready-timeout'
  | 'probe-failed';

export interface StartupFailure {
  kind: FailureKind;
  /** One sentence: what happened. */
  message: string;
  /** What to change to make it start. */
  advice: string;
  /** The engine's own lines that say why (may be empty, e.g. when nothing was spawned). */
  rootCauseLines: string[];
  /** The last lines of the server's log. */
  logTail: string[];
  exitCode?: number | null;
  signal?: string | null;
}

/** The operating system the advice is for: commands and installers differ. */
export type AdvicePlatform = 'linux' | 'darwin' | 'win32';

export function advicePlatform(p: string = process.platform): AdvicePlatform {
  return p === 'darwin' || p === 'win32' ? p : 'linux';
}

/** Context that sharpens the advice (the options asked for, the platform it runs on). */
interface FailureContext {
  exitCode?: number | null;
  signal?: string | null;
  port?: number;
  gpuMemoryUtilization?: number;
  model?: string;
  engineKind?: string;
  /** The engine that wrote the log (SGLang's flags differ from vLLM's); default: read from the log. */
  engine?: 'vllm' | 'sglang';
  /** Default: this machine's. */
  platform?: string;
}

interface Rule {
  kind: FailureKind;
  re: RegExp;
  explain: (
    m: RegExpExecArray,
    ctx: FailureContext & { platform: AdvicePlatform; engine: 'vllm' | 'sglang' },
  ) => { message: string; advice: string };
}

const floor2 = (x: number) => Math.floor(x * 100) / 100;

/** How to see what holds a port, per platform. */
function portOwnerCommand(port: number | undefined, platform: AdvicePlatform): string {
  const p = port ?? 8000;
  if (platform === 'win32') return `netstat -ano | findstr :${p}`;
  if (platform === 'darwin') return `lsof -nP -iTCP:${p} -sTCP:LISTEN`;
  return `ss -ltnp 'sport = :${p}'`;
}

/** How to move an engine's torch.distributed rendezvous off a busy port. */
function distributedPortFix(free: number, engine: 'vllm' | 'sglang'): string {
  if (engine === 'sglang') return `--nccl-port ${free}`;
  return `VLLM_DP_MASTER_PORT=${free} in the server's extra environment (data parallel), or MASTER_PORT=${free} for a torchrun-style launch`;
}

/** Docker's daemon is not reachable: how to start it where the user is. */
function startDockerAdvice(platform: AdvicePlatform): string {
  if (platform === 'darwin')
    return 'Start Docker Desktop (open -a Docker) and wait until it says it is running, or benchmark a vLLM running elsewhere by URL.';
  if (platform === 'win32')
    return 'Start Docker Desktop and wait until it says it is running (it uses the WSL 2 backend), or benchmark a vLLM running elsewhere by URL.';
  return 'Start Docker (sudo systemctl start docker), add your user to the docker group (sudo usermod -aG docker $USER, then log in again), or launch vLLM natively.';
}

/** Docker runs but cannot hand the container an NVIDIA GPU. */
function gpuInDockerAdvice(platform: AdvicePlatform): string {
  if (platform === 'darwin')
    return "Docker on macOS cannot give a container an NVIDIA GPU, and vLLM's images need one: run vLLM on a Linux machine with an NVIDIA GPU and benchmark it by URL, or use the simulator.";
  if (platform === 'win32')
    return 'Docker Desktop passes the GPU through WSL 2: install the current NVIDIA driver for Windows, turn on the WSL 2 based engine in Docker Desktop settings, and restart Docker Desktop.';
  return 'Install the NVIDIA Container Toolkit (nvidia-ctk runtime configure --runtime=docker) and restart Docker, or launch vLLM natively.';
}

/** A Hugging Face token reaches the server through the extra environment (Docker copies it in by name). */
const HF_TOKEN_ADVICE =
  "put HF_TOKEN=hf_... (a read token from huggingface.co/settings/tokens) in the server's extra environment";

const RULES: Rule[] = [
  {
    kind: 'max-seq-len-exceeds-kv',
    re: /max seq len \(([\d,]+)\).*?larger than the available KV cache memory(?:.*?estimated maximum model length is ([\d,]+))?/,
    explain: (m) => {
      const est = m[2]?.replace(/,/g, '');
      return {
        message: `The KV cache cannot hold even one request at the model's max length (${m[1]} tokens).`,
        advice: est
          ? `Lower --max-model-len to at most ${est} or raise --gpu-memory-utilization.`
          : 'Lower --max-model-len or raise --gpu-memory-utilization.',
      };
    },
  },
  {
    kind: 'max-seq-len-exceeds-kv',
    // V0 (vllm/worker/worker.py): the KV cache's token count is stated, so it is the largest length that fits.
    re: /The model's max seq len \(([\d,]+)\) is larger than the maximum number of tokens that can be stored in KV cache \(([\d,]+)\)/,
    explain: (m) => ({
      message: `The KV cache cannot hold even one request at the model's max length (${m[1]} tokens).`,
      advice: `Lower --max-model-len to at most ${m[2].replace(/,/g, '')} or raise --gpu-memory-utilization.`,
    }),
  },
  {
    kind: 'no-kv-memory',
    re: /No available memory for the cache blocks|Cannot auto-fit max_model_len/,
    explain: (m, ctx) => ({
      message: /auto-fit/.test(m[0])
        ? 'With --max-model-len auto, the memory left after the model weights cannot hold even one token of KV cache.'
        : 'The model weights and activations left no GPU memory for the KV cache.',
      advice: `Raise --gpu-memory-utilization${ctx.gpuMemoryUtilization ? ` (now ${ctx.gpuMemoryUtilization})` : ''}, free GPU memory held by other processes, use more GPUs (--tensor-parallel-size) or a smaller/quantized model.`,
    }),
  },
  {
    kind: 'free-memory-below-utilization',
    // Since December 2025 the device is named: "Free memory on device cuda:0 (...)".
    re: /Free memory on device(?: (\S+))? \(([\d.]+)\/([\d.]+) GiB\) on startup is less than desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\)/,
    explain: (m) => {
      const free = Number(m[2]);
      const total = Number(m[3]);
      return {
        message: `Only ${m[2]} of ${m[3]} GiB GPU memory${m[1] ? ` on ${m[1]}` : ''} is free, but --gpu-memory-utilization ${m[4]} asks for ${m[5]} GiB.`,
        advice: `Stop the other processes using the GPU (see nvidia-smi) or lower --gpu-memory-utilization to at most ${floor2(free / total)}.`,
      };
    },
  },
  {
    kind: 'max-model-len-above-model-limit',
    // The key varies: max_position_embeddings, max_seq_len, seq_length, sliding_window, ...
    re: /User-specified max_model_len \(([\d,]+)\) is greater than the derived max_model_len \((?:\w+=)?([\d,]+)/,
    explain: (m) => ({
      message: `--max-model-len ${m[1]} is above the model's own limit of ${m[2]} tokens.`,
      advice: `Lower --max-model-len to at most ${m[2].replace(/,/g, '')}, or set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 only if the model really supports longer contexts (e.g. RoPE scaling).`,
    }),
  },
  {
    kind: 'no-kv-memory',
    // SGLang 0.5.14+ (mem_cache/kv_cache_configurator.py): the weights exceed the static budget.
    re: /Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=([\d.]+)\. Raise --mem-fraction-static above ([\d.]+)/,
    explain: (m) => ({
      message: `The model weights left no GPU memory for the KV cache under --mem-fraction-static ${m[1]}.`,
      advice: `Raise --mem-fraction-static above ${m[2]} (SGLang's own figure), or use more GPUs (--tp-size) or a smaller/quantized model.`,
    }),
  },
  {
    kind: 'no-kv-memory',
    // SGLang (model_runner.py, from 0.5.x model_executor/pool_configurator.py): a KV pool of no tokens.
    re: /Not enough memory\. Please try to increase --mem-fraction-static\.(?: Current value: mem_fraction_static=([\d.]+))?/,
    explain: (m) => ({
      message: "The memory left after the model weights holds no tokens of SGLang's KV cache.",
      advice: `Raise --mem-fraction-static${m[1] ? ` (now ${m[1]})` : ''}, as SGLang advises, free GPU memory held by other processes, or use more GPUs (--tp-size) or a smaller/quantized model.`,
    }),
  },
  {
    kind: 'max-model-len-above-model-limit',
    // SGLang (configs/model_config.py): --context-length above what the model's config derives.
    re: /User-specified context_length \((\d+)\) is greater than the derived context_length \((\d+)\)/,
    explain: (m) => ({
      message: `--context-length ${m[1]} is above the model's own limit of ${m[2]} tokens.`,
      advice: `Lower --context-length to at most ${m[2]}, or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 only if the model really supports longer contexts (e.g. RoPE scaling).`,
    }),
  },
  {
    kind: 'max-num-seqs-above-mamba-blocks',
    // vLLM (config/compilation.py): hybrid models with full decode CUDA graphs need one Mamba block per sequence.
    re: /max_num_seqs \((\d+)\) exceeds available Mamba cache blocks \((\d+)\)/,
    explain: (m) => ({
      message: `--max-num-seqs ${m[1]} is more than the ${m[2]} Mamba cache blocks left in GPU memory (a hybrid model's decode CUDA graphs need one per sequence).`,
      advice: `Lower --max-num-seqs to at most ${m[2]} or raise --gpu-memory-utilization.`,
    }),
  },
  {
    kind: 'cuda-out-of-memory',
    re: /CUDA out of memory|CUDA error: out of memory|torch\.OutOfMemoryError|torch\.cuda\.OutOfMemoryError/,
    explain: (_m, ctx) => ({
      message: 'The GPU ran out of memory while the server started.',
      advice:
        ctx.engine === 'sglang'
          ? 'Lower --mem-fraction-static, --max-running-requests or --chunked-prefill-size, free GPU memory held by other processes, or use more GPUs (--tp-size) or a quantized model.'
          : 'Lower --gpu-memory-utilization, --max-num-seqs or --max-num-batched-tokens, free GPU memory held by other processes, or use more GPUs (--tensor-parallel-size) or a quantized model.',
    }),
  },
  {
    kind: 'gated-model',
    re: /Cannot access gated repo|GatedRepoError|Access to model \S+ is restricted/,
    explain: (_m, ctx) => ({
      message: `The model${ctx.model ? ` ${ctx.model}` : ''} is gated on Hugging Face and this machine has no access to it.`,
      advice: `Accept the model's licence on its page${ctx.model && !ctx.model.startsWith('/') ? ` (https://huggingface.co/${ctx.model})` : ''} while logged in, then ${HF_TOKEN_ADVICE}.`,
    }),
  },
  {
    kind: 'unknown-model',
    re: /Invalid repository ID or local directory specified: '([^']*)'|RepositoryNotFoundError|Repository Not Found|is not a local folder and is not a valid model identifier/,
    explain: (m, ctx) => ({
      message: `The model ${m[1] ? `'${m[1]}' ` : ctx.model ? `'${ctx.model}' ` : ''}was not found on Hugging Face or as a local folder.`,
      advice: `Check the model id (org/name) or the local path; for a private model ${HF_TOKEN_ADVICE}.`,
    }),
  },
  {
    kind: 'unsupported-architecture',
    re: /Model architectures? (\[[^\]]*\]|\S+) (?:are|is) not supported/,
    explain: (m) => ({
      message: `This vLLM does not support the model's architecture ${m[1]}.`,
      advice: 'Use a newer vLLM that supports it, or add --trust-remote-code if the model ships its own code.',
    }),
  },
  {
    kind: 'bad-arguments',
    re: /error: argument (\S+?): invalid choice: '?([^'\s]*)'? \(choose from (.*)\)/,
    explain: (m) => ({
      message: `This vLLM does not accept ${m[1]} ${m[2]}.`,
      advice: `Use one of: ${m[3].replace(/'/g, '')}.`,
    }),
  },
  {
    kind: 'bad-arguments',
    re: /error: unrecognized arguments: (.*)$/,
    explain: (m, ctx) => {
      const args = m[1].trim();
      const positional = !args.startsWith('-');
      return {
        message: `This vLLM does not know the argument${args.includes(' ') ? 's' : ''} ${args}.`,
        advice:
          positional && ctx.engineKind !== 'vllm-native'
            ? 'Images up to vllm/vllm-openai:v0.11.0 start the API server module, which takes no model after the image: launch with --entrypoint vllm IMAGE serve MODEL (SpeedMatrix does this for its Docker launches).'
            : `Remove ${args}, or use a vLLM version that has ${args.includes(' ') ? 'them' : 'it'} (see vllm serve --help).`,
      };
    },
  },
  {
    kind: 'distributed-port-in-use',
    // torch.distributed's TCP store (c10d): "... port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE ..."
    // and before PyTorch 2.2 "The server socket has failed to bind to [::]:29500 (errno: 98 - ...)".
    re: /server socket has failed to (?:listen on any local network address\. port: (\d+)|bind to \S*?:(\d+) \(errno: 98)/,
    explain: (m, ctx) => {
      const port = m[1] ?? m[2];
      return {
        message: `Port ${port}, which torch.distributed uses to connect the server's GPU workers (not the API port${ctx.port ? ` ${ctx.port}` : ''}), is already in use, probably by another server or training job on this machine.`,
        advice: `Stop the other instance (see ${portOwnerCommand(Number(port), ctx.platform)}), or give this one another port for it: ${distributedPortFix(Number(port) + 1, ctx.engine)}.`,
      };
    },
  },
  {
    kind: 'port-in-use',
    re: /Address already in use|\[Errno 98\]|\[Errno 48\]|\[WinError 10048\]|EADDRINUSE/,
    explain: (_m, ctx) => ({
      message: ctx.port ? `Port ${ctx.port} is already in use.` : 'The port is already in use.',
      advice: `Choose another --port, or stop the process listening on it (see ${portOwnerCommand(ctx.port, ctx.platform)}).`,
    }),
  },
  {
    kind: 'port-in-use',
    re: /The container name "\/?([^"]+)" is already in use/,
    explain: (m) => ({
      message: `A container from an earlier launch (${m[1]}) is still there, probably holding the port.`,
      advice: `Remove it with: docker rm -f ${m[1]}`,
    }),
  },
  {
    kind: 'docker-unavailable',
    re: /could not select device driver .* with capabilities: \[\[gpu\]\]/,
    explain: (_m, ctx) => ({
      message: 'Docker cannot give the container a GPU.',
      advice: gpuInDockerAdvice(ctx.platform),
    }),
  },
  {
    kind: 'docker-unavailable',
    re: /Cannot connect to the Docker daemon|permission denied while trying to connect to the Docker daemon|open \/\/\.\/pipe\/(?:docker_engine|dockerDesktop\w*)|error during connect:.*docker|docker: Error response from daemon/,
    explain: (m, ctx) => ({
      message: 'Docker is not available (its daemon is not running or this user may not use it).',
      advice:
        /permission denied/.test(m[0]) && ctx.platform === 'linux'
          ? 'Add your user to the docker group (sudo usermod -aG docker $USER, then log in again), or launch vLLM natively.'
          : startDockerAdvice(ctx.platform),
    }),
  },
];

/** Lines only SGLang writes: its module paths, its scheduler's crash line, its own flag. */
const SGLANG_LOG = /sglang[\\/.]srt|sglang\.launch_server|Scheduler hit an exception|--mem-fraction-static/;

/** The engine whose flags the advice names: the caller's word, else what the log shows. */
function engineOf(lines: readonly string[], ctx: FailureContext): 'vllm' | 'sglang' {
  return ctx.engine ?? (lines.some((l) => SGLANG_LOG.test(l)) ? 'sglang' : 'vllm');
}

/** A root-cause line without vLLM's "(APIServer pid=123) " process prefix. */
const withoutPrefix = (line: string) => line.replace(/^\s*\([\w:-]+ pid=\d+\)\s*/, '').trim();

/** Lines that only point elsewhere and are never the root cause. */
const GENERIC =
  /Engine core initialization failed|EngineCore failed to start|See root cause above|^Traceback|^\s*File "|^\s*\^+\s*$|^The above exception was the direct cause/i;
/** Error-looking lines, any case ("ERROR", "error:", pydantic's "Value error, ..."). */
const ERRORISH = /\b(error|exception|fatal|critical)\b|^\w+(Error|Exception):/i;
/** The most telling fallback lines: pydantic's field errors and argparse's usage errors. */
const PREFERRED = /^\s*Value error, |\berror: /;
const GATED = RULES.find((r) => r.kind === 'gated-model')!;

function matchRule(lines: readonly string[]): { rule: Rule; m: RegExpExecArray; line: string } | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    for (const rule of RULES) {
      const m = rule.re.exec(lines[i]);
      if (!m) continue;
      // A gated model is re-raised as "Invalid repository ID": the gated marker is earlier in the log.
      if (rule.kind === 'unknown-model') {
        const gated = lines.find((l) => GATED.re.test(l));
        if (gated) return { rule: GATED, m: GATED.re.exec(gated)!, line: gated };
      }
      return { rule, m, line: lines[i] };
    }
  }
  return null;
}

/**
 * Recognise why a server failed to start from its log (last lines first), falling back to the
 * last error-looking line and then "exited before ready".
 */
export function recognizeStartupFailure(
  rawLines: readonly string[],
  ctx: FailureContext = {},
  tailSize = 40,
): StartupFailure {
  const lines = rawLines.map(stripAnsi);
  const logTail = lines.slice(-tailSize);
  const base = { logTail, exitCode: ctx.exitCode ?? null, signal: ctx.signal ?? null };
  const full = { ...ctx, platform: advicePlatform(ctx.platform), engine: engineOf(lines, ctx) };
  const found = matchRule(lines);
  if (found)
    return {
      kind: found.rule.kind,
      ...found.rule.explain(found.m, full),
      rootCauseLines: [withoutPrefix(found.line)],
      ...base,
    };
  const how = ctx.signal ? `was killed by ${ctx.signal}` : `exited with code ${ctx.exitCode ?? 'unknown'}`;
  const candidates = [...lines]
    .reverse()
    .map(withoutPrefix)
    .filter((l) => ERRORISH.test(l) && !GENERIC.test(l));
  const errorLine = candidates.find((l) => PREFERRED.test(l))?.trim() ?? candidates[0];
  return {
    kind: 'exited-before-ready',
    message: `The server ${how} before it was ready.`,
    advice: errorLine
      ? 'Read the root-cause line above; fix the option it names and start again.'
      : 'Read the log tail for the cause; run the shown command in a terminal to see all of its output.',
    rootCauseLines: errorLine ? [errorLine] : [],
    ...base,
  };
}

/** Failures found before or instead of a log: the program or Docker missing, a busy port, a deadline. */
const INSTALL_DOCKER: Record<AdvicePlatform, string> = {
  linux: 'Install Docker Engine and the NVIDIA Container Toolkit, or launch vLLM natively.',
  darwin:
    "Install Docker Desktop; note that containers on macOS get no NVIDIA GPU, so vLLM's images cannot serve a model there: run vLLM on a Linux GPU machine and benchmark it by URL.",
  win32: 'Install Docker Desktop with the WSL 2 based engine and the current NVIDIA driver for Windows.',
};
const INSTALL_VLLM: Record<AdvicePlatform, string> = {
  linux:
    'Install vLLM (pip install vllm) or choose the vllm executable inside your Python environment, e.g. /path/to/venv/bin/vllm.',
  darwin:
    'vLLM has no CUDA build for macOS (only a CPU build from source): run vLLM on a Linux GPU machine and benchmark it by URL, or choose the vllm executable of your environment, e.g. /path/to/venv/bin/vllm.',
  win32:
    'vLLM does not run natively on Windows: install it inside WSL 2 (pip install vllm there) or use vLLM in Docker Desktop, then benchmark it by URL.',
};

export function executableNotFound(
  command: string,
  engineKind: string,
  platform: string = process.platform,
): StartupFailure {
  const p = advicePlatform(platform);
  if (engineKind === 'vllm-docker' || command === 'docker') {
    return {
      kind: 'docker-unavailable',
      message: `Docker is not installed here ("${command}" was not found on PATH).`,
      advice: INSTALL_DOCKER[p],
      rootCauseLines: [],
      logTail: [],
    };
  }
  return {
    kind: 'executable-not-found',
    message: `The program "${command}" was not found.`,
    advice: engineKind === 'vllm-native' ? INSTALL_VLLM[p] : 'Check the command name, or give its full path.',
    rootCauseLines: [],
    logTail: [],
  };
}

export function portBusy(host: string, port: number, platform: string = process.platform): StartupFailure {
  return {
    kind: 'port-in-use',
    message: `Port ${port} on ${host} is already in use; nothing was started (vLLM would share the port silently and requests would go to either server).`,
    advice: `Choose another --port, or stop the process listening on ${port} (see ${portOwnerCommand(port, advicePlatform(platform))}).`,
    rootCauseLines: [],
    logTail: [],
  };
}

export function readyTimeout(ms: number, phase: string, logTail: string[]): StartupFailure {
  return {
    kind: 'ready-timeout',
    message: `The server was not ready after ${Math.round(ms / 1000)} s (last seen: ${phase}).`,
    advice:
      'Raise the startup deadline if the model is still downloading or compiling, or read the log tail for a stuck step.',
    rootCauseLines: [],
    logTail,
  };
}

/** A launch whose command could not be built (nothing to run). */
export function noCommand(message: string): StartupFailure {
  return { kind: 'executable-not-found', message, advice: 'Give the command to run.', rootCauseLines: [], logTail: [] };
}

/** A start stopped by the person before the server was ready. */
export function stoppedBeforeReady(logTail: string[]): StartupFailure {
  return {
    kind: 'exited-before-ready',
    message: 'Stopped before the server was ready.',
    advice: 'Start it again when you are ready to wait for it.',
    rootCauseLines: [],
    logTail,
  };
}

/** A server command that could not be started at all: missing, not runnable, a batch file Windows refused, or else. */
export function spawnFailure(
  command: string,
  e: NodeJS.ErrnoException,
  engineKind: string | undefined,
  isWindows: boolean,
): StartupFailure {
  if (e.code === 'ENOENT' || e.code === 'EACCES') return executableNotFound(command, engineKind ?? 'custom');
  if (e.code === 'EINVAL' && isWindows)
    return { kind: 'executable-not-found', ...batchFileMessage(command, command), rootCauseLines: [], logTail: [] };
  return {
    kind: 'exited-before-ready',
    message: `Could not start "${command}": ${e.message}`,
    advice: 'Check the command and its permissions.',
    rootCauseLines: [],
    logTail: [],
  };
}
