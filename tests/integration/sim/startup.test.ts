/** Startup and shutdown of the real simulator process: log shapes, load delay, startup errors, signals, the engine child. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { describe, expect } from 'vitest';
import { nodeProgram } from '../../../src-main/platform/runtime/node-entry';
import { parseLog } from '../../../src-main/engine/server/log-parse';
import { BUILTIN_PROFILES } from '../../../src-main/engine/sim/profile';
import { simTest as it } from '../../helpers/fixtures';
import { CONSUMER_CARD_ARGS, freePort } from '../../helpers/sim';
import { ROOT } from '../../helpers/paths';
import { killGroupNow } from '../../../src-main/engine/server/orphans';

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

/** Run the sim to completion (for startups that must fail); `err` is its stderr as written. */
function runToExit(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const cmd = nodeProgram('sim');
  return new Promise((resolve) => {
    const p = spawn(cmd.command, [...cmd.args, 'serve', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      detached: true,
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => {
      out += d;
      err += d;
    });
    const t = setTimeout(() => killGroupNow(p.pid!), 30_000);
    p.on('close', (code) => {
      clearTimeout(t);
      killGroupNow(p.pid!);
      resolve({ code, out: plain(out), err });
    });
  });
}

describe('startup log', () => {
  it('has vLLM’s shape and order, uncoloured when piped as vLLM’s is (style 2 by default)', async ({ launchSim }) => {
    const h = await launchSim({
      args: ['--max-model-len', '262144', '--gpu-memory-utilization', '0.83', '--some-new-flag', '3'],
    });
    const raw = h.logs();
    // The profile claims a 2026 vLLM: the version comes in the logo (vllm/entrypoints/utils.py log_version_and_model).
    expect(raw).toMatch(/^\(APIServer pid=\d+\) INFO \d\d-\d\d \d\d:\d\d:\d\d \[utils\.py:\d+\] \n/m);
    expect(raw).not.toContain('\x1b');
    const log = plain(raw);
    expect(parseLog(log.split('\n'))).toMatchObject({
      version: '0.30.1rc1.dev452+g73a583112',
      servedModel: 'microsoft/Fara1.5-4B',
    });
    const order = [
      '█ ▀▄▀ █  version 0.30.1rc1.dev452+g73a583112',
      'non-default args: {',
      'Using max model len 262144',
      'Model loading took 9.00 GiB memory and',
      's in total',
      // vLLM 0.15 and later print format_gib's Python float: 67.0, not 67.00.
      'Available KV cache memory: 67.0 GiB',
      'GPU KV cache size: 2,195,440 tokens',
      'Maximum concurrency for 262,144 tokens per request: 8.37x',
      'Graph capturing finished in',
      'init engine (profile, create kv cache, warmup model) took',
      'Starting vLLM server on http://127.0.0.1:',
      'INFO:     Started server process [',
      'INFO:     Waiting for application startup.',
      'INFO:     Application startup complete.',
    ];
    let at = -1;
    for (const line of order) {
      const i = log.indexOf(line);
      expect(i, line).toBeGreaterThan(at);
      at = i;
    }
    expect(log).toMatch(/WARNING .*Ignoring unknown argument --some-new-flag "3"/);
    expect(log).not.toContain('Uvicorn running on');
    expect(h.enginePid()).toBeGreaterThan(0);
  });

  it('style 1: "# GPU blocks" and old metric names', async ({ launchSim }) => {
    const h = await launchSim({ args: ['--sim-log-style', '1', '--max-model-len', '8192'] });
    const log = plain(h.logs());
    expect(log).toMatch(/# GPU blocks: \d+/);
    expect(log).toMatch(/Maximum concurrency for 8192 tokens per request: [\d.]+x/);
    expect(log).toContain('Starting vLLM API server 0 on');
    const m = await (await fetch(`${h.url}/metrics`)).text();
    expect(m).toContain('vllm:gpu_cache_usage_perc');
    expect(m).not.toContain('kv_cache_size_tokens');
  });

  it('style 3: size and concurrency on one line; --kv-cache-dtype and --no-enable-prefix-caching reach cache_config_info', async ({
    launchSim,
  }) => {
    const h = await launchSim({
      args: ['--sim-log-style', '3', '--kv-cache-dtype', 'fp8', '--no-enable-prefix-caching'],
      profile: 'consumer-12gb-4b-int4',
    });
    expect(plain(h.logs())).toMatch(
      /GPU KV cache size: [\d,]+ tokens, Maximum concurrency for 262,144 tokens per request: [\d.]+x/,
    );
    const m = await (await fetch(`${h.url}/metrics`)).text();
    expect(m).toMatch(/cache_dtype="fp8"/);
    expect(m).toMatch(/enable_prefix_caching="False"/);
    // (12.0 GiB x 0.9 - 2.6 weights - 2.5 peak - 0.5 non-torch) = 5.2 GiB / (16,384 B per token x 16) = 21,299 blocks.
    expect(m).toMatch(/num_gpu_blocks="21299"/);
    // Real vLLM states no token count on cache_config_info (vllm/config/cache.py metrics_info: CacheConfig's fields).
    expect(m).not.toContain('kv_cache_size_tokens');
  });

  it('the launch line of a real 12 GB card (4-bit weights, int4 per-token-head KV cache) starts and serves', async ({
    launchSim,
  }) => {
    const h = await launchSim({
      profile: 'consumer-12gb-4b-int4',
      args: CONSUMER_CARD_ARGS,
    });
    const log = plain(h.logs());
    expect(log).not.toMatch(/Ignoring unknown argument|error:/);
    // 12 GiB x 0.94 - 2.6 GiB weights - 2.5 peak - 0.5 non-torch = 5.68 GiB at 8,448 B per token (the profile's notes).
    expect(log).toContain('Available KV cache memory: 5.68 GiB');
    expect(log).toContain('GPU KV cache size: 721,920 tokens');
    expect(log).toContain('Maximum concurrency for 262,144 tokens per request: 2.75x');
    const m = await (await fetch(`${h.url}/metrics`)).text();
    expect(m).toMatch(/cache_dtype="int4_per_token_head"/);
    expect(m).toMatch(/num_gpu_blocks="45120"/); // x 16 tokens per block = 721,920
    const r = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }], max_tokens: 4, ignore_eos: true }),
    });
    expect(r.status).toBe(200);
    expect((await r.json()).usage.completion_tokens).toBe(4);
  });

  it('a profile of vLLM before 0.10.1 answers errors in the old flat shape', async ({ launchSim }) => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-old-'));
    const file = join(dir, 'old.json');
    writeFileSync(file, JSON.stringify({ ...BUILTIN_PROFILES.firehose, name: 'old', vllmVersion: '0.9.2' }));
    try {
      const h = await launchSim({ profile: file });
      const r = await fetch(`${h.url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'nope', prompt: 'x' }),
      });
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({
        object: 'error',
        message: 'The model `nope` does not exist.',
        type: 'NotFoundError',
        param: 'model',
        code: 404,
      });
      expect((await (await fetch(`${h.url}/version`)).json()).version).toBe('0.9.2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses connections while loading, then says "Application startup complete."', async ({ launchSim }) => {
    const h = await launchSim({ loadSeconds: 2.5, noWait: true });
    let refused = 0;
    let answeredTooEarly = 0;
    const until = Date.now() + 20_000;
    while (Date.now() < until && !h.logs().includes('Application startup complete.')) {
      const logBefore = h.logs();
      try {
        await fetch(`${h.url}/health`);
        // The port opens only after engine init finished (just before the uvicorn lines).
        if (!logBefore.includes('init engine')) answeredTooEarly++;
      } catch {
        refused++;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused).toBeGreaterThan(5);
    expect(answeredTooEarly).toBe(0);
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
  });

  it('no /sim/requests without --sim-debug', async ({ launchSim }) => {
    const h = await launchSim({ profile: 'firehose' });
    expect((await fetch(`${h.url}/sim/requests`)).status).toBe(404);
  });
});

describe('startup errors exit 1 with vLLM’s words', () => {
  it('port busy', async () => {
    const port = await freePort();
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', () => r()));
    try {
      const r = await runToExit(['--host', '127.0.0.1', '--port', String(port), '--sim-load-seconds', '0']);
      expect(r.code).toBe(1);
      // One line a person can act on, in the words of vLLM's error; no traceback, no colour codes in a file.
      expect(r.err).toBe(
        `OSError: [Errno 98] Address already in use: port ${port} is taken by another program; choose another --port.\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('memory too small for one request at max model len', async () => {
    const r = await runToExit([
      '--port',
      String(await freePort()),
      '--max-model-len',
      '262144',
      '--gpu-memory-utilization',
      '0.15',
      '--sim-load-seconds',
      '0.1',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/ValueError: To serve at least one request with the models's max seq len \(262144\)/);
    expect(r.out).toContain('RuntimeError: Engine core initialization failed. See root cause above.');
  });

  it('colours its prefixes as vLLM does when asked (VLLM_LOGGING_COLOR=1), never with NO_COLOR', async () => {
    const args = ['--max-model-len', '262144', '--gpu-memory-utilization', '0.15', '--sim-load-seconds', '0.1'];
    const coloured = await runToExit(['--port', String(await freePort()), ...args], { VLLM_LOGGING_COLOR: '1' });
    // eslint-disable-next-line no-control-regex -- vLLM colours its log prefix
    expect(coloured.err).toMatch(/^\x1b\[1;36m\(APIServer pid=\d+\)\x1b\[0;0m Traceback/m);
    const plainOnly = await runToExit(['--port', String(await freePort()), ...args], {
      VLLM_LOGGING_COLOR: '1',
      NO_COLOR: '1',
    });
    expect(plainOnly.code).toBe(1);
    expect(plainOnly.err).toMatch(/^\(APIServer pid=\d+\) Traceback/m);
    expect(plainOnly.err).not.toContain('\x1b');
  });

  it('utilization above free memory', async () => {
    const r = await runToExit([
      '--port',
      String(await freePort()),
      '--gpu-memory-utilization',
      '0.999',
      '--sim-load-seconds',
      '0.1',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /ValueError: Free memory on device cuda:0 \([\d.]+\/[\d.]+ GiB\) on startup is less than desired GPU memory utilization \(0\.999/,
    );
  });

  it('bad flag values are usage errors (exit 2)', async () => {
    const r = await runToExit(['--max-model-len', 'lots']);
    expect(r.code).toBe(2);
    expect(r.out).toContain('argument --max-model-len');
  });
});

describe('shutdown', () => {
  it('SIGTERM: vLLM’s shutdown lines, exit 0 within seconds, engine child gone', async ({ launchSim }) => {
    const h = await launchSim({ profile: 'firehose' });
    const engine = h.enginePid()!;
    expect(alive(engine)).toBe(true);
    const t0 = Date.now();
    h.proc.kill('SIGTERM');
    expect(await h.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(6000);
    const log = plain(h.logs());
    for (const line of [
      'Shutting down FastAPI HTTP server.',
      'INFO:     Shutting down',
      'Waiting for application shutdown.',
      'Application shutdown complete.',
      'Finished server process [',
    ]) {
      expect(log).toContain(line);
    }
    expect(await waitFor(() => !alive(engine), 3000)).toBe(true);
  });

  it('SIGKILL of the leader leaves the engine orphaned briefly; it exits on its own', async ({ launchSim }) => {
    const h = await launchSim({ profile: 'firehose' });
    const engine = h.enginePid()!;
    h.proc.kill('SIGKILL');
    await h.exited;
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(engine)).toBe(true);
    expect(await waitFor(() => !alive(engine), 10_000)).toBe(true);
  });
});

describe('speedmatrix sim (CLI)', () => {
  it('sim serve --help lists the sim flags, fault switches and profiles', async () => {
    const { runCli } = await import('../../helpers/cli');
    const r = await runCli(['sim', 'serve', '--help']);
    expect(r.code).toBe(0);
    for (const word of [
      '--sim-profile',
      '--sim-speed',
      '--sim-loop-after',
      '--sim-500-share',
      'rtx-pro-6000-fara-4b-bf16',
      'firehose',
    ]) {
      expect(r.stdout).toContain(word);
    }
  });

  it('sim serve runs the same server in-process and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const p = spawn(
      process.execPath,
      [
        `${ROOT}/src-main/hosts/cli/bin.cjs`,
        'sim',
        'serve',
        'my/model',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--sim-profile',
        'firehose',
        '--sim-load-seconds',
        '0',
        '--odd-flag',
      ],
      {
        cwd: ROOT,
        detached: true,
      },
    );
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => p.on('exit', (c) => r(c)));
    try {
      expect(await waitFor(() => out.includes('Application startup complete.'), 30_000)).toBe(true);
      const models = await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json();
      expect(models.data[0].id).toBe('my/model');
      expect(plain(out)).toContain('Ignoring unknown argument --odd-flag');
      p.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      killGroupNow(p.pid!);
    }
  });
});
