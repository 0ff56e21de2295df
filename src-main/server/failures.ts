/**
 * Startup failures turned into something a person can act on: what went wrong, the engine's
 * own root-cause line, and advice with real numbers ("lower --max-model-len to at most 157216").
 * Pure: log lines and exit facts in, a StartupFailure out.
 */
import { stripAnsi } from './log-parse';

export type FailureKind =
  | 'no-kv-memory'
  | 'max-seq-len-exceeds-kv'
  | 'free-memory-below-utilization'
  | 'max-model-len-above-model-limit'
  | 'cuda-out-of-memory'
  | 'unknown-model'
  | 'gated-model'
  | 'port-in-use'
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

/** Context that sharpens the advice (the options asked for). */
export interface FailureContext {
  exitCode?: number | null;
  signal?: string | null;
  port?: number;
  gpuMemoryUtilization?: number;
  model?: string;
}

interface Rule {
  kind: FailureKind;
  re: RegExp;
  explain: (m: RegExpExecArray, ctx: FailureContext) => { message: string; advice: string };
}

const floor2 = (x: number) => Math.floor(x * 100) / 100;

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
    kind: 'no-kv-memory',
    re: /No available memory for the cache blocks/,
    explain: (_m, ctx) => ({
      message: 'The model weights and activations left no GPU memory for the KV cache.',
      advice: `Raise --gpu-memory-utilization${ctx.gpuMemoryUtilization ? ` (now ${ctx.gpuMemoryUtilization})` : ''}, free GPU memory held by other processes, use more GPUs (--tensor-parallel-size) or a smaller/quantized model.`,
    }),
  },
  {
    kind: 'free-memory-below-utilization',
    re: /Free memory on device \(([\d.]+)\/([\d.]+) GiB\) on startup is less than desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\)/,
    explain: (m) => {
      const free = Number(m[1]);
      const total = Number(m[2]);
      return {
        message: `Only ${m[1]} of ${m[2]} GiB GPU memory is free, but --gpu-memory-utilization ${m[3]} asks for ${m[4]} GiB.`,
        advice: `Stop the other processes using the GPU (see nvidia-smi) or lower --gpu-memory-utilization to at most ${floor2(free / total)}.`,
      };
    },
  },
  {
    kind: 'max-model-len-above-model-limit',
    re: /User-specified max_model_len \(([\d,]+)\) is greater than the derived max_model_len \((?:max_position_embeddings=)?([\d,]+)/,
    explain: (m) => ({
      message: `--max-model-len ${m[1]} is above the model's own limit of ${m[2]} tokens.`,
      advice: `Lower --max-model-len to at most ${m[2].replace(/,/g, '')}, or set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 only if the model really supports longer contexts (e.g. RoPE scaling).`,
    }),
  },
  {
    kind: 'cuda-out-of-memory',
    re: /CUDA out of memory|torch\.OutOfMemoryError|torch\.cuda\.OutOfMemoryError/,
    explain: () => ({
      message: 'The GPU ran out of memory while the server started.',
      advice: 'Lower --gpu-memory-utilization, --max-num-seqs or --max-num-batched-tokens, free GPU memory held by other processes, or use more GPUs (--tensor-parallel-size) or a quantized model.',
    }),
  },
  {
    kind: 'gated-model',
    re: /Cannot access gated repo|GatedRepoError|Access to model .* is restricted/,
    explain: (_m, ctx) => ({
      message: `The model${ctx.model ? ` ${ctx.model}` : ''} is gated on Hugging Face and this machine has no access.`,
      advice: "Accept the model's licence on huggingface.co with your account, then pass HF_TOKEN in the server's extra environment.",
    }),
  },
  {
    kind: 'unknown-model',
    re: /Invalid repository ID or local directory specified: '([^']*)'|RepositoryNotFoundError|Repository Not Found|is not a local folder and is not a valid model identifier/,
    explain: (m, ctx) => ({
      message: `The model ${m[1] ? `'${m[1]}' ` : ctx.model ? `'${ctx.model}' ` : ''}was not found on Hugging Face or as a local folder.`,
      advice: 'Check the model id (org/name) or the local path; for a private model pass HF_TOKEN in the extra environment.',
    }),
  },
  {
    kind: 'port-in-use',
    re: /Address already in use|\[Errno 98\]|EADDRINUSE/,
    explain: (_m, ctx) => ({
      message: ctx.port ? `Port ${ctx.port} is already in use.` : 'The port is already in use.',
      advice: 'Choose another --port, or stop the process listening on it.',
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
    re: /Cannot connect to the Docker daemon|permission denied while trying to connect to the Docker daemon|could not select device driver .* with capabilities: \[\[gpu\]\]|docker: Error response from daemon/,
    explain: (m) => ({
      message: /could not select device driver/.test(m.input)
        ? 'Docker cannot give the container a GPU (the NVIDIA Container Toolkit is missing).'
        : 'Docker is not available (its daemon is not running or this user may not use it).',
      advice: /could not select device driver/.test(m.input)
        ? 'Install the NVIDIA Container Toolkit and restart Docker, or launch vLLM natively.'
        : 'Start Docker (systemctl start docker), add your user to the docker group, or launch vLLM natively.',
    }),
  },
];

/** A root-cause line without vLLM's "(APIServer pid=123) " process prefix. */
const withoutPrefix = (line: string) => line.replace(/^\s*\([\w:-]+ pid=\d+\)\s*/, '').trim();

/** Lines that only point elsewhere and are never the root cause. */
const GENERIC = /Engine core initialization failed|See root cause above|^Traceback|^\s*File "|^\s*\^+\s*$/;
const ERRORISH = /\b(Error|Exception|FATAL|CRITICAL)\b|^\w+(Error|Exception):/;

/**
 * Recognise why a server failed to start from its log (last lines first), falling back to the
 * last error-looking line and then "exited before ready".
 */
export function recognizeStartupFailure(rawLines: readonly string[], ctx: FailureContext = {}, tailSize = 40): StartupFailure {
  const lines = rawLines.map(stripAnsi);
  const logTail = lines.slice(-tailSize);
  const base = { logTail, exitCode: ctx.exitCode ?? null, signal: ctx.signal ?? null };
  for (let i = lines.length - 1; i >= 0; i--) {
    for (const rule of RULES) {
      const m = rule.re.exec(lines[i]);
      if (m) return { kind: rule.kind, ...rule.explain(m, ctx), rootCauseLines: [withoutPrefix(lines[i])], ...base };
    }
  }
  const how = ctx.signal ? `was killed by ${ctx.signal}` : `exited with code ${ctx.exitCode ?? 'unknown'}`;
  const errorLine = [...lines].reverse().map(withoutPrefix).find((l) => ERRORISH.test(l) && !GENERIC.test(l));
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
export function executableNotFound(command: string, engineKind: string): StartupFailure {
  if (engineKind === 'vllm-docker' || command === 'docker') {
    return {
      kind: 'docker-unavailable',
      message: `Docker is not installed here ("${command}" was not found on PATH).`,
      advice: 'Install Docker with the NVIDIA Container Toolkit, or launch vLLM natively.',
      rootCauseLines: [],
      logTail: [],
    };
  }
  return {
    kind: 'executable-not-found',
    message: `The program "${command}" was not found.`,
    advice:
      engineKind === 'vllm-native'
        ? 'Install vLLM (pip install vllm) or choose the vllm executable inside your Python environment, e.g. /path/to/venv/bin/vllm.'
        : 'Check the command name, or give its full path.',
    rootCauseLines: [],
    logTail: [],
  };
}

export function portBusy(host: string, port: number): StartupFailure {
  return {
    kind: 'port-in-use',
    message: `Port ${port} on ${host} is already in use; nothing was started (vLLM would share the port silently and requests would go to either server).`,
    advice: `Choose another --port, or stop the process listening on ${port}.`,
    rootCauseLines: [],
    logTail: [],
  };
}

export function readyTimeout(ms: number, phase: string, logTail: string[]): StartupFailure {
  return {
    kind: 'ready-timeout',
    message: `The server was not ready after ${Math.round(ms / 1000)} s (last seen: ${phase}).`,
    advice: 'Raise the startup deadline if the model is still downloading or compiling, or read the log tail for a stuck step.',
    rootCauseLines: [],
    logTail,
  };
}
