import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { StartupFailure } from '../../../src-main/engine/server/failures';
import { findGroupProcesses } from '../../../src-main/engine/server/orphans';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import type { CrashInfo, SupervisorState } from '../../../src-main/engine/server/supervisor-types';
import { alive, FAKE_BIN, FAKE_NVIDIA_SMI, fakeVllmLaunch, freePort } from '../../helpers/fake-servers';

const running: Supervisor[] = [];
function supervisor(): Supervisor {
  const s = new Supervisor();
  running.push(s);
  return s;
}
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

const waitFor = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

it('says in the log which file a bare command name started (an app’s PATH is not always a terminal’s)', async () => {
  const port = await freePort();
  const sup = supervisor();
  const lines: string[] = [];
  sup.on('log', (l) => lines.push(l));
  void sup.start({
    engineKind: 'vllm-native',
    model: 'org/fake-model',
    host: '127.0.0.1',
    port,
    extraEnv: { PATH: `${FAKE_BIN}${delimiter}${process.env.PATH}` },
  });
  await waitFor(() => lines.length > 0);
  expect(lines[0]).toBe(`[SpeedMatrix] "vllm" is ${join(FAKE_BIN, 'vllm')}`);
});

describe('Supervisor with the scripted fake vLLM', () => {
  it('reaches ready through the states, with progress, ANSI-free log lines and a log file', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'sm-sup-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const sup = supervisor();
    const states: SupervisorState[] = [];
    const phases: string[] = [];
    const lines: string[] = [];
    sup.on('state', (s) => states.push(s));
    sup.on('progress', (p) => phases.push(p.phase));
    sup.on('log', (l) => lines.push(l));
    const r = await sup.start(fakeVllmLaunch(port, 'ok', ['--fake-log-style', '3', '--max-model-len', '262144']), {
      logFile: join(dir, 'server.log'),
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.data;
    expect(t.baseUrl).toBe(`http://127.0.0.1:${port}`);
    expect(t.model).toBe('org/fake-model');
    expect(t.maxModelLen).toBe(262144);
    expect(t.engineKind).toBe('vllm');
    expect(t.engine).toMatchObject({
      name: 'vllm',
      version: '0.10.1.1+g1da94e673',
      commit: '1da94e673',
      repository: 'github.com/vllm-project/vllm',
    });
    expect(t.kvBudget).toMatchObject({
      tokens: 302945,
      source: 'metrics-cache-config',
      detail: 'vllm:cache_config_info kv_cache_size_tokens 302945',
      maxConcurrency: 1.16,
    });
    expect(t.metricsAvailable).toBe(true);
    expect(t.tokenize).toBe('messages');
    expect(t.launch.kind).toBe('custom');
    expect(states).toEqual(['starting', 'ready']);
    expect(sup.state).toBe('ready');
    expect(phases[0]).toBe('starting process');
    expect(lines.some((l) => l.includes('\x1b'))).toBe(false);
    expect(lines).toContain('INFO:     Application startup complete.');
    expect(sup.logFacts).toMatchObject({
      version: '0.10.1.1+g1da94e673',
      maxModelLen: 262144,
      kvCacheTokensByEngine: { '0': 302945 },
      startupComplete: true,
    });
    expect(sup.logTail(1)).toEqual(['INFO:     Application startup complete.']);
    const file = readFileSync(join(dir, 'server.log'), 'utf8');
    expect(file).toContain('(APIServer pid=');
    expect(file).not.toContain('\x1b');

    const engine = (await findGroupProcesses(sup.pid!)).filter((p) => p.command.includes('fake-engine-core'));
    expect(engine).toHaveLength(1);
    const rep = await sup.stop();
    expect(rep.graceful).toBe(true);
    expect(rep.exitCode).toBe(0);
    expect(rep.leftBehind).toEqual([]);
    expect(rep.summary).toMatch(/^Stopped cleanly in \d+\.\d s; nothing was left behind\.$/);
    expect(alive(engine[0].pid)).toBe(false);
    expect(sup.state).toBe('exited');
    expect(states).toEqual(['starting', 'ready', 'stopping', 'exited']);
  });

  for (const style of ['1', '2', '3'] as const) {
    const expected = { '1': 1381 * 16, '2': 1587648, '3': 302945 }[style];
    it(`KV budget from the startup log, log style ${style}, when metrics lack cache_config_info`, async () => {
      const port = await freePort();
      const sup = supervisor();
      const r = await sup.start(fakeVllmLaunch(port, 'ok', ['--fake-log-style', style, '--fake-metrics', 'none']));
      expect(r.ok && r.data.kvBudget).toMatchObject({ tokens: expected, source: 'startup-log' });
      expect(r.ok && r.data.metricsAvailable).toBe(true);
    });
  }

  it("the log's GPU KV cache size comes before num_gpu_blocks x block_size when the engine states no token count", async () => {
    const port = await freePort();
    const r = await supervisor().start(
      fakeVllmLaunch(port, 'ok', ['--fake-log-style', '2', '--fake-metrics', 'blocks']),
    );
    expect(r.ok && r.data.kvBudget).toMatchObject({
      tokens: 1587648,
      source: 'startup-log',
      detail: 'startup log "GPU KV cache size: 1,587,648 tokens"',
    });
  });

  it('no /metrics at all: log KV budget, metrics unavailable', async () => {
    const port = await freePort();
    const r = await supervisor().start(
      fakeVllmLaunch(port, 'ok', ['--fake-log-style', '1', '--fake-metrics', 'absent']),
    );
    expect(r.ok && r.data.metricsAvailable).toBe(false);
    expect(r.ok && r.data.kvBudget.source).toBe('startup-log');
  });

  it('a server with an API key: ready, key never in the log or the session block', async () => {
    const port = await freePort();
    const key = 'sk-test-supervisor-key';
    const sup = supervisor();
    const lines: string[] = [];
    sup.on('log', (l) => lines.push(l));
    const r = await sup.start(fakeVllmLaunch(port, 'ok', ['--api-key', key], { apiKey: key }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data.apiKey).toBe(key);
    expect(JSON.stringify(r.data.launch)).not.toContain(key);
    expect(r.data.launch.display).toContain("--api-key '<redacted>'");
    expect(lines.join('\n')).not.toContain(key);
  });

  const failures: Array<[string, StartupFailure['kind'], RegExp]> = [
    ['no-kv-memory', 'no-kv-memory', /No available memory for the cache blocks/],
    ['max-seq-len', 'max-seq-len-exceeds-kv', /estimated maximum model length is 157216/],
    ['free-memory', 'free-memory-below-utilization', /Free memory on device \(37.95\/79.25 GiB\)/],
    ['max-model-len-limit', 'max-model-len-above-model-limit', /User-specified max_model_len \(262144\)/],
    ['cuda-oom', 'cuda-out-of-memory', /CUDA out of memory/],
    ['unknown-model', 'unknown-model', /Invalid repository ID/],
    ['gated-model', 'gated-model', /Cannot access gated repo/],
    ['port-in-use', 'port-in-use', /Address already in use/],
    ['exit-silently', 'exited-before-ready', /^$/],
  ];
  for (const [scenario, kind, root] of failures) {
    it(`startup failure: ${scenario} -> ${kind}`, async () => {
      const port = await freePort();
      const sup = supervisor();
      let event: StartupFailure | null = null;
      sup.on('failed', (f) => (event = f));
      const r = await sup.start(fakeVllmLaunch(port, scenario));
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.kind).toBe(kind);
      expect(event).toEqual(r.error);
      expect(r.error.rootCauseLines.join('\n')).toMatch(root);
      expect(r.error.advice.length).toBeGreaterThan(10);
      if (scenario === 'max-seq-len')
        expect(r.error.advice).toBe('Lower --max-model-len to at most 157216 or raise --gpu-memory-utilization.');
      if (scenario === 'exit-silently')
        expect(r.error.message).toBe('The server exited with code 3 before it was ready.');
      expect(sup.state).toBe('failed');
      expect(await findGroupProcesses(sup.pid!)).toEqual([]);
    });
  }

  it('port busy: refused before anything is spawned', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const sup = supervisor();
      const r = await sup.start(fakeVllmLaunch(port, 'ok'));
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.kind).toBe('port-in-use');
      expect(r.error.message).toMatch(new RegExp(`Port ${port} on 127.0.0.1 is already in use; nothing was started`));
      expect(sup.pid).toBeNull();
    } finally {
      blocker.close();
    }
  });

  it('executable not found (native vllm, custom command)', async () => {
    const port = await freePort();
    const r = await supervisor().start({
      engineKind: 'vllm-native',
      executable: '/nonexistent/venv/bin/vllm',
      model: 'm',
      host: '127.0.0.1',
      port,
    });
    expect(!r.ok && r.error).toMatchObject({
      kind: 'executable-not-found',
      message: 'The program "/nonexistent/venv/bin/vllm" was not found.',
      advice: expect.stringMatching(/pip install vllm/),
    });
    const c = await supervisor().start({
      engineKind: 'custom',
      customArgv: ['no-such-server-binary-xyz'],
      model: 'm',
      host: '127.0.0.1',
      port,
    });
    expect(!c.ok && c.error.kind).toBe('executable-not-found');
  });

  it('Docker not installed, and Docker with no daemon', async () => {
    const port = await freePort();
    const realPath = process.env.PATH;
    try {
      process.env.PATH = '/nonexistent-bin';
      const r = await supervisor().start({ engineKind: 'vllm-docker', model: 'm', host: '127.0.0.1', port });
      expect(!r.ok && r.error).toMatchObject({
        kind: 'docker-unavailable',
        message: expect.stringMatching(/Docker is not installed/),
      });
      process.env.PATH = `${FAKE_BIN}:${realPath}`;
      const d = await supervisor().start({ engineKind: 'vllm-docker', model: 'm', host: '127.0.0.1', port });
      expect(!d.ok && d.error).toMatchObject({
        kind: 'docker-unavailable',
        message: expect.stringMatching(/daemon is not running/),
        rootCauseLines: [expect.stringMatching(/Cannot connect to the Docker daemon/)],
      });
    } finally {
      process.env.PATH = realPath;
    }
  });

  it('startup deadline: ready-timeout, the process is ended', async () => {
    const port = await freePort();
    const sup = supervisor();
    const r = await sup.start(fakeVllmLaunch(port, 'hang'), { readyTimeoutMs: 1500 });
    expect(!r.ok && r.error.kind).toBe('ready-timeout');
    expect(!r.ok && r.error.message).toMatch(/not ready after 2 s/);
    await waitFor(() => !alive(sup.pid!));
    expect(await findGroupProcesses(sup.pid!)).toEqual([]);
  });

  it('SIGTERM ignored: SIGKILL of the whole group after the stop timeout', async () => {
    const port = await freePort();
    const sup = supervisor();
    expect((await sup.start(fakeVllmLaunch(port, 'ignore-sigterm'), { stopTimeoutMs: 1000 })).ok).toBe(true);
    const rep = await sup.stop();
    expect(rep.graceful).toBe(false);
    expect(rep.signal).toBe('SIGKILL');
    expect(rep.leftBehind).toEqual([]);
    expect(rep.summary).toMatch(/^Did not stop on SIGTERM; killed after/);
    expect(await findGroupProcesses(sup.pid!)).toEqual([]);
  });

  it('SIGKILL of the leader alone: the orphaned engine is found (on the GPU), reported and ended', async () => {
    const port = await freePort();
    const sup = supervisor();
    process.env.FAKE_NVIDIA_SMI_APPS_MATCH = 'fake-engine-core';
    try {
      const r = await sup.start(fakeVllmLaunch(port, 'ok'), { nvidiaSmi: FAKE_NVIDIA_SMI });
      expect(r.ok).toBe(true);
      const engine = (await findGroupProcesses(sup.pid!)).find((p) => p.command.includes('fake-engine-core'))!;
      const crashed = new Promise<CrashInfo>((resolve) => sup.once('crashed', resolve));
      process.kill(sup.pid!, 'SIGKILL');
      const c = await crashed;
      expect(c.signal).toBe('SIGKILL');
      expect(c.orphans).toEqual([
        {
          pid: engine.pid,
          command: expect.stringContaining('fake-engine-core'),
          gpuMemoryBytes: 1234 * 1024 * 1024,
          seenIn: 'nvidia-smi',
        },
      ]);
      expect(c.lastLines.at(-1)).toBe('INFO:     Application startup complete.');
      expect(sup.state).toBe('failed');
      await waitFor(() => !alive(engine.pid));
      const rep = await sup.stop();
      expect(rep.orphansKilled.map((o) => o.pid)).toEqual([engine.pid]);
      expect(rep.leftBehind).toEqual([]);
      expect(rep.summary).toMatch(
        new RegExp(
          `killed 1 leftover process\\(es\\): pid ${engine.pid} \\(.*fake-engine-core.*1\\.2 GiB GPU memory\\); nothing was left behind`,
        ),
      );
    } finally {
      delete process.env.FAKE_NVIDIA_SMI_APPS_MATCH;
    }
  });

  it('SIGKILL of the leader with no GPU tool: the orphan is found in the process table', async () => {
    const port = await freePort();
    const sup = supervisor();
    expect((await sup.start(fakeVllmLaunch(port, 'ok'), { nvidiaSmi: '/nonexistent/nvidia-smi' })).ok).toBe(true);
    const crashed = new Promise<CrashInfo>((resolve) => sup.once('crashed', resolve));
    process.kill(sup.pid!, 'SIGKILL');
    const c = await crashed;
    expect(c.orphans).toHaveLength(1);
    expect(c.orphans[0]).toMatchObject({ seenIn: 'process-table', gpuMemoryBytes: null });
    await waitFor(() => !alive(c.orphans[0].pid));
  });

  it('crash while running: crashed event with the last log lines', async () => {
    const port = await freePort();
    const sup = supervisor();
    expect((await sup.start(fakeVllmLaunch(port, 'crash-after-ready'))).ok).toBe(true);
    const c = await new Promise<CrashInfo>((resolve) => sup.once('crashed', resolve));
    expect(c.exitCode).toBe(1);
    expect(c.lastLines.at(-1)).toMatch(/Engine core proc EngineCore_DP0 died unexpectedly/);
    expect(sup.state).toBe('failed');
  });

  it('periodic stats lines become stats events', async () => {
    const port = await freePort();
    const sup = supervisor();
    const stats = new Promise<unknown>((resolve) => sup.once('stats', resolve));
    expect((await sup.start(fakeVllmLaunch(port, 'ok', ['--fake-stats']))).ok).toBe(true);
    expect(await stats).toEqual({
      promptTokensPerSecond: 1024.5,
      generationTokensPerSecond: 180,
      running: 3,
      waiting: 1,
      kvCacheUsage: 0.042,
      prefixCacheHitRate: 0.5,
      preemptions: null,
      deferred: null,
    });
  });

  it('restart: stops and starts again with the same options', async () => {
    const port = await freePort();
    const sup = supervisor();
    const first = await sup.start(fakeVllmLaunch(port, 'ok'));
    const pid1 = sup.pid;
    expect(first.ok).toBe(true);
    const second = await sup.restart();
    expect(second.ok).toBe(true);
    expect(sup.pid).not.toBe(pid1);
    expect(alive(pid1!)).toBe(false);
    expect(sup.state).toBe('ready');
  });

  it('stop while starting: the start resolves as stopped, nothing left', async () => {
    const port = await freePort();
    const sup = supervisor();
    const started = sup.start(fakeVllmLaunch(port, 'hang'));
    await waitFor(() => sup.logTail().length >= 2);
    const rep = await sup.stop();
    const r = await started;
    expect(!r.ok && r.error.message).toBe('Stopped before the server was ready.');
    expect(rep.leftBehind).toEqual([]);
    expect(sup.state).toBe('exited');
  });
});

describe('Supervisor: a native vllm launch (fake vllm executable)', () => {
  it('argv built from options; no /version: version from `vllm --version`; build = the environment holding vllm', async () => {
    const port = await freePort();
    const sup = supervisor();
    const r = await sup.start({
      engineKind: 'vllm-native',
      executable: join(FAKE_BIN, 'vllm'),
      model: 'org/native-model',
      host: '127.0.0.1',
      port,
      dtype: 'float16',
      maxModelLen: 4096,
      extraArgs: ['--fake-scenario', 'ok', '--fake-no-version'],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data.maxModelLen).toBe(4096);
    expect(r.data.engine).toMatchObject({
      name: 'vllm',
      version: '0.9.1+cu126',
      commit: null,
      backend: 'cuda',
      dtype: 'float16',
      quantization: 'FP16',
      build: join(FAKE_BIN, '..'),
    });
    expect(r.data.launch).toMatchObject({ kind: 'vllm-native', model: 'org/native-model', maxModelLen: 4096 });
    expect(r.data.launch.display).toBe(
      `${join(FAKE_BIN, 'vllm')} serve org/native-model --host 127.0.0.1 --port ${port} --dtype float16 --max-model-len 4096 --fake-scenario ok --fake-no-version`,
    );
  });
});

describe('Supervisor: healthy but unusable', () => {
  it('the served model is not the one asked for: fails with the probe error instead of waiting 20 minutes', async () => {
    const port = await freePort();
    const sup = supervisor();
    const t0 = Date.now();
    const r = await sup.start({
      engineKind: 'vllm-native',
      executable: join(FAKE_BIN, 'vllm'),
      model: 'org/asked',
      servedModelName: 'asked',
      host: '127.0.0.1',
      port,
      extraArgs: ['--fake-scenario', 'ok', '--served-model-name', 'other'],
    });
    expect(!r.ok && r.error.kind).toBe('probe-failed');
    expect(!r.ok && r.error.message).toBe(
      `The server answers /health but cannot be used: The model "asked" is not served at http://127.0.0.1:${port}; it serves: other.`,
    );
    expect(Date.now() - t0).toBeLessThan(40_000);
    expect(await findGroupProcesses(sup.pid!)).toEqual([]);
  });
});

describe('Supervisor: edges', () => {
  it('an unwritable log file is reported in the log, and the server still starts', async () => {
    const port = await freePort();
    const sup = supervisor();
    // A folder that cannot exist: its parent is a plain file.
    const dir = mkdtempSync(join(tmpdir(), 'sm-sup-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'plain-file');
    writeFileSync(file, '');
    const r = await sup.start(fakeVllmLaunch(port, 'ok'), { logFile: join(file, 'logs', 'server.log') });
    expect(r.ok).toBe(true);
    expect(
      sup
        .logTail(500)
        .some((l) =>
          l.startsWith(`[speedmatrix] cannot write the log file ${join(file, 'logs', 'server.log')}: ENOTDIR`),
        ),
    ).toBe(true);
  });

  it('stop() before anything ran, and stop() during the port check', async () => {
    const idle = supervisor();
    expect((await idle.stop()).summary).toBe('Nothing was running.');
    const port = await freePort();
    const sup = supervisor();
    const started = sup.start(fakeVllmLaunch(port, 'ok'));
    const rep = await sup.stop();
    const r = await started;
    expect(!r.ok && r.error.message).toBe('Stopped before the server was ready.');
    expect(rep.summary).toBe('Nothing was running.');
    expect(sup.pid).toBeNull();
    expect(sup.state).toBe('exited');
  });
});
