/**
 * The facts for a report's Engine block that do not come over HTTP: commit from the version
 * string, quantization and dtype from the flags or a local model's config.json, the build
 * (image tag or Python environment) and the backend.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import type { LaunchOptions } from './launch';
import { dockerImageOf } from './launch';

/** "0.30.1rc1.dev452+g73a583112" -> "73a583112"; null when the version names no commit. */
export function commitFromVersion(version: string | null | undefined): string | null {
  const m = /\+g([0-9a-f]{7,40})\b/i.exec(version ?? '');
  return m ? m[1] : null;
}

/** "0.9.0+rocm631" -> rocm; a CUDA build tag or default -> the hint (cuda on NVIDIA machines). */
export function backendFromVersion(version: string | null | undefined, hint: string | null = null): string | null {
  const v = version ?? '';
  if (/rocm/i.test(v)) return 'rocm';
  if (/\+cpu\b/i.test(v)) return 'cpu';
  if (/\+cu\d+|cuda/i.test(v)) return 'cuda';
  return hint;
}

interface ModelConfigFacts {
  quantMethod: string | null;
  torchDtype: string | null;
}

/** Read config.json of a model given as a local folder; null for hub ids or unreadable files. */
export function readLocalModelConfig(model: string): ModelConfigFacts | null {
  try {
    if (!statSync(model).isDirectory()) return null;
    const cfg = JSON.parse(readFileSync(join(model, 'config.json'), 'utf8')) as Record<string, unknown>;
    const text = (cfg.text_config ?? {}) as Record<string, unknown>;
    const q = (cfg.quantization_config ?? text.quantization_config) as Record<string, unknown> | undefined;
    const dtype = cfg.torch_dtype ?? cfg.dtype ?? text.torch_dtype ?? text.dtype;
    return {
      quantMethod: typeof q?.quant_method === 'string' ? q.quant_method : null,
      torchDtype: typeof dtype === 'string' ? dtype : null,
    };
  } catch {
    return null;
  }
}

const DTYPE_LABEL: Record<string, string> = {
  bfloat16: 'BF16',
  float16: 'FP16',
  half: 'FP16',
  float32: 'FP32',
  float: 'FP32',
};

/**
 * The quantization label as reports show it: the method (AWQ, FP8, GPTQ...) when the model is
 * quantized, otherwise its weight dtype (BF16), as the reference report does.
 */
export function quantizationLabel(quant: string | null | undefined, dtype: string | null | undefined): string | null {
  if (quant) return quant.toUpperCase();
  if (dtype && dtype !== 'auto') return DTYPE_LABEL[dtype.toLowerCase()] ?? dtype.toUpperCase();
  return null;
}

/** Look a program up on PATH the way spawn will. */
function whichSync(command: string, envPath = process.env.PATH ?? ''): string | null {
  if (isAbsolute(command) || command.includes('/')) return existsSync(command) ? command : null;
  for (const dir of envPath.split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return null;
}

/** What the engine was built from: the Docker image tag, or the Python environment holding `vllm`. */
export function buildOf(o: LaunchOptions): string | null {
  switch (o.engineKind) {
    case 'vllm-docker':
      return dockerImageOf(o);
    case 'vllm-native': {
      const exe = whichSync(o.executable || 'vllm');
      return exe ? dirname(dirname(exe)) : null;
    }
    case 'simulator':
      return 'speedmatrix-sim';
    default:
      return null;
  }
}
