import { describe, expect, it } from 'vitest';
import { buildLaunch, toServerLaunch, type LaunchOptions } from '../../../src-main/engine/server/launch';
import { shellQuote, shellSplit } from '#shared/shell-quote';

const base: LaunchOptions = { engineKind: 'vllm-native', model: 'Qwen/Qwen3-8B', host: '127.0.0.1', port: 8000 };

describe('buildLaunch: vllm-native', () => {
  const cases: Array<{
    name: string;
    o: Partial<LaunchOptions>;
    argv: string[];
    env?: Record<string, string>;
    display: string;
  }> = [
    {
      name: 'minimal',
      o: {},
      argv: ['vllm', 'serve', 'Qwen/Qwen3-8B', '--host', '127.0.0.1', '--port', '8000'],
      display: 'vllm serve Qwen/Qwen3-8B --host 127.0.0.1 --port 8000',
    },
    {
      name: 'every model option, in vllm order',
      o: {
        executable: '/opt/venv/bin/vllm',
        servedModelName: 'qwen',
        revision: 'main',
        dtype: 'bfloat16',
        quantization: 'fp8',
        maxModelLen: 32768,
        gpuMemoryUtilization: 0.85,
        maxNumSeqs: 256,
        maxNumBatchedTokens: 8192,
        tensorParallelSize: 2,
        pipelineParallelSize: 1,
        dataParallelSize: 1,
        kvCacheDtype: 'fp8',
        enablePrefixCaching: false,
        attentionBackend: 'FLASHINFER',
        trustRemoteCode: true,
        extraArgs: ['--limit-mm-per-prompt', '{"image": 0}', '--language-model-only'],
      },
      argv: [
        '/opt/venv/bin/vllm',
        'serve',
        'Qwen/Qwen3-8B',
        '--host',
        '127.0.0.1',
        '--port',
        '8000',
        '--served-model-name',
        'qwen',
        '--revision',
        'main',
        '--dtype',
        'bfloat16',
        '--quantization',
        'fp8',
        '--max-model-len',
        '32768',
        '--gpu-memory-utilization',
        '0.85',
        '--max-num-seqs',
        '256',
        '--max-num-batched-tokens',
        '8192',
        '--tensor-parallel-size',
        '2',
        '--pipeline-parallel-size',
        '1',
        '--data-parallel-size',
        '1',
        '--kv-cache-dtype',
        'fp8',
        '--no-enable-prefix-caching',
        '--attention-backend',
        'FLASHINFER',
        '--trust-remote-code',
        '--limit-mm-per-prompt',
        '{"image": 0}',
        '--language-model-only',
      ],
      display:
        '/opt/venv/bin/vllm serve Qwen/Qwen3-8B --host 127.0.0.1 --port 8000 --served-model-name qwen --revision main --dtype bfloat16 --quantization fp8 --max-model-len 32768 --gpu-memory-utilization 0.85 --max-num-seqs 256 --max-num-batched-tokens 8192 --tensor-parallel-size 2 --pipeline-parallel-size 1 --data-parallel-size 1 --kv-cache-dtype fp8 --no-enable-prefix-caching --attention-backend FLASHINFER --trust-remote-code --limit-mm-per-prompt \'{"image": 0}\' --language-model-only',
    },
    {
      name: 'API key travels in VLLM_API_KEY, shown redacted; GPUs and extra env in front',
      o: {
        apiKey: 'sk-secret-123',
        cudaVisibleDevices: '0,1',
        extraEnv: { HF_HOME: '/data/hf cache', VLLM_LOGGING_LEVEL: 'DEBUG' },
        enablePrefixCaching: true,
      },
      argv: ['vllm', 'serve', 'Qwen/Qwen3-8B', '--host', '127.0.0.1', '--port', '8000', '--enable-prefix-caching'],
      env: {
        CUDA_VISIBLE_DEVICES: '0,1',
        HF_HOME: '/data/hf cache',
        VLLM_LOGGING_LEVEL: 'DEBUG',
        VLLM_API_KEY: 'sk-secret-123',
      },
      display:
        "CUDA_VISIBLE_DEVICES=0,1 HF_HOME='/data/hf cache' VLLM_LOGGING_LEVEL=DEBUG VLLM_API_KEY='<redacted>' vllm serve Qwen/Qwen3-8B --host 127.0.0.1 --port 8000 --enable-prefix-caching",
    },
    {
      name: 'multi-node with Ray',
      o: { host: '0.0.0.0', tensorParallelSize: 8, pipelineParallelSize: 2, distributedExecutorBackend: 'ray' },
      argv: [
        'vllm',
        'serve',
        'Qwen/Qwen3-8B',
        '--host',
        '0.0.0.0',
        '--port',
        '8000',
        '--tensor-parallel-size',
        '8',
        '--pipeline-parallel-size',
        '2',
        '--distributed-executor-backend',
        'ray',
      ],
      display:
        'vllm serve Qwen/Qwen3-8B --host 0.0.0.0 --port 8000 --tensor-parallel-size 8 --pipeline-parallel-size 2 --distributed-executor-backend ray',
    },
    {
      name: 'model with spaces, quotes and ;',
      o: { model: "/models/my model's; rm -rf x" },
      argv: ['vllm', 'serve', "/models/my model's; rm -rf x", '--host', '127.0.0.1', '--port', '8000'],
      display: `vllm serve '/models/my model'\\''s; rm -rf x' --host 127.0.0.1 --port 8000`,
    },
    {
      name: 'served name with double quotes and $',
      o: { servedModelName: 'say "hi" $HOME `x`' },
      argv: [
        'vllm',
        'serve',
        'Qwen/Qwen3-8B',
        '--host',
        '127.0.0.1',
        '--port',
        '8000',
        '--served-model-name',
        'say "hi" $HOME `x`',
      ],
      display: `vllm serve Qwen/Qwen3-8B --host 127.0.0.1 --port 8000 --served-model-name 'say "hi" $HOME \`x\`'`,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const b = buildLaunch({ ...base, ...c.o });
      expect(b.argv).toEqual(c.argv);
      expect(b.env).toEqual(c.env ?? {});
      expect(b.display).toBe(c.display);
      // The display is a faithful shell line: splitting it gives the argv back (env assignments aside).
      const words = shellSplit(b.display);
      expect(words.slice(words.length - b.argv.length)).toEqual(
        b.argv.map((a) => (a === c.o.apiKey ? '<redacted>' : a)),
      );
      if (c.o.apiKey) expect(b.display).not.toContain(c.o.apiKey);
    });
  }
});

describe('buildLaunch: docker, custom, simulator', () => {
  it('docker: GPUs, port, HF cache mounted, env by name only, key never in argv, `vllm serve MODEL` through --entrypoint on every image', () => {
    const b = buildLaunch({
      ...base,
      engineKind: 'vllm-docker',
      dockerTag: 'v0.11.0',
      hfCacheDir: '/home/me/.cache/huggingface',
      cudaVisibleDevices: '2,3',
      apiKey: 'sk-docker-key',
      extraEnv: { HF_TOKEN: 'hf_abcdef' },
      maxModelLen: 8192,
    });
    expect(b.argv).toEqual([
      'docker',
      'run',
      '--rm',
      '--name',
      'speedmatrix-vllm-8000',
      '--gpus',
      '"device=2,3"',
      '--ipc=host',
      '-p',
      '127.0.0.1:8000:8000',
      '-v',
      '/home/me/.cache/huggingface:/root/.cache/huggingface',
      '-e',
      'HF_TOKEN',
      '-e',
      'VLLM_API_KEY',
      '--entrypoint',
      'vllm',
      'vllm/vllm-openai:v0.11.0',
      'serve',
      'Qwen/Qwen3-8B',
      '--host',
      '0.0.0.0',
      '--port',
      '8000',
      '--max-model-len',
      '8192',
    ]);
    expect(b.env).toEqual({ CUDA_VISIBLE_DEVICES: '2,3', HF_TOKEN: 'hf_abcdef', VLLM_API_KEY: 'sk-docker-key' });
    expect(b.argv.join(' ')).not.toMatch(/sk-docker-key|hf_abcdef/);
    expect(b.display).toBe(
      `CUDA_VISIBLE_DEVICES=2,3 HF_TOKEN='<redacted>' VLLM_API_KEY='<redacted>' docker run --rm --name speedmatrix-vllm-8000 --gpus '"device=2,3"' --ipc=host -p 127.0.0.1:8000:8000 -v /home/me/.cache/huggingface:/root/.cache/huggingface -e HF_TOKEN -e VLLM_API_KEY --entrypoint vllm vllm/vllm-openai:v0.11.0 serve Qwen/Qwen3-8B --host 0.0.0.0 --port 8000 --max-model-len 8192`,
    );
  });

  it('docker on all interfaces publishes the port without an address, all GPUs', () => {
    const b = buildLaunch({ ...base, engineKind: 'vllm-docker', host: '0.0.0.0' });
    expect(b.argv.slice(0, 10)).toEqual([
      'docker',
      'run',
      '--rm',
      '--name',
      'speedmatrix-vllm-8000',
      '--gpus',
      'all',
      '--ipc=host',
      '-p',
      '8000:8000',
    ]);
  });

  it('custom: argv passes through untouched, a key in it is redacted in display', () => {
    const b = buildLaunch({
      ...base,
      engineKind: 'custom',
      customArgv: ['python', '-m', 'sglang.launch_server', '--api-key', 'k3y-value', '--model-path', 'a b'],
      apiKey: 'k3y-value',
    });
    expect(b.argv).toEqual(['python', '-m', 'sglang.launch_server', '--api-key', 'k3y-value', '--model-path', 'a b']);
    expect(b.display).toBe("python -m sglang.launch_server --api-key '<redacted>' --model-path 'a b'");
    expect(() => buildLaunch({ ...base, engineKind: 'custom' })).toThrow(/needs a command/);
  });

  it('simulator: node program + serve MODEL + vllm flags + sim flags; display reads speedmatrix sim serve', () => {
    const b = buildLaunch({
      ...base,
      engineKind: 'simulator',
      model: 'fara 4b',
      apiKey: 'sim-key-1',
      maxModelLen: 262144,
      simProfile: 'rtx-pro-6000-fara-4b-bf16',
      simSpeed: 50,
      simArgs: ['--sim-load-seconds', '0.2'],
    });
    expect(b.argv[0]).toBe(process.execPath);
    expect(b.argv.some((a) => a.endsWith('src-main/engine/sim/main.ts'))).toBe(true);
    const tail = b.argv.slice(b.argv.indexOf('serve'));
    expect(tail).toEqual([
      'serve',
      'fara 4b',
      '--host',
      '127.0.0.1',
      '--port',
      '8000',
      '--max-model-len',
      '262144',
      '--api-key',
      'sim-key-1',
      '--sim-profile',
      'rtx-pro-6000-fara-4b-bf16',
      '--sim-speed',
      '50',
      '--sim-load-seconds',
      '0.2',
    ]);
    expect(b.display).toBe(
      "speedmatrix sim serve 'fara 4b' --host 127.0.0.1 --port 8000 --max-model-len 262144 --api-key '<redacted>' --sim-profile rtx-pro-6000-fara-4b-bf16 --sim-speed 50 --sim-load-seconds 0.2",
    );
  });
});

describe('toServerLaunch', () => {
  it('redacts argv and env, keeps model facts', () => {
    const o: LaunchOptions = {
      ...base,
      engineKind: 'simulator',
      apiKey: 'sim-key-1',
      servedModelName: 'm',
      revision: 'r1',
      maxModelLen: 4096,
      extraEnv: { HF_TOKEN: 'hf_x', HF_HOME: '/h' },
    };
    const s = toServerLaunch(o, buildLaunch(o));
    expect(s.kind).toBe('simulator');
    expect(s.url).toBe('http://127.0.0.1:8000');
    expect(JSON.stringify(s)).not.toMatch(/sim-key-1|hf_x/);
    expect(s.argv).toContain('<redacted>');
    expect(s.env).toEqual({ HF_TOKEN: '<redacted>', HF_HOME: '/h' });
    expect([s.model, s.servedModel, s.revision, s.maxModelLen]).toEqual(['Qwen/Qwen3-8B', 'm', 'r1', 4096]);
    expect(toServerLaunch({ ...base, host: '0.0.0.0' }, buildLaunch({ ...base, host: '0.0.0.0' })).url).toBe(
      'http://127.0.0.1:8000',
    );
  });
});

describe('shellQuote', () => {
  it.each([
    ['plain', 'plain'],
    ['', "''"],
    ['a b', "'a b'"],
    ["it's", `'it'\\''s'`],
    ['a;b', "'a;b'"],
    ['$HOME', "'$HOME'"],
    ['x=1,2:3/4@5', 'x=1,2:3/4@5'],
  ])('%j -> %s', (word, quoted) => {
    expect(shellQuote(word)).toBe(quoted);
    expect(shellSplit(quoted)).toEqual([word]);
  });
});
