/**
 * Launch options for a server command a person typed (`speedmatrix serve -- vllm serve ...`):
 * the argv runs exactly as given; its flags only tell where the server will listen, which
 * model it serves and the key it wants. `speedmatrix sim ...` runs the built-in simulator.
 */
import { basename } from 'node:path';
import { parseMaxModelLenArg } from './human-int';
import type { LaunchOptions } from './launch';

/** The value of `--flag V` or `--flag=V` for any of the names; the last one wins, as with argparse. */
export function flagValue(argv: readonly string[], ...names: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    for (const n of names) {
      if (argv[i] === n && i + 1 < argv.length) value = argv[i + 1];
      else if (argv[i].startsWith(`${n}=`)) value = argv[i].slice(n.length + 1);
    }
  }
  return value;
}

/** vLLM listens on all interfaces unless --host says otherwise; a typed command runs as typed. */
const DEFAULT_LISTEN = '0.0.0.0';
/**
 * A typed simulator command gets its --host from SpeedMatrix (the launch spells out every
 * listen flag): loopback only, unless the person gave --host.
 */
const SIM_DEFAULT_LISTEN = '127.0.0.1';

/** argv without the given `--flag value` / `--flag=value` pairs. */
function withoutFlags(argv: readonly string[], names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (names.includes(argv[i])) i++;
    else if (!names.some((n) => argv[i].startsWith(`${n}=`))) out.push(argv[i]);
  }
  return out;
}

/** The first positional argument after `serve` (vllm serve MODEL, sim serve MODEL). */
function modelAfterServe(argv: readonly string[]): string | undefined {
  const i = argv.indexOf('serve');
  return i >= 0 && argv[i + 1] && !argv[i + 1].startsWith('-') ? argv[i + 1] : undefined;
}

/**
 * The container a `docker run --name NAME …` command starts, else null. Stopping the client does
 * not always stop its container (a killed client leaves it running), so the supervisor removes it
 * by this name, whichever way the command was built (the Docker engine, or a typed or varied command).
 */
export function dockerContainerOf(argv: readonly string[]): string | null {
  if (argv.length === 0 || basename(argv[0]).replace(/\.exe$/i, '') !== 'docker' || argv[1] !== 'run') return null;
  return flagValue(argv, '--name') ?? null;
}

/** Host port of a `docker run -p [host:]HOST_PORT:CONTAINER_PORT` mapping. */
function dockerPort(argv: readonly string[]): { host?: string; port?: number } {
  const p = flagValue(argv, '-p', '--publish');
  const parts = p?.split(':') ?? [];
  if (parts.length === 3) return { host: parts[0], port: Number(parts[1]) };
  if (parts.length === 2) return { port: Number(parts[0]) };
  return {};
}

/** Options for a typed command: argv kept as is (simulator entry resolved), listen address and model read from it. */
export function launchOptionsFromCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): LaunchOptions {
  if (argv.length === 0)
    throw new Error('no server command given; put it after --, e.g. speedmatrix serve -- vllm serve Qwen/Qwen3-0.6B');
  // `speedmatrix sim serve MODEL ...` / `sim serve ...`: a simulator launch, its flags passed through.
  if ((basename(argv[0]) === 'speedmatrix' && argv[1] === 'sim') || argv[0] === 'sim') {
    const rest = argv.slice(argv[0] === 'sim' ? 1 : 2);
    const model = modelAfterServe(rest);
    const port = Number(flagValue(rest, '--port') ?? 8000);
    if (!Number.isInteger(port) || port <= 0 || port > 65535)
      throw new Error(`the command's --port "${flagValue(rest, '--port')}" is not a TCP port`);
    return {
      engineKind: 'simulator',
      model: model ?? '',
      host: flagValue(rest, '--host') ?? SIM_DEFAULT_LISTEN,
      port,
      apiKey: flagValue(rest, '--api-key') ?? env.VLLM_API_KEY,
      apiKeyInherited: flagValue(rest, '--api-key') === undefined && Boolean(env.VLLM_API_KEY),
      servedModelName: flagValue(rest, '--served-model-name'),
      extraArgs: withoutFlags(rest.slice(rest.indexOf('serve') + (model ? 2 : 1)), [
        '--host',
        '--port',
        '--api-key',
        '--served-model-name',
      ]),
    };
  }
  const command = [...argv];
  const isDocker = basename(argv[0]) === 'docker';
  const dp = isDocker ? dockerPort(argv) : {};
  const port = Number(dp.port ?? flagValue(argv, '--port') ?? 8000);
  if (!Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error(`the command's --port "${flagValue(argv, '--port')}" is not a TCP port`);
  const host = dp.host ?? (isDocker ? DEFAULT_LISTEN : (flagValue(argv, '--host') ?? DEFAULT_LISTEN));
  // vLLM's own rule: 32k = 32,000, 32K = 32,768.
  const maxModelLen = parseMaxModelLenArg(flagValue(argv, '--max-model-len') ?? '');
  return {
    engineKind: 'custom',
    customArgv: command,
    model:
      flagValue(argv, '--model', '--model-path') ??
      modelAfterServe(argv) ??
      (isDocker
        ? argv.find(
            (a, i) =>
              i > 0 && /\//.test(a) && !a.startsWith('-') && argv[i - 1] !== '-v' && !/^vllm\/vllm-openai/.test(a),
          )
        : undefined) ??
      'unknown',
    servedModelName: flagValue(argv, '--served-model-name'),
    host,
    port,
    apiKey: flagValue(argv, '--api-key') ?? env.VLLM_API_KEY,
    quantization: flagValue(argv, '--quantization', '-q'),
    dtype: flagValue(argv, '--dtype'),
    maxModelLen: typeof maxModelLen === 'number' ? maxModelLen : undefined,
  };
}
