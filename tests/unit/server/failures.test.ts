import { describe, expect, it } from 'vitest';
import { executableNotFound, portBusy, recognizeStartupFailure } from '../../../src-main/engine/server/failures';
import { RECENT_LINES } from './vllm-strings';

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
    [
      'cuda-out-of-memory',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
      /ran out of memory/,
      /--tensor-parallel-size/,
    ],
    [
      'unknown-model',
      "ValueError: Invalid repository ID or local directory specified: 'foo/bar'.",
      /'foo\/bar' was not found/,
      /Check the model id/,
    ],
    [
      'gated-model',
      'huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/x.',
      /gated/,
      /HF_TOKEN/,
    ],
    ['port-in-use', 'OSError: [Errno 98] Address already in use', /Port 8123 is already in use/, /another --port/],
    [
      'max-num-seqs-above-mamba-blocks',
      RECENT_LINES.mambaBlocks,
      /--max-num-seqs 256 is more than the 120 Mamba cache blocks/,
      /^Lower --max-num-seqs to at most 120 or raise --gpu-memory-utilization\.$/,
    ],
    [
      'distributed-port-in-use',
      'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use',
      /^Port 29500, which torch\.distributed uses .* \(not the API port 8123\), is already in use/,
      /ss -ltnp 'sport = :29500'.*VLLM_DP_MASTER_PORT=29501.*MASTER_PORT=29501/,
    ],
    [
      'docker-unavailable',
      'docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
      /Docker is not available/,
      /Start Docker/,
    ],
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

  it('docker without a GPU for the container: the advice fits the platform', () => {
    const line = 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].';
    const on = (platform: string) => recognizeStartupFailure([line], { platform });
    expect(on('linux')).toMatchObject({
      kind: 'docker-unavailable',
      advice: expect.stringMatching(/NVIDIA Container Toolkit/),
    });
    expect(on('darwin').advice).toMatch(/macOS cannot give a container an NVIDIA GPU/);
    expect(on('darwin').advice).not.toMatch(/Container Toolkit/);
    expect(on('win32').advice).toMatch(/WSL 2/);
  });

  it('Docker daemon not running: systemctl only on Linux, Docker Desktop on macOS and Windows (its pipe error too)', () => {
    const unix =
      'Cannot connect to the Docker daemon at unix:///Users/me/.docker/run/docker.sock. Is the docker daemon running?';
    expect(recognizeStartupFailure([unix], { platform: 'linux' }).advice).toMatch(/systemctl start docker/);
    expect(recognizeStartupFailure([unix], { platform: 'darwin' }).advice).toMatch(
      /^Start Docker Desktop \(open -a Docker\)/,
    );
    const pipe =
      'docker: error during connect: Head "http://%2F%2F.%2Fpipe%2FdockerDesktopLinuxEngine/_ping": open //./pipe/dockerDesktopLinuxEngine: The system cannot find the file specified.';
    const w = recognizeStartupFailure([pipe], { platform: 'win32' });
    expect(w.kind).toBe('docker-unavailable');
    expect(w.advice).toMatch(/Start Docker Desktop/);
    expect(w.advice).not.toMatch(/systemctl/);
    expect(
      recognizeStartupFailure(
        [
          'error during connect: this error may indicate that the docker daemon is not running: open //./pipe/docker_engine: The system cannot find the file specified.',
        ],
        { platform: 'win32' },
      ).kind,
    ).toBe('docker-unavailable');
  });

  it("a busy port: how to find its owner on each platform, Windows' own error too", () => {
    expect(
      recognizeStartupFailure(['OSError: [Errno 98] Address already in use'], { port: 8000, platform: 'linux' }).advice,
    ).toMatch(/ss -ltnp 'sport = :8000'/);
    expect(
      recognizeStartupFailure(['OSError: [Errno 48] Address already in use'], { port: 8000, platform: 'darwin' })
        .advice,
    ).toMatch(/lsof -nP -iTCP:8000/);
    const w = recognizeStartupFailure(
      [
        'OSError: [WinError 10048] Only one usage of each socket address (protocol/network address/port) is normally permitted',
      ],
      { port: 8000, platform: 'win32' },
    );
    expect(w).toMatchObject({ kind: 'port-in-use', advice: expect.stringMatching(/netstat -ano \| findstr :8000/) });
    expect(portBusy('127.0.0.1', 8000, 'darwin').advice).toMatch(/lsof/);
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
    expect(executableNotFound('vllm', 'vllm-native', 'linux')).toMatchObject({
      kind: 'executable-not-found',
      advice: expect.stringMatching(/pip install vllm/),
    });
    expect(executableNotFound('docker', 'vllm-docker', 'linux')).toMatchObject({
      kind: 'docker-unavailable',
      advice: expect.stringMatching(/NVIDIA Container Toolkit/),
    });
    expect(portBusy('127.0.0.1', 8000, 'linux').message).toMatch(
      /Port 8000 on 127.0.0.1 is already in use; nothing was started/,
    );
  });
});

describe('advice for the platform the user is on', () => {
  it('vLLM not installed: pip on Linux, WSL 2 on Windows, no CUDA build on macOS', () => {
    expect(executableNotFound('vllm', 'vllm-native', 'win32').advice).toMatch(
      /does not run natively on Windows: install it inside WSL 2/,
    );
    expect(executableNotFound('vllm', 'vllm-native', 'darwin').advice).toMatch(/no CUDA build for macOS/);
  });

  it('Docker not installed: Docker Desktop on macOS and Windows, the toolkit only on Linux', () => {
    expect(executableNotFound('docker', 'vllm-docker', 'darwin').advice).toMatch(
      /^Install Docker Desktop; note that containers on macOS get no NVIDIA GPU/,
    );
    expect(executableNotFound('docker', 'vllm-docker', 'win32').advice).toMatch(
      /Docker Desktop with the WSL 2 based engine/,
    );
    for (const p of ['darwin', 'win32'])
      expect(executableNotFound('docker', 'vllm-docker', p).advice).not.toMatch(/Container Toolkit|systemctl/);
  });
});

/** SGLang's scheduler crash as it logs it (managers/scheduler.py run_scheduler_process, utils configure_logger). */
const sglangCrash = (root: string) => [
  '[2026-03-02 10:14:03 TP0] Scheduler hit an exception: Traceback (most recent call last):',
  '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 3602, in run_scheduler_process',
  '    scheduler = Scheduler(',
  root,
  '',
  '[2026-03-02 10:14:04] Received sigquit from a child process. It usually means the child failed.',
];

describe("SGLang's start-up failures: its cause and its own advice", () => {
  const cases: Array<[string, string, RegExp, RegExp]> = [
    [
      'no-kv-memory',
      'RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.88',
      /holds no tokens of SGLang's KV cache/,
      /^Raise --mem-fraction-static \(now 0\.88\), as SGLang advises/,
    ],
    [
      'no-kv-memory',
      'ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.7. Raise --mem-fraction-static above 0.812 (minimum viable = 1 - available/pre = 0.8114). If using speculative decoding, draft weights are now counted.',
      /under --mem-fraction-static 0\.7\.$/,
      /^Raise --mem-fraction-static above 0\.812 /,
    ],
    [
      'max-model-len-above-model-limit',
      "ValueError: Warning: User-specified context_length (262144) is greater than the derived context_length (131072). This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length may differ from max_position_embeddings in the model's config. To allow overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
      /--context-length 262144 is above the model's own limit of 131072/,
      /^Lower --context-length to at most 131072, or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1/,
    ],
  ];
  for (const [kind, root, message, advice] of cases) {
    it(`${kind}: ${root.slice(0, 60)}`, () => {
      const f = recognizeStartupFailure(sglangCrash(root), { exitCode: 1, engineKind: 'custom' });
      expect(f).toMatchObject({ kind, rootCauseLines: [root] });
      expect(f.message).toMatch(message);
      expect(f.advice).toMatch(advice);
    });
  }

  it("an out-of-memory in SGLang's scheduler names SGLang's flags, not vLLM's", () => {
    const oom =
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.';
    const f = recognizeStartupFailure(sglangCrash(oom), { exitCode: 1, engineKind: 'custom' });
    expect(f.kind).toBe('cuda-out-of-memory');
    expect(f.advice).toMatch(/--mem-fraction-static, --max-running-requests or --chunked-prefill-size.*--tp-size/);
    expect(f.advice).not.toMatch(/--gpu-memory-utilization|--max-num-seqs/);
    expect(recognizeStartupFailure(tb(oom)).advice).toMatch(/--gpu-memory-utilization, --max-num-seqs/);
  });

  it("a busy torch.distributed port under SGLang: its --nccl-port, PyTorch's older bind message too", () => {
    const old =
      'RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).';
    const f = recognizeStartupFailure(sglangCrash(old), { port: 30000, platform: 'linux' });
    expect(f.kind).toBe('distributed-port-in-use');
    expect(f.message).toMatch(/^Port 29500, .*not the API port 30000/);
    expect(f.advice).toMatch(/--nccl-port 29501/);
  });
});
