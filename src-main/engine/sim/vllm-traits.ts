/**
 * What the simulated server does differently by the vLLM version its profile claims, each from
 * vLLM's git history (the change's date, and the first release after it as vLLM's deprecation
 * notices number them). Versions newer than the newest source read behave like the newest.
 */
import { olderThan } from '../server/flag-versions';

export interface VllmTraits {
  /** `--gpu-memory-utilization` when not given: 0.92 from April 2026 (vllm/config/cache.py), 0.9 before. */
  defaultGpuMemoryUtilization: number;
  /** How the server states its version: "vLLM API server version X" to January 2026, then the logo. */
  versionLine: 'api-server' | 'logo';
  /** "Free memory on device cuda:0 (...)" from December 2025 (vllm/v1/worker/utils.py); without the device before. */
  freeMemoryNamesDevice: boolean;
  /** "Preemptions: N" in the periodic stats line when above 0, from November 2025 (vllm/v1/metrics/loggers.py). */
  statsPreemptions: boolean;
  /** The reasoning text's field: `reasoning_content` to 0.11, both from November 2025, `reasoning` alone from 0.16. */
  reasoningFields: string[];
  /** Paths `--api-key` guards: "/v1" only, then also "/v2" and "/inference" from May 2026 (server_utils.py GUARDED_PREFIX). */
  guardedPrefixes: string[];
}

export function vllmTraits(version: string): VllmTraits {
  const before = (v: string) => olderThan(version, v);
  return {
    defaultGpuMemoryUtilization: before('0.20.0') ? 0.9 : 0.92,
    versionLine: before('0.15.0') ? 'api-server' : 'logo',
    freeMemoryNamesDevice: !before('0.14.0'),
    statsPreemptions: !before('0.12.0'),
    reasoningFields: before('0.12.0')
      ? ['reasoning_content']
      : before('0.16.0')
        ? ['reasoning', 'reasoning_content']
        : ['reasoning'],
    guardedPrefixes: before('0.22.0') ? ['/v1'] : ['/v1', '/v2', '/inference'],
  };
}

/**
 * `--kv-cache-dtype` choices by release (the CacheDType literal in vllm/config/cache.py). A value
 * outside the profile's list that has the shape of a newer vLLM's value (int4_per_token_head in
 * 0.32 launch lines) is accepted with a warning; anything else is refused as argparse would.
 */
const KV_DTYPES_BASE = ['auto', 'float16', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc'];
const KV_DTYPES_LATER: Array<[string, string[]]> = [
  ['0.11.0', ['fp8_ds_mla']], // September 2025
  ['0.19.0', ['int8_per_token_head', 'fp8_per_token_head']], // April 2, 2026
  ['0.20.0', ['nvfp4', 'turboquant_k8v4', 'turboquant_4bit_nc', 'turboquant_k3v4_nc', 'turboquant_3bit_nc']], // April 14-17, 2026
];

export function kvCacheDtypeChoices(version: string): string[] {
  return [...KV_DTYPES_BASE, ...KV_DTYPES_LATER.filter(([since]) => !olderThan(version, since)).flatMap(([, v]) => v)];
}

/** Shapes of quantized KV cache dtypes newer vLLM releases add. */
const NEWER_KV_DTYPE =
  /^(?:(?:int|fp|nvfp|mxfp)\d+(?:_e\dm\d)?_per_token(?:_head)?|turboquant_\w+|nvfp4|mxfp[468]\w*)$/;

type KvDtypeCheck = { ok: true; warning?: string } | { ok: false; error: string };

export function checkKvCacheDtype(value: string, version: string): KvDtypeCheck {
  const choices = kvCacheDtypeChoices(version);
  if (choices.includes(value)) return { ok: true };
  if (NEWER_KV_DTYPE.test(value)) {
    return {
      ok: true,
      warning: `--kv-cache-dtype ${value} is not a choice of vLLM ${version} (the profile's version); simulated by its bits per element, as a newer vLLM would store it.`,
    };
  }
  return {
    ok: false,
    error: `argument --kv-cache-dtype: invalid choice: '${value}' (choose from ${choices.map((d) => `'${d}'`).join(', ')})`,
  };
}
