/**
 * Lines exactly as vLLM prints them, by the version that prints them, taken from vLLM's source
 * (github.com/vllm-project/vllm; commit and date of the source each one was read from). The
 * format arguments are filled with realistic values; the words and punctuation are vLLM's.
 * Release dates for orientation: v0.8.0 2025-03, v0.9.0 2025-05, v0.10.0 2025-07, v0.11.0 2025-10-02,
 * v0.12.0 2025-12, later releases through 2026-05 (the newest source read, 28be48fa9).
 */

/** Process prefixes as vLLM colours them even when piped (vllm/logger.py, since 2025-08). */
export const API = '\x1b[1;36m(APIServer pid=1234)\x1b[0;0m INFO 05-24 08:14:51 [api_server.py:1639] ';
export const ENGINE = (dp = 0) =>
  `\x1b[1;33m(EngineCore_DP${dp} pid=${4242 + dp})\x1b[0;0m INFO 05-24 08:14:51 [kv_cache_utils.py:1734] `;
/**
 * Before v0.10.2 an engine core's process was named "EngineCore_N" (vllm/v1/engine/utils.py
 * `name=f"EngineCore_{global_index}"` @15dac210f, 2025-03-27, to @0cdd21364~1, 2025-09-08) and
 * `_add_prefix` wrote it in cyan (vllm/utils/__init__.py); @0cdd21364 renamed it "EngineCore_DPN".
 */
export const ENGINE_BEFORE_0_10_2 = (n = 0) =>
  `\x1b[1;36m(EngineCore_${n} pid=${4242 + n})\x1b[0;0m INFO 09-01 10:00:00 [kv_cache_utils.py:864] `;
/** Before process prefixes (v0.8-v0.10). */
export const BARE = 'INFO 03-19 10:00:00 [loggers.py:80] ';

export const VERSION_LINES = {
  /** vllm/entrypoints/openai/api_server.py @5a0905ba2 (2025-03-19, v0.8) to @7fe255889~1 (2026-01-22). */
  apiServer: `${API}vLLM API server version 0.11.0`,
  /** vllm/entrypoints/utils.py log_version_and_model, plain formatter, @7fe255889 (2026-01-23) to @28be48fa9 (2026-05). */
  serverServing: `${API}vLLM server version 0.21.0, serving model Qwen/Qwen3-8B`,
  /** Same function, colour formatter: the logo, one physical line per row. */
  logo: [
    `${API}`,
    '       \x1b[97;1m█     █     █▄   ▄█\x1b[0m',
    ' \x1b[93m▄▄\x1b[0m \x1b[94m▄█\x1b[0m \x1b[97;1m█     █     █ ▀▄▀ █\x1b[0m  version \x1b[97;1m0.21.0\x1b[0m',
    '  \x1b[93m█\x1b[0m\x1b[94m▄█▀\x1b[0m \x1b[97;1m█     █     █     █\x1b[0m  model   \x1b[97;1mQwen/Qwen3-8B\x1b[0m',
    '   \x1b[94m▀▀\x1b[0m  \x1b[97;1m▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀\x1b[0m',
  ],
  /** vllm/v1/engine/core.py "Initializing a V1 LLM engine (v%s) with config: %s", @5a0905ba2 to @28be48fa9. */
  engineV1: `${ENGINE()}Initializing a V1 LLM engine (v0.21.0) with config: model='Qwen/Qwen3-8B', speculative_config=None, tokenizer='Qwen/Qwen3-8B', dtype=torch.bfloat16, max_seq_len=32768, quantization=None, kv_cache_dtype=auto`,
};

export const KV_LINES = {
  /** V0: vllm/executor/executor_base.py "# %s blocks: %d, # CPU blocks: %d" with the platform's device_name, @5a0905ba2 (2025-03-19, v0.8). */
  v0Blocks: `${BARE}# cuda blocks: 1381, # CPU blocks: 2048`,
  v0Concurrency: `${BARE}Maximum concurrency for 32768 tokens per request: 0.67x`,
  /** V1: vllm/v1/core/kv_cache_utils.py, two info_once lines, thousands separators, @d100d78eb (2025-10) to @28be48fa9. */
  v1Size: (dp = 0, tokens = '1,587,648') => `${ENGINE(dp)}GPU KV cache size: ${tokens} tokens`,
  v1Concurrency: (dp = 0) => `${ENGINE(dp)}Maximum concurrency for 32,768 tokens per request: 48.45x`,
  /** vllm/v1/core/kv_cache_utils.py "GPU KV cache size: %s tokens" @0cdd21364~1 (2025-09-08, before v0.10.2), one per engine core. */
  v1SizeBefore0102: (n: number, tokens: string) => `${ENGINE_BEFORE_0_10_2(n)}GPU KV cache size: ${tokens} tokens`,
  /** @2fd893b4c (2025-11-19) to @e68fa1b90~1 (2026-04): the log figure already multiplied by context parallelism. */
  cpMultiplied: `${ENGINE()}Multiplying the GPU KV cache size by the cp_world_size 4 (pcp_world_size 1 * dcp_world_size 4).`,
};

export const STATS_LINES = {
  /** V0: vllm/engine/metrics.py @5a0905ba2 (v0.8). */
  v0: 'INFO 03-19 10:00:00 metrics.py:482] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 44.9 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.',
  /** V1: vllm/v1/metrics/loggers.py @5a0905ba2 (v0.8), no engine prefix yet. */
  v1Early: `${BARE}Avg prompt throughput: 512.3 tokens/s, Avg generation throughput: 1,180.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 4.2%, Prefix cache hit rate: 0.0%`,
  /** @ecf8230d4 (2025-11-14): "Preemptions: %d" between Waiting and GPU KV cache usage, printed only when above 0. */
  preemptions: `${API}Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 2,310.4 tokens/s, Running: 96 reqs, Waiting: 32 reqs, Preemptions: 7, GPU KV cache usage: 99.6%, Prefix cache hit rate: 87.5%`,
  /** @5c18b961d (2026-04-13) to @28be48fa9: "Deferred: %d reqs" before Preemptions; "N Engines Aggregated: " with several engines (@8317f7235, 2025-10). */
  deferred: `${API}2 Engines Aggregated: Avg prompt throughput: 12.5 tokens/s, Avg generation throughput: 2,310.4 tokens/s, Running: 96 reqs, Waiting: 40 reqs, Deferred: 8 reqs, Preemptions: 3, GPU KV cache usage: 98.1%, Prefix cache hit rate: 91.0%, MM cache hit rate: 0.0%`,
};

/** What PyTorch prints under any CUDA error. */
const CUDA_ERROR_TAIL = [
  'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
  'For debugging consider passing CUDA_LAUNCH_BLOCKING=1',
  'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.',
];

/** Startup failures' root-cause lines. */
export const FAILURE_LINES = {
  /** vllm/v1/worker/gpu_worker.py @2d8476e46 (2025-06) to @2497228ad~1 (2025-12-16). */
  freeMemoryOld:
    'ValueError: Free memory on device (37.95/79.25 GiB) on startup is less than desired GPU memory utilization (0.9, 71.33 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
  /** vllm/v1/worker/utils.py request_memory, with the device, @2497228ad (2025-12-17) to @28be48fa9 (default utilization 0.92 from @96a85c575, 2026-04-21). */
  freeMemoryDevice:
    'ValueError: Free memory on device cuda:0 (85.92/121.69 GiB) on startup is less than desired GPU memory utilization (0.92, 111.96 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
  /** vllm/config.py @5a0905ba2 (v0.8), the key named by max_len_key. */
  maxModelLenOld:
    "ValueError: User-specified max_model_len (262144) is greater than the derived max_model_len (max_position_embeddings=131072 or model_max_length=None in model's config.json). This may lead to incorrect model outputs or CUDA errors.",
  /** vllm/config/model.py @28be48fa9, raised inside pydantic's validation of ModelConfig, another key. */
  maxModelLenPydantic: [
    'pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig',
    "  Value error, User-specified max_model_len (65536) is greater than the derived max_model_len (max_seq_len=32768 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. [type=value_error, input_value=ArgsKwargs((), {'model': ...}), input_type=ArgsKwargs]",
    '    For further information visit https://errors.pydantic.dev/2.11/v/value_error',
  ],
  /** V0: vllm/worker/worker.py raise_if_cache_size_invalid, @5a0905ba2 (v0.8) to @c99db8c8d~1 (2025-09-20, V0 removed). */
  v0MaxSeqLen:
    "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (98304). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
  /** PyTorch's CUDA error (c10/cuda/CUDAException): a RuntimeError before torch 2.8, torch.AcceleratorError from 2.8. */
  cudaErrorRuntime: ['RuntimeError: CUDA error: out of memory', ...CUDA_ERROR_TAIL],
  cudaErrorAccelerator: ['torch.AcceleratorError: CUDA error: out of memory', ...CUDA_ERROR_TAIL],
  /** vllm/v1/core/kv_cache_utils.py @8ee90c83f (2025-12-23, --max-model-len auto) to @28be48fa9. */
  autoFit:
    'ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. Try increasing `gpu_memory_utilization`.',
  /** vllm/model_executor/models/registry.py @28be48fa9. */
  architecture:
    "ValueError: Model architectures ['Glm4MoeLiteForCausalLM'] are not supported for now. Supported architectures: dict_keys(['AquilaModel', 'LlamaForCausalLM'])",
  /** vllm/transformers_utils/config.py @28be48fa9: a gated repo re-raised as "Invalid repository ID" (raise ... from e). */
  gated: [
    'huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-6650c0a1-0d1e)',
    '',
    'Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json.',
    'Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must have access to it and be authenticated to access it. Please log in.',
    '',
    'The above exception was the direct cause of the following exception:',
    '',
    'Traceback (most recent call last):',
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/transformers_utils/config.py", line 729, in get_config',
    "ValueError: Invalid repository ID or local directory specified: 'meta-llama/Llama-3.1-8B-Instruct'.",
    'Please verify the following requirements:',
    '1. Provide a valid Hugging Face repository ID.',
  ],
  /** Python argparse through vLLM's FlexibleArgumentParser; "api_server.py" is the module entrypoint of images up to v0.11.0. */
  unrecognizedPositional: 'api_server.py: error: unrecognized arguments: Qwen/Qwen3-8B',
  unrecognizedFlag: 'vllm serve: error: unrecognized arguments: --attention-backend FLASHINFER',
  /** Literal choices of CacheDType (vllm/config/cache.py @28be48fa9) become argparse choices. */
  invalidChoice:
    "vllm serve: error: argument --kv-cache-dtype: invalid choice: 'int4' (choose from 'auto', 'float16', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_ds_mla', 'int8_per_token_head', 'fp8_per_token_head', 'nvfp4')",
};

/** `vllm:cache_config_info` as vLLM's Prometheus logger writes it (vllm/v1/metrics/loggers.py log_metrics_info). */
export const CACHE_CONFIG_INFO = {
  /**
   * Two data parallel engines (@29d1ffc5b, 2025-07, to @28be48fa9): one series per engine label, each
   * repeating the front end's num_gpu_blocks, which is the sum over the engines
   * (vllm/v1/engine/core_client.py "Sum values from all engines in DP case").
   */
  dataParallel: [
    'vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.92",num_gpu_blocks="60000",num_gpu_blocks_override="None"} 1.0',
    'vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="1",gpu_memory_utilization="0.92",num_gpu_blocks="60000",num_gpu_blocks_override="None"} 1.0',
  ].join('\n'),
  /** A hybrid (attention + mamba) model: the label's block_size is the attention group's, not the pool's tokens per block. */
  hybrid:
    'vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="0",mamba_block_size="None",num_gpu_blocks="3000"} 1.0',
};

/** Lines of the newest source read (@28be48fa9, 2026-05) that SpeedMatrix reads since they appeared. */
export const RECENT_LINES = {
  /**
   * vllm/v1/core/kv_cache_utils.py `_auto_fit_max_model_len` (`--max-model-len auto`, added in #29431), the
   * engine core's logger: "Auto-fit max_model_len: reduced from %d to %d to fit in available GPU memory (%s GiB
   * available for KV cache)".
   */
  autoFitReduced: `${ENGINE()}Auto-fit max_model_len: reduced from 262144 to 98304 to fit in available GPU memory (12.0 GiB available for KV cache)`,
  /** The same function when the model's whole length fits. */
  autoFitFits: `${ENGINE()}Auto-fit max_model_len: full model context length 32768 fits in available GPU memory`,
  /** vllm/config/compilation.py: a hybrid model with full decode CUDA graphs and fewer Mamba blocks than sequences. */
  mambaBlocks:
    'ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (120). Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most 120 or increase gpu_memory_utilization.',
};
