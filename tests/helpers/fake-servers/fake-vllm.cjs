#!/usr/bin/env node
/*
 * A scripted stand-in for `vllm serve`, for supervisor tests where no GPU or vLLM exists. It
 * prints real vLLM log lines (ANSI prefix included), starts one "engine core" child in its
 * process group as vLLM does, and speaks vLLM's HTTP protocol (/health, /v1/models, /version,
 * /metrics, /tokenize). Usage: fake-vllm.cjs serve MODEL [--host H] [--port N]
 * [--served-model-name S] [--api-key K] [--max-model-len N] --fake-scenario NAME
 * [--fake-log-style 1|2|3] [--fake-load-ms N] [--fake-metrics tokens|blocks|none|absent] [--fake-no-version] [--fake-stats]
 * Scenarios: ok, no-kv-memory, max-seq-len, free-memory, max-model-len-limit, cuda-oom,
 * unknown-model, gated-model, port-in-use, exit-silently, hang, ignore-sigterm,
 * crash-after-ready, echo-argv.
 */
'use strict';
const http = require('node:http');
const { spawn } = require('node:child_process');

const argv = process.argv.slice(2);
// The last occurrence wins, as with vLLM's argparse.
const flag = (name, dflt) => {
  let v = dflt;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name && i + 1 < argv.length) v = argv[i + 1];
    else if (argv[i].startsWith(`${name}=`)) v = argv[i].slice(name.length + 1);
  }
  return v;
};
const model = argv[argv.indexOf('serve') + 1];
const host = flag('--host', '0.0.0.0');
const port = Number(flag('--port', '8000'));
const served = flag('--served-model-name', model);
const apiKey = flag('--api-key', process.env.VLLM_API_KEY);
const maxModelLen = Number(flag('--max-model-len', '32768'));
const scenario = flag('--fake-scenario', 'ok');
const logStyle = flag('--fake-log-style', '3');
const loadMs = Number(flag('--fake-load-ms', '300'));
const metricsMode = flag('--fake-metrics', 'tokens');
// --fake-no-version: an old build with no /version route and no version line.
const noVersion = argv.includes('--fake-no-version');
const VERSION = '0.10.1.1+g1da94e673';

const KV = { 1: { blocks: 1381, tokens: 1381 * 16 }, 2: { tokens: 1587648 }, 3: { tokens: 302945 } };

function ts() {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  return `${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
function log(msg, { who = 'APIServer', level = 'INFO', file = 'api_server.py:1639', err = false } = {}) {
  const line = `\x1b[1;36m(${who} pid=${process.pid})\x1b[0;0m ${level} ${ts()} [${file}] ${msg}\n`;
  (err ? process.stderr : process.stdout).write(line);
}
function raw(text, err = true) {
  (err ? process.stderr : process.stdout).write(`${text}\n`);
}

if (scenario === 'echo-argv') {
  process.stdout.write(
    `${JSON.stringify({ argv, env: { CUDA_VISIBLE_DEVICES: process.env.CUDA_VISIBLE_DEVICES ?? null, VLLM_API_KEY_SET: Boolean(process.env.VLLM_API_KEY) } })}\n`,
  );
  process.exit(0);
}

// The engine core child: same process group; it outlives a SIGKILLed leader (as vLLM's does),
// but gives up 60 s after being orphaned so a broken test cannot leak it for long.
const engineCode = `
  process.title = 'fake-engine-core';
  const parent = process.ppid;
  let orphanedAt = null;
  process.on('SIGTERM', () => process.exit(0));
  setInterval(() => {
    if (process.ppid !== parent) orphanedAt ??= Date.now();
    if (orphanedAt && Date.now() - orphanedAt > 60000) process.exit(0);
  }, 200);
`;
const engine = spawn(process.execPath, ['-e', engineCode, 'fake-engine-core', `--leader=${process.pid}`], {
  stdio: 'ignore',
});

if (!noVersion) log(`vLLM API server version ${VERSION}`, { file: 'api_server.py:1805' });
log(
  `non-default args: {'model': '${model}', 'host': '${host}', 'port': ${port}, 'max_model_len': ${maxModelLen}, 'enable_prefix_caching': True}`,
  { file: 'utils.py:326' },
);
log(`Using max model len ${maxModelLen}`, { who: 'EngineCore_DP0', file: 'config.py:1604' });

function die(lines, code = 1) {
  setTimeout(() => {
    raw('Traceback (most recent call last):');
    raw('  File "/usr/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 691, in run_engine_core');
    for (const l of lines) raw(l);
    raw('RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}');
    engine.kill('SIGTERM');
    process.exit(code);
  }, 50);
}

const FAILURES = {
  'no-kv-memory': [
    'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.',
  ],
  'max-seq-len': [
    "ValueError: To serve at least one request with the models's max seq len (262144), (16.0 GiB KV cache is needed, which is larger than the available KV cache memory (9.6 GiB). Based on the available memory, the estimated maximum model length is 157216. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
  ],
  'free-memory': [
    'ValueError: Free memory on device (37.95/79.25 GiB) on startup is less than desired GPU memory utilization (0.9, 71.33 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
  ],
  'max-model-len-limit': [
    "ValueError: User-specified max_model_len (262144) is greater than the derived max_model_len (max_position_embeddings=131072 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
  ],
  'cuda-oom': [
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.25 GiB of which 1.02 GiB is free.',
  ],
  'unknown-model': [`ValueError: Invalid repository ID or local directory specified: '${model}'.`],
  'gated-model': [
    `huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/${model}/resolve/main/config.json.`,
  ],
};

if (FAILURES[scenario]) {
  die(FAILURES[scenario]);
} else if (scenario === 'exit-silently') {
  setTimeout(() => {
    engine.kill('SIGTERM');
    process.exit(3);
  }, 50);
} else if (scenario !== 'hang') {
  setTimeout(startServing, loadMs);
}

function kvLines() {
  log('Model loading took 2.05 GiB memory and 27.2 seconds', {
    who: 'EngineCore_DP0',
    file: 'gpu_model_runner.py:1892',
  });
  log('Available KV cache memory: 33.31 GiB', { who: 'EngineCore_DP0', file: 'gpu_worker.py:276' });
  if (logStyle === '1') {
    log(`# GPU blocks: ${KV[1].blocks}, # CPU blocks: 512`, { who: 'EngineCore_DP0', file: 'executor_base.py:113' });
    log('Maximum concurrency for 2048 tokens per request: 10.79x', {
      who: 'EngineCore_DP0',
      file: 'executor_base.py:118',
    });
  } else if (logStyle === '2') {
    log('GPU KV cache size: 1,587,648 tokens', { who: 'EngineCore_DP0', file: 'kv_cache_utils.py:849' });
    log('Maximum concurrency for 2,048 tokens per request: 775.22x', {
      who: 'EngineCore_DP0',
      file: 'kv_cache_utils.py:853',
    });
  } else {
    log('GPU KV cache size: 302,945 tokens, Maximum concurrency for 262,144 tokens per request: 1.16x', {
      who: 'EngineCore_DP0',
      file: 'kv_cache_utils.py:1087',
    });
  }
  log('Graph capturing finished in 7 secs, took 0.52 GiB', { who: 'EngineCore_DP0', file: 'gpu_model_runner.py:2567' });
  log('init engine (profile, create kv cache, warmup model) took 25.99 seconds', {
    who: 'EngineCore_DP0',
    file: 'core.py:214',
  });
}

function metricsText() {
  const kv = KV[logStyle];
  const labels = `engine="0",model_name="${served}"`;
  const out = [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running{${labels}} 0.0`,
    `vllm:num_requests_waiting{${labels}} 0.0`,
    `vllm:kv_cache_usage_perc{${labels}} 0.0`,
  ];
  const blocks = kv.blocks ?? Math.floor(kv.tokens / 16);
  if (metricsMode === 'tokens') {
    out.push(
      `vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",kv_cache_max_concurrency="1.16",kv_cache_size_tokens="${kv.tokens}",num_gpu_blocks="${blocks}"} 1.0`,
    );
  } else if (metricsMode === 'blocks') {
    out.push(
      `vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",num_gpu_blocks="${blocks}"} 1.0`,
    );
  }
  return `${out.join('\n')}\n`;
}

function startServing() {
  kvLines();
  const server = http.createServer((req, res) => {
    const url = req.url.split('?')[0];
    const json = (code, body) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.startsWith('/v1') && apiKey && req.headers.authorization !== `Bearer ${apiKey}`)
      return json(401, { error: 'Unauthorized' });
    if (url === '/health' || url === '/ping') return res.end();
    if (url === '/version' && !noVersion) return json(200, { version: VERSION });
    if (url === '/v1/models') {
      return json(200, {
        object: 'list',
        data: [
          {
            id: served,
            object: 'model',
            created: 1,
            owned_by: 'vllm',
            root: model,
            parent: null,
            max_model_len: maxModelLen,
            permission: [],
          },
        ],
      });
    }
    if (url === '/metrics' && metricsMode !== 'absent') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      return res.end(metricsText());
    }
    if (url === '/tokenize' && req.method === 'POST') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const prompt = JSON.parse(body || '{}').prompt ?? '';
        const tokens = prompt
          .split(/\s+/)
          .filter(Boolean)
          .map((_, i) => i + 1);
        json(200, { count: tokens.length, max_model_len: maxModelLen, tokens });
      });
      return;
    }
    json(404, { detail: 'Not Found' });
  });
  server.on('error', () => {
    raw(
      `ERROR ${ts()} [launcher.py:100] [Errno 98] error while attempting to bind on address ('${host}', ${port}): address already in use`,
    );
    raw(`OSError: [Errno 98] Address already in use`);
    engine.kill('SIGTERM');
    process.exit(1);
  });
  if (scenario === 'port-in-use') {
    server.emit('error', new Error('EADDRINUSE'));
    return;
  }
  server.listen(port, host, () => {
    log(`Starting vLLM API server 0 on http://${host}:${port}`, { file: 'launcher.py:29' });
    raw(`INFO:     Started server process [${process.pid}]`, false);
    raw('INFO:     Waiting for application startup.', false);
    raw('INFO:     Application startup complete.', false);
    if (argv.includes('--fake-stats')) {
      setTimeout(
        () =>
          log(
            'Engine 000: Avg prompt throughput: 1,024.5 tokens/s, Avg generation throughput: 180.0 tokens/s, Running: 3 reqs, Waiting: 1 reqs, GPU KV cache usage: 4.2%, Prefix cache hit rate: 50.0%',
            { file: 'loggers.py:123' },
          ),
        200,
      );
    }
    if (scenario === 'crash-after-ready') {
      setTimeout(() => {
        raw(
          'ERROR 11-30 00:00:00 [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.',
        );
        process.exit(1);
      }, 1500);
    }
  });
  const shutdown = () => {
    if (scenario === 'ignore-sigterm') {
      log('Received SIGTERM but this fake ignores it');
      return;
    }
    log('Shutting down FastAPI HTTP server.', { file: 'launcher.py:79' });
    raw('INFO:     Shutting down', false);
    raw('INFO:     Waiting for application shutdown.', false);
    raw('INFO:     Application shutdown complete.', false);
    raw(`INFO:     Finished server process [${process.pid}]`, false);
    // Like vLLM: end the engine, wait for it (killing it after 5 s), then exit.
    server.close();
    const done = () => process.exit(0);
    if (engine.exitCode !== null || engine.signalCode !== null) return done();
    engine.once('exit', done);
    engine.kill('SIGTERM');
    setTimeout(() => engine.kill('SIGKILL'), 5000);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

if (scenario === 'hang') setInterval(() => {}, 1000);
