/**
 * The supervisor driving the real simulated vLLM server (src-main/engine/sim) as a separate process:
 * the same launch, supervise and stop path a real vLLM goes through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LaunchOptions } from '../../../src-main/engine/server/launch';
import { logKvBudget } from '../../../src-main/engine/server/log-parse';
import { kvFromCacheConfigBlocks, parsePrometheus } from '../../../src-main/engine/server/metrics-parse';
import { findGroupProcesses } from '../../../src-main/engine/server/orphans';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import type { CrashInfo } from '../../../src-main/engine/server/supervisor-types';
import { alive, freePort } from '../../helpers/fake-servers';

const running: Supervisor[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function sim(extra: Partial<LaunchOptions> = {}, simArgs: string[] = []) {
  const sup = new Supervisor();
  running.push(sup);
  const port = await freePort();
  const opts: LaunchOptions = {
    engineKind: 'simulator',
    model: 'fara-4b',
    host: '127.0.0.1',
    port,
    simSpeed: 20,
    ...extra,
    simArgs: ['--sim-load-seconds', '0.3', ...simArgs],
  };
  const result = await sup.start(opts, { readyTimeoutMs: 45_000, nvidiaSmi: '/nonexistent/nvidia-smi' });
  return { sup, result, port };
}

describe('Supervisor + simulator', () => {
  for (const style of [1, 2, 3]) {
    it(`log style ${style}: ready, KV budget from the startup log, and the metrics' blocks x block size agree`, async () => {
      const { sup, result, port } = await sim({ maxModelLen: 262144, gpuMemoryUtilization: 0.83 }, [
        '--sim-log-style',
        String(style),
      ]);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const t = result.data;
      expect(t.baseUrl).toBe(`http://127.0.0.1:${port}`);
      expect(t.simulated).toBe(true);
      expect(t.maxModelLen).toBe(262144);
      expect(t.kvBudget.source).toBe('startup-log');
      expect(t.kvBudget.tokens).toBeGreaterThan(262144);
      const blocks = kvFromCacheConfigBlocks(parsePrometheus(await (await fetch(`${t.baseUrl}/metrics`)).text()));
      expect(blocks?.tokens).toBe(t.kvBudget.tokens);
      const fromLog = logKvBudget(sup.logFacts);
      expect(fromLog?.tokens).toBe(t.kvBudget.tokens);
      expect(fromLog?.detail).toMatch(style === 1 ? /# GPU blocks/ : /GPU KV cache size/);
      expect(fromLog?.maxConcurrency).toBeGreaterThan(0);
      expect(t.engine).toMatchObject({
        name: 'vllm (simulated)',
        backend: 'simulated',
        dtype: 'bfloat16',
        quantization: 'BF16',
      });
      expect(t.engine.commit).toBe(/\+g([0-9a-f]+)/.exec(t.engine.version ?? '')?.[1] ?? null);
      expect(t.launch.display).toMatch(
        /^speedmatrix sim serve fara-4b --host 127\.0\.0\.1 --port \d+ --max-model-len 262144 --gpu-memory-utilization 0\.83 --sim-speed 20 --sim-load-seconds 0\.3 --sim-log-style \d$/,
      );
      expect(t.metricsAvailable && t.tokenize).toBe('messages');
      const pid = sup.pid!;
      const rep = await sup.stop();
      expect(rep.graceful).toBe(true);
      expect(rep.leftBehind).toEqual([]);
      expect(await findGroupProcesses(pid)).toEqual([]);
    });
  }

  it('times each start phase from the log lines; --enforce-eager leaves compilation and graph capture out', async () => {
    const began = Date.now();
    const compiled = await sim({}, ['--sim-load-seconds', '2']);
    const elapsed = (Date.now() - began) / 1000;
    expect(compiled.result.ok).toBe(true);
    if (!compiled.result.ok) return;
    const phases = compiled.result.data.launch.startPhases ?? [];
    expect(phases.map((p) => p.phase)).toEqual([
      'process',
      'weights',
      'compile',
      'kv-profile',
      'graph-capture',
      'ready',
    ]);
    // The simulator loads its weights for half its load time (src-main/engine/sim/serve.ts).
    const weights = phases.find((p) => p.phase === 'weights')!.seconds;
    expect(weights).toBeGreaterThanOrEqual(0.95);
    expect(weights).toBeLessThan(2);
    const total = phases.reduce((sum, p) => sum + p.seconds, 0);
    expect(total).toBeGreaterThanOrEqual(2);
    expect(total).toBeLessThanOrEqual(elapsed);
    // The durations the simulator prints follow its load time as vLLM's would: weights half, torch.compile 15%.
    const log = compiled.sup.logTail(200).join('\n');
    const printed = (re: RegExp) => Number(re.exec(log)?.[1]);
    expect(printed(/Model loading took [\d.]+ GiB memory and ([\d.]+) seconds/)).toBeGreaterThanOrEqual(0.95);
    expect(printed(/torch\.compile took ([\d.]+) s in total/)).toBeGreaterThanOrEqual(0.28);
    expect(printed(/torch\.compile took ([\d.]+) s in total/)).toBeLessThan(weights);
    await compiled.sup.stop();

    const eager = await sim({ extraArgs: ['--enforce-eager'] }, ['--sim-load-seconds', '2']);
    expect(eager.result.ok).toBe(true);
    if (!eager.result.ok) return;
    expect(eager.result.data.launch.startPhases?.map((p) => p.phase)).toEqual([
      'process',
      'weights',
      'kv-profile',
      'ready',
    ]);
  });

  it('API key through the launch options: ready, and the key is needed on /v1', async () => {
    const { result } = await sim({ apiKey: 'sim-secret-key-42' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect((await fetch(`${result.data.baseUrl}/v1/models`)).status).toBe(401);
    expect(JSON.stringify(result.data.launch)).not.toContain('sim-secret-key-42');
  });

  const failures: Array<[string, Partial<LaunchOptions>, string, RegExp]> = [
    [
      'max_model_len above the model',
      { simProfile: 'h200-8b-bf16', maxModelLen: 262144 },
      'max-model-len-above-model-limit',
      /^Lower --max-model-len to at most 131072/,
    ],
    [
      'no memory left for KV',
      { gpuMemoryUtilization: 0.1 },
      'no-kv-memory',
      /Raise --gpu-memory-utilization \(now 0.1\)/,
    ],
    [
      'utilization above free memory',
      { gpuMemoryUtilization: 0.99 },
      'free-memory-below-utilization',
      /lower --gpu-memory-utilization to at most 0\.\d+/,
    ],
    [
      'max seq len above KV cache',
      { gpuMemoryUtilization: 0.2, maxModelLen: 262144 },
      'max-seq-len-exceeds-kv',
      /^Lower --max-model-len to at most \d+ or raise --gpu-memory-utilization\.$/,
    ],
  ];
  for (const [name, extra, kind, advice] of failures) {
    it(`startup failure from the simulator: ${name}`, async () => {
      const { sup, result } = await sim(extra);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.kind).toBe(kind);
      expect(result.error.advice).toMatch(advice);
      expect(result.error.rootCauseLines[0]).toMatch(/^ValueError: /);
      expect(await findGroupProcesses(sup.pid!)).toEqual([]);
    });
  }

  it('SIGKILL of the simulator leader: its engine child is found as an orphan and ended', async () => {
    const { sup, result } = await sim();
    expect(result.ok).toBe(true);
    const pid = sup.pid!;
    const crashed = new Promise<CrashInfo>((resolve) => sup.once('crashed', resolve));
    process.kill(pid, 'SIGKILL');
    const c = await crashed;
    expect(c.orphans.length).toBeGreaterThanOrEqual(1);
    for (const o of c.orphans) {
      for (let i = 0; i < 100 && alive(o.pid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(alive(o.pid)).toBe(false);
    }
    const rep = await sup.stop();
    expect(rep.orphansKilled.map((o) => o.pid)).toEqual(c.orphans.map((o) => o.pid));
    expect(rep.summary).toMatch(
      /^The server had already exited; killed \d leftover process\(es\): pid \d+ .*; nothing was left behind\.$/,
    );
  });

  it('crash while running (--sim-crash-after-seconds, late enough to be ready first on a loaded machine): crashed event with the last log lines', async () => {
    const { sup, result } = await sim({}, ['--sim-crash-after-seconds', '4']);
    expect(result.ok).toBe(true);
    const c = await new Promise<CrashInfo>((resolve) => sup.once('crashed', resolve));
    expect(c.exitCode).not.toBe(0);
    expect(c.lastLines.length).toBeGreaterThan(3);
    expect(sup.state).toBe('failed');
  });
});
