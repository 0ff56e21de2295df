import { describe, expect, it } from 'vitest';
import { executableNotFound, portBusy, recognizeStartupFailure } from '../../../src-main/server/failures';

const tb = (root: string) => [
  '\x1b[1;36m(EngineCore_DP0 pid=9)\x1b[0;0m ERROR 08-19 14:58:41 [core.py:700] EngineCore failed to start.',
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 691, in run_engine_core',
  root,
  'RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
];

describe('recognizeStartupFailure', () => {
  const cases: Array<[string, string, RegExp, RegExp]> = [
    [
      'no-kv-memory',
      'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.',
      /no GPU memory for the KV cache/,
      /Raise --gpu-memory-utilization \(now 0.5\)/,
    ],
    [
      'max-seq-len-exceeds-kv',
      "ValueError: To serve at least one request with the models's max seq len (262144), (16.0 GiB KV cache is needed, which is larger than the available KV cache memory (9.6 GiB). Based on the available memory, the estimated maximum model length is 157216. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
      /max length \(262144 tokens\)/,
      /^Lower --max-model-len to at most 157216 or raise --gpu-memory-utilization\.$/,
    ],
    [
      'free-memory-below-utilization',
      'ValueError: Free memory on device (37.95/79.25 GiB) on startup is less than desired GPU memory utilization (0.9, 71.33 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
      /Only 37.95 of 79.25 GiB/,
      /lower --gpu-memory-utilization to at most 0.47/,
    ],
    [
      'max-model-len-above-model-limit',
      "ValueError: User-specified max_model_len (262144) is greater than the derived max_model_len (max_position_embeddings=131072 or model_max_length=None in model's config.json).",
      /262144 is above the model's own limit of 131072/,
      /Lower --max-model-len to at most 131072/,
    ],
    ['cuda-out-of-memory', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.', /ran out of memory/, /--tensor-parallel-size/],
    ['unknown-model', "ValueError: Invalid repository ID or local directory specified: 'foo/bar'.", /'foo\/bar' was not found/, /Check the model id/],
    ['gated-model', 'huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/x.', /gated/, /HF_TOKEN/],
    ['port-in-use', 'OSError: [Errno 98] Address already in use', /Port 8123 is already in use/, /another --port/],
    ['docker-unavailable', 'docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?', /Docker is not available/, /Start Docker/],
  ];
  for (const [kind, root, message, advice] of cases) {
    it(kind, () => {
      const f = recognizeStartupFailure(tb(root), { exitCode: 1, port: 8123, gpuMemoryUtilization: 0.5 });
      expect(f.kind).toBe(kind);
      expect(f.message).toMatch(message);
      expect(f.advice).toMatch(advice);
      expect(f.rootCauseLines).toEqual([root]);
      expect(f.logTail.at(-1)).toMatch(/Engine core initialization failed/);
      expect(f.exitCode).toBe(1);
    });
  }

  it('docker: a container of the same name left from an earlier launch', () => {
    const f = recognizeStartupFailure([
      'docker: Error response from daemon: Conflict. The container name "/speedmatrix-vllm-8000" is already in use by container "0123abcd". You have to remove (or rename) that container to be able to reuse that name.',
    ]);
    expect(f).toMatchObject({ kind: 'port-in-use', advice: 'Remove it with: docker rm -f speedmatrix-vllm-8000' });
  });

  it('docker without the NVIDIA toolkit', () => {
    const f = recognizeStartupFailure(['docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].']);
    expect(f.kind).toBe('docker-unavailable');
    expect(f.advice).toMatch(/NVIDIA Container Toolkit/);
  });

  it('unrecognised: exited before ready, with the last error-looking line that is not the generic one', () => {
    const f = recognizeStartupFailure(tb('KeyError: something odd'), { exitCode: 1 });
    expect(f.kind).toBe('exited-before-ready');
    expect(f.message).toBe('The server exited with code 1 before it was ready.');
    expect(f.rootCauseLines).toEqual(['KeyError: something odd']);
  });

  it('killed by a signal with no log', () => {
    const f = recognizeStartupFailure([], { exitCode: null, signal: 'SIGKILL' });
    expect(f.message).toBe('The server was killed by SIGKILL before it was ready.');
    expect(f.rootCauseLines).toEqual([]);
  });

  it('failures found before any log', () => {
    expect(executableNotFound('vllm', 'vllm-native')).toMatchObject({ kind: 'executable-not-found', advice: expect.stringMatching(/pip install vllm/) });
    expect(executableNotFound('docker', 'vllm-docker')).toMatchObject({ kind: 'docker-unavailable' });
    expect(portBusy('127.0.0.1', 8000).message).toMatch(/Port 8000 on 127.0.0.1 is already in use; nothing was started/);
  });
});
