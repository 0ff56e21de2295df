/**
 * The launch command as a pure function: options in, `{argv, env, display}` out. The same
 * options start a native vLLM, vLLM in Docker, a custom command or the simulated server, so
 * every run goes through one launch, supervise and measure path.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type NodeProgram, nodeProgram } from '../../platform/runtime/node-entry';
import type { ServerLaunch } from '#shared/session/schema';
import { REDACTED, redactArgv, redactEnv } from '#shared/session/secrets';
import { shellLine } from '#shared/shell-quote';
import {
  LAUNCH_SETTINGS,
  negatedFlag,
  type LaunchSettingKey,
  type LaunchSettingRow,
} from '#shared/server/launch-settings';
import { olderThan } from './flag-versions';

export type LaunchEngineKind = 'vllm-native' | 'vllm-docker' | 'custom' | 'simulator';

/** Everything needed to start one inference server. Unset options are left to the engine's defaults. */
export interface LaunchOptions {
  engineKind: LaunchEngineKind;
  /** vllm-native: the `vllm` executable (default `vllm` on PATH), e.g. `/opt/venv/bin/vllm`. */
  executable?: string;
  /** vllm-docker: image and tag (default vllm/vllm-openai:latest) and the Hugging Face cache to mount. */
  dockerImage?: string;
  dockerTag?: string;
  hfCacheDir?: string;
  /** custom: the whole command, passed through untouched (model/host/port still say where it will listen). */
  customArgv?: string[];
  /** Model id (org/name) or a local folder. */
  model: string;
  servedModelName?: string;
  revision?: string;
  dtype?: string;
  quantization?: string;
  maxModelLen?: number;
  gpuMemoryUtilization?: number;
  maxNumSeqs?: number;
  maxNumBatchedTokens?: number;
  tensorParallelSize?: number;
  pipelineParallelSize?: number;
  dataParallelSize?: number;
  kvCacheDtype?: string;
  /** true -> --enable-prefix-caching, false -> --no-enable-prefix-caching, unset -> engine default (on). */
  enablePrefixCaching?: boolean;
  /** `--attention-backend` from vLLM 0.13; older releases get VLLM_ATTENTION_BACKEND instead. */
  attentionBackend?: string;
  /** The vLLM version that will run, when known (a Docker image's tag says it), for version-dependent flags. */
  engineVersion?: string;
  trustRemoteCode?: boolean;
  /** `ray` for multi-node tensor/pipeline parallel (launch on the Ray head node). */
  distributedExecutorBackend?: 'mp' | 'ray' | 'uni' | 'external_launcher';
  host: string;
  port: number;
  /** Bearer key the server will require on /v1. Kept out of argv where the engine allows (VLLM_API_KEY). */
  apiKey?: string;
  /**
   * The key is already in the environment the server inherits (VLLM_API_KEY, as a remote run gets
   * it: README "A GPU server over SSH"), so it is not passed again on its command line.
   */
  apiKeyInherited?: boolean;
  /** GPU selection, e.g. "0,1". */
  cudaVisibleDevices?: string;
  /** Extra environment for the server (HF_HOME, HF_TOKEN, VLLM_*). */
  extraEnv?: Record<string, string>;
  /** Free-form flags appended untouched. */
  extraArgs?: string[];
  /** simulator: `--sim-profile`, `--sim-speed` and any other sim flags. */
  simProfile?: string;
  simSpeed?: number;
  simArgs?: string[];
}

/** Defaults a launch form starts from; engine defaults (e.g. --gpu-memory-utilization 0.9) are not repeated. */
export const LAUNCH_DEFAULTS = {
  engineKind: 'vllm-native',
  executable: 'vllm',
  dockerImage: 'vllm/vllm-openai',
  dockerTag: 'latest',
  host: '127.0.0.1',
  port: 8000,
  readyTimeoutMs: 20 * 60_000,
  stopTimeoutMs: 30_000,
} as const;

export interface BuiltLaunch {
  argv: string[];
  /** Environment added to the server's (the parent's environment is inherited on top of nothing else). */
  env: Record<string, string>;
  /** The one-line shell form, API key shown as <redacted>. */
  display: string;
  /**
   * The command as the person gave it, where the process runs something else: the simulator's
   * `speedmatrix sim serve ...`, not Node with its loader flags and this machine's paths. The
   * session records this (docs/session-format.md).
   */
  given?: { argv: string[]; env: Record<string, string> };
  /**
   * One of SpeedMatrix's own Node programs and its arguments, where that is what runs (the
   * simulator): the app starts it through its NodeSpawner instead of `argv` (node-spawner.ts).
   */
  program?: { name: NodeProgram; args: string[] };
}

/** Where the Hugging Face cache lives on this machine (mounted into the vLLM container). */
export function defaultHfCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HOME) return env.HF_HOME;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface');
}

/** The version a launch will run: as given, else a Docker tag such as v0.11.0 ("latest" says nothing). */
export function knownEngineVersion(o: LaunchOptions): string | undefined {
  return o.engineVersion ?? (o.engineKind === 'vllm-docker' ? o.dockerTag : undefined);
}

/** vLLM before 0.13 chooses the attention backend from the environment only. */
const attentionInEnv = (o: LaunchOptions): boolean =>
  !!o.attentionBackend && olderThan(knownEngineVersion(o), '0.13.0');

/** The type a setting's value has in LaunchOptions, by how vLLM reads its flag. */
type SettingValue<S extends LaunchSettingRow> = S['arg'] extends 'int' | 'float' | 'tokens'
  ? number
  : S['arg'] extends 'switch'
    ? boolean
    : string;
/** Every setting whose LaunchOptions value is not of its flag's type; `never` when all fit. */
type MisfitSettings = {
  [S in LaunchSettingRow as S['key']]: LaunchOptions[S['key']] extends SettingValue<S> | undefined ? never : S['key'];
}[LaunchSettingKey];
// A compile error names the setting whose row and LaunchOptions field disagree.
const settingsFitLaunchOptions: [MisfitSettings] extends [never] ? true : MisfitSettings = true;
void settingsFitLaunchOptions;

/** `--flag VALUE`, or nothing when the value is unset or empty. */
const valueArgs = (flag: string, v: string | number | undefined): string[] =>
  v !== undefined && v !== '' ? [flag, String(v)] : [];

/** One setting's words on the command line: `--flag VALUE`, `--flag`, `--no-flag`, or none when unset. */
function settingArgs(s: LaunchSettingRow, v: LaunchOptions[LaunchSettingKey]): string[] {
  if (s.arg !== 'switch') return valueArgs(s.flag, v as string | number | undefined);
  if (v === true) return [s.flag];
  return v === false && 'negatable' in s && s.negatable ? [negatedFlag(s.flag)] : [];
}

/** The vLLM flags shared by native, Docker and simulator launches, in `vllm serve` order (LAUNCH_SETTINGS). */
export function vllmFlags(o: LaunchOptions, listen: { host: string; port: number }): string[] {
  // An older vLLM takes the attention backend from the environment (serverEnv), not a flag.
  const given: LaunchOptions = attentionInEnv(o) ? { ...o, attentionBackend: undefined } : o;
  return [
    ...valueArgs('--host', listen.host),
    ...valueArgs('--port', listen.port),
    ...LAUNCH_SETTINGS.flatMap((s) => settingArgs(s, given[s.key])),
  ];
}

/** The image reference a Docker launch runs, e.g. "vllm/vllm-openai:v0.11.0". */
export function dockerImageOf(o: Pick<LaunchOptions, 'dockerImage' | 'dockerTag'>): string {
  return `${o.dockerImage || LAUNCH_DEFAULTS.dockerImage}:${o.dockerTag || LAUNCH_DEFAULTS.dockerTag}`;
}

/** Container name for a Docker launch: fixed per port, so a leftover container can be found and removed. */
export function dockerContainerName(port: number): string {
  return `speedmatrix-vllm-${port}`;
}

/** Environment the server gets beyond the inherited one: GPU selection, extras, then the API key. */
function serverEnv(o: LaunchOptions, keyInEnv: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  if (o.cudaVisibleDevices !== undefined && o.cudaVisibleDevices !== '')
    env.CUDA_VISIBLE_DEVICES = o.cudaVisibleDevices;
  if (attentionInEnv(o)) env.VLLM_ATTENTION_BACKEND = o.attentionBackend!;
  Object.assign(env, o.extraEnv ?? {});
  if (keyInEnv && o.apiKey) env.VLLM_API_KEY = o.apiKey;
  return env;
}

function redactedDisplay(argv: string[], env: Record<string, string>, apiKey?: string): string {
  const shownEnv = redactEnv(env);
  if (apiKey) for (const k of Object.keys(shownEnv)) if (env[k] === apiKey) shownEnv[k] = REDACTED;
  return shellLine(redactArgv(argv), shownEnv);
}

/** Turn launch options into the exact argv, the added environment, and the shell one-liner to show. */
export function buildLaunch(o: LaunchOptions): BuiltLaunch {
  switch (o.engineKind) {
    case 'vllm-native': {
      // The key travels in VLLM_API_KEY (which vLLM reads) so it never shows in the process table.
      const argv = [
        o.executable || LAUNCH_DEFAULTS.executable,
        'serve',
        o.model,
        ...vllmFlags(o, o),
        ...(o.extraArgs ?? []),
      ];
      const env = serverEnv(o, true);
      return { argv, env, display: redactedDisplay(argv, env, o.apiKey) };
    }
    case 'vllm-docker': {
      const env = serverEnv(o, true);
      const image = dockerImageOf(o);
      const gpus = o.cudaVisibleDevices ? `"device=${o.cudaVisibleDevices}"` : 'all';
      const argv = ['docker', 'run', '--rm', '--name', dockerContainerName(o.port), '--gpus', gpus, '--ipc=host'];
      argv.push('-p', `${o.host === '0.0.0.0' ? '' : `${o.host}:`}${o.port}:${o.port}`);
      if (o.hfCacheDir) argv.push('-v', `${o.hfCacheDir}:/root/.cache/huggingface`);
      // `-e NAME` without a value copies it from docker's own environment: values stay out of argv.
      for (const k of Object.keys(env)) if (k !== 'CUDA_VISIBLE_DEVICES') argv.push('-e', k);
      // Images up to v0.11.0 run the api_server module, which rejects (0.9) or ignores (0.10-0.11) a
      // model given after the image; `vllm serve MODEL` through --entrypoint works on every image.
      argv.push(
        '--entrypoint',
        'vllm',
        image,
        'serve',
        o.model,
        ...vllmFlags(o, { host: '0.0.0.0', port: o.port }),
        ...(o.extraArgs ?? []),
      );
      // Shown as the user would type it: values in front of `docker run`.
      return { argv, env, display: redactedDisplay(argv, env, o.apiKey) };
    }
    case 'custom': {
      if (!o.customArgv || o.customArgv.length === 0) throw new Error('a custom launch needs a command (customArgv)');
      const argv = [...o.customArgv, ...(o.extraArgs ?? [])];
      const env = serverEnv(o, false);
      return { argv, env, display: redactedDisplay(argv, env, o.apiKey) };
    }
    case 'simulator': {
      const node = nodeProgram('sim');
      const sim: string[] = [];
      if (o.simProfile) sim.push('--sim-profile', o.simProfile);
      if (o.simSpeed !== undefined) sim.push('--sim-speed', String(o.simSpeed));
      sim.push(...(o.simArgs ?? []));
      const key = o.apiKey && !o.apiKeyInherited ? ['--api-key', o.apiKey] : [];
      // No model: the simulator serves its profile's model.
      const tail = ['serve', ...(o.model ? [o.model] : []), ...vllmFlags(o, o), ...key, ...(o.extraArgs ?? []), ...sim];
      const argv = [node.command, ...node.args, ...tail];
      const env = serverEnv(o, false);
      const given = { argv: ['speedmatrix', 'sim', ...tail], env };
      const display = redactedDisplay(given.argv, given.env, o.apiKey);
      return { argv, env, display, given, program: { name: 'sim', args: tail } };
    }
  }
}

/** The session's server block for a launch: the command as given (argv and env), secrets redacted. */
export function toServerLaunch(o: LaunchOptions, built: BuiltLaunch, maxModelLen: number | null = null): ServerLaunch {
  const given = built.given ?? built;
  const env = redactEnv(given.env);
  if (o.apiKey) for (const k of Object.keys(env)) if (given.env[k] === o.apiKey) env[k] = REDACTED;
  return {
    kind: o.engineKind,
    url: `http://${connectHost(o.host)}:${o.port}`,
    argv: redactArgv(given.argv).map((a) => (o.apiKey && a === o.apiKey ? REDACTED : a)),
    env,
    display: built.display,
    model: o.model,
    servedModel: o.servedModelName ?? null,
    revision: o.revision ?? null,
    maxModelLen: maxModelLen ?? o.maxModelLen ?? null,
  };
}

/** A listen address turned into one a client can connect to (0.0.0.0 / :: -> loopback). */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
