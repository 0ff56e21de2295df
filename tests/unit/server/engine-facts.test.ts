import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  backendFromVersion,
  buildOf,
  commitFromVersion,
  quantizationLabel,
  readLocalModelConfig,
} from '../../../src-main/engine/server/engine-facts';
import { defaultHfCacheDir } from '../../../src-main/engine/server/launch';
import {
  kvFromCacheConfigBlocks,
  kvFromCacheConfigTokens,
  parsePrometheus,
} from '../../../src-main/engine/server/metrics-parse';
import { FAKE_BIN } from '../../helpers/fake-servers';

describe('engine facts', () => {
  it('commit from +g<sha>; backend from the version', () => {
    expect(commitFromVersion('0.30.1rc1.dev452+g73a583112')).toBe('73a583112');
    expect(commitFromVersion('0.10.1.1')).toBeNull();
    expect(commitFromVersion(null)).toBeNull();
    expect(backendFromVersion('0.9.2+rocm631')).toBe('rocm');
    expect(backendFromVersion('0.9.1+cu126')).toBe('cuda');
    expect(backendFromVersion('0.10.0', 'cuda')).toBe('cuda');
    expect(backendFromVersion('0.10.0')).toBeNull();
  });

  it('quantization label: the method, else the weight dtype', () => {
    expect(quantizationLabel('fp8', 'bfloat16')).toBe('FP8');
    expect(quantizationLabel(null, 'bfloat16')).toBe('BF16');
    expect(quantizationLabel(null, 'auto')).toBeNull();
    expect(quantizationLabel(undefined, undefined)).toBeNull();
  });

  it("a local model folder's config.json (top level and text_config)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-model-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ torch_dtype: 'bfloat16', quantization_config: { quant_method: 'awq', bits: 4 } }),
    );
    expect(readLocalModelConfig(dir)).toEqual({ quantMethod: 'awq', torchDtype: 'bfloat16' });
    const mm = join(dir, 'mm');
    mkdirSync(mm);
    writeFileSync(join(mm, 'config.json'), JSON.stringify({ text_config: { dtype: 'float16' } }));
    expect(readLocalModelConfig(mm)).toEqual({ quantMethod: null, torchDtype: 'float16' });
    expect(readLocalModelConfig('Qwen/Qwen3-8B')).toBeNull();
  });

  it('build: image tag, or the Python environment holding vllm', () => {
    expect(buildOf({ engineKind: 'vllm-docker', dockerTag: 'v0.11.0', model: 'm', host: 'h', port: 1 })).toBe(
      'vllm/vllm-openai:v0.11.0',
    );
    expect(
      buildOf({ engineKind: 'vllm-native', executable: join(FAKE_BIN, 'vllm'), model: 'm', host: 'h', port: 1 }),
    ).toBe(join(FAKE_BIN, '..'));
    expect(
      buildOf({ engineKind: 'vllm-native', executable: '/nope/bin/vllm', model: 'm', host: 'h', port: 1 }),
    ).toBeNull();
  });

  it('default Hugging Face cache', () => {
    expect(defaultHfCacheDir({ HF_HOME: '/data/hf' })).toBe('/data/hf');
    expect(defaultHfCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/huggingface');
  });
});

describe('Prometheus text', () => {
  it('labels with escapes, exponent values, comments skipped', () => {
    const s = parsePrometheus(
      '# HELP x y\nvllm:cache_config_info{block_size="16",model="a\\"b",num_gpu_blocks="57656"} 1.0\nvllm:prompt_tokens_total{engine="0"} 1.048576e+06\n',
    );
    expect(s).toEqual([
      { name: 'vllm:cache_config_info', labels: { block_size: '16', model: 'a"b', num_gpu_blocks: '57656' }, value: 1 },
      { name: 'vllm:prompt_tokens_total', labels: { engine: '0' }, value: 1048576 },
    ]);
    expect(kvFromCacheConfigBlocks(s)).toEqual({
      tokens: 57656 * 16,
      detail: 'vllm:cache_config_info num_gpu_blocks 57656 x block_size 16',
      maxConcurrency: null,
    });
    expect(kvFromCacheConfigTokens(s)).toBeNull();
    expect(kvFromCacheConfigBlocks([])).toBeNull();
  });
});
