import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_VLLM, freePort } from '../../helpers/fake-servers';
import { ROOT } from '../../helpers/paths';

const BIN = join(ROOT, 'src-main/hosts/cli/bin.cjs');
const procs: ChildProcess[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null) p.kill('SIGKILL');
});

function serve(args: string[]) {
  const p = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(p);
  let out = '';
  let err = '';
  p.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  p.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
  const waitFor = async (re: RegExp, ms = 45_000) => {
    const end = Date.now() + ms;
    while (!re.test(out)) {
      if (Date.now() > end || p.exitCode !== null) throw new Error(`no ${re} in output:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { p, exited, waitFor, out: () => out, err: () => err };
}

describe('speedmatrix serve -- CMD', () => {
  it('simulator: progress, the ready line with KV budget and source, Ctrl-C stops cleanly (JSON events)', async () => {
    const port = await freePort();
    const s = serve([
      '--json',
      '--',
      'speedmatrix',
      'sim',
      'serve',
      'fara-4b',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--sim-speed',
      '20',
      '--sim-load-seconds',
      '0.5',
      '--sim-log-style',
      '1',
    ]);
    await s.waitFor(/"event":"ready"/);
    s.p.kill('SIGINT');
    expect(await s.exited).toBe(0);
    const events = s
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const kinds = events.map((e) => e.event);
    expect(kinds[0]).toBe('launch');
    expect(kinds).toContain('progress');
    const ready = events.find((e) => e.event === 'ready');
    expect(ready.target).toMatchObject({
      baseUrl: `http://127.0.0.1:${port}`,
      model: 'fara-4b',
      simulated: true,
      kvBudget: { source: 'startup-log' },
    });
    expect(ready.target.kvBudget.tokens).toBeGreaterThan(0);
    const stopped = events.find((e) => e.event === 'stopped');
    expect(stopped.report.leftBehind).toEqual([]);
    expect(stopped.report.graceful).toBe(true);
    expect(stopped.report.summary).toMatch(/^Stopped cleanly in .*; nothing was left behind\.$/);
  });

  it('text mode: READY line with URL, model, max_model_len and KV budget; leaves nothing behind', async () => {
    const port = await freePort();
    const s = serve([
      '--',
      process.execPath,
      FAKE_VLLM,
      'serve',
      'org/m',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--fake-scenario',
      'ok',
      '--fake-metrics',
      'none',
      '--fake-log-style',
      '2',
      '--max-model-len',
      '8192',
    ]);
    await s.waitFor(/Press Ctrl-C/);
    expect(s.out()).toContain(
      `READY  http://127.0.0.1:${port}  model org/m  max_model_len 8,192 tokens  KV budget 1,587,648 tokens (startup log "GPU KV cache size: 1,587,648 tokens")`,
    );
    expect(s.err()).toContain('  | INFO:     Application startup complete.');
    // Its start, in the phases its log showed: this server prints neither "Starting to load model" nor torch.compile.
    expect(s.out()).toMatch(
      /\nStarted in [\d.]+ s \(Weights loaded [\d.]+ s · KV cache profiling [\d.]+ s · CUDA graph capture [\d.]+ s · API server ready [\d.]+ s\)\n/,
    );
    s.p.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.out()).toMatch(/Stopping the server\.\.\.\nStopped cleanly in \d+\.\d s; nothing was left behind\.\n$/);
  });

  it('a server that ignores SIGTERM: a second Ctrl-C kills it at once', async () => {
    const port = await freePort();
    const s = serve([
      '--',
      process.execPath,
      FAKE_VLLM,
      'serve',
      'org/m',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--fake-scenario',
      'ignore-sigterm',
    ]);
    await s.waitFor(/Press Ctrl-C/);
    const t0 = Date.now();
    s.p.kill('SIGINT');
    await s.waitFor(/Stopping the server/);
    await new Promise((r) => setTimeout(r, 500));
    s.p.kill('SIGINT');
    expect(await s.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(s.out()).toMatch(
      /Killing the server now \(SIGKILL to its process group\)\.\.\.\nDid not stop on SIGTERM; killed after \d+\.\d s; nothing was left behind\.\n$/,
    );
  });

  it('a startup failure: message, root cause, advice; exit 1', async () => {
    const port = await freePort();
    const s = serve([
      '--',
      process.execPath,
      FAKE_VLLM,
      'serve',
      'org/m',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--fake-scenario',
      'max-seq-len',
    ]);
    expect(await s.exited).toBe(1);
    expect(s.out()).toMatch(
      /FAILED  The KV cache cannot hold even one request at the model's max length \(262144 tokens\)\.\n  root cause: ValueError: To serve at least one request .*\n  advice: Lower --max-model-len to at most 157216 or raise --gpu-memory-utilization\./,
    );
  });

  it('usage errors exit 2', async () => {
    const s = serve(['--ready-timeout', 'soon', '--', 'vllm', 'serve', 'm']);
    expect(await s.exited).toBe(2);
    expect(s.err()).toMatch(/--ready-timeout must be a positive number of seconds, got "soon"/);
  });
});
