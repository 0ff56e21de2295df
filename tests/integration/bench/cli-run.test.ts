/**
 * `speedmatrix run` as a person uses it, through the real CLI process: the demo flow, JSON
 * progress, Ctrl-C then --resume, and the clear errors for bad servers and bad flags.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';
import { simTest } from '../../helpers/fixtures';
import { freePort } from '../../helpers/sim';
import { tempDir } from './bench-helpers';

// The simulator that `run --url` measures, started on the first test that asks for it.
const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  { speed: 20, apiKey: 'sk-test-key-123', args: ['--served-model-name', 'fara'] },
);

describe('speedmatrix run --demo', () => {
  it('launches the simulator, runs a compact matrix, writes the session and a Markdown report, labelled simulated', async () => {
    const dir = tempDir();
    const out = join(dir, 'demo.speedmatrix.json');
    const r = await runCli(
      [
        'run',
        '--demo',
        '--contexts',
        '8k',
        '--concurrency',
        '1,2',
        '--prefill-contexts',
        '8k',
        '--duration',
        '5',
        '--sim-speed',
        '20',
        '--out',
        out,
      ],
      { timeoutMs: 90_000, cwd: dir },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/SIMULATED/);
    expect(r.stdout).toContain(`Session file: ${out}`);
    expect(r.stdout).toMatch(/\nServer start: [\d.]+ s \(Process start [\d.]+ s · .* · API server ready [\d.]+ s\)\n/);
    const report = join(dir, 'demo.md');
    expect(r.stdout).toContain(`Report: ${report}`);
    const s = await readSessionFile(out);
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.data.simulated).toBe(true);
    expect(s.data.server.kind).toBe('simulator');
    // The launch's start, phase by phase as its log showed them, in the session and the report's Run block.
    const phases = s.data.server.startPhases ?? [];
    expect(phases.map((p) => p.phase)).toEqual([
      'process',
      'weights',
      'compile',
      'kv-profile',
      'graph-capture',
      'ready',
    ]);
    expect(phases.every((p) => p.seconds >= 0)).toBe(true);
    expect(phases.find((p) => p.phase === 'weights')!.seconds).toBeGreaterThan(0);
    expect(s.data.hardware.gpuType).toBe('Simulated GPU');
    expect(s.data.cells.map((c) => c.status)).toEqual(['valid', 'valid']);
    expect(s.data.prefill[0].status).toBe('valid');
    const md = readFileSync(report, 'utf8');
    expect(md).toMatch(/SIMULATED/);
    expect(md).toMatch(/\| 8K \|/);
    expect(md).toMatch(
      /- \*\*Server start\*\*: [\d.]+ s \(Process start [\d.]+ s · Weights loaded [\d.]+ s · .* · API server ready [\d.]+ s\)\n/,
    );
  }, 120_000);
});

describe('speedmatrix run --url', () => {
  it('prints one JSON event per line, then Ctrl-C cancels (exit 130) and --resume finishes the matrix', async ({
    sim,
  }) => {
    const dir = tempDir();
    const out = join(dir, 'r.speedmatrix.json');
    const args = [
      'run',
      '--url',
      sim.url,
      '--api-key',
      'sk-test-key-123',
      '--contexts',
      '0',
      '--concurrency',
      '1,2',
      '--prefill-contexts',
      'none',
      '--duration',
      '5',
      '--sim-speed',
      '20',
      '--json-progress',
      '--out',
      out,
    ];
    const child = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let interrupted = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!interrupted && /"type":"cell-start","context":0,"concurrency":2/.test(stdout)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    expect(code).toBe(130);
    const events = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string });
    expect(events[0].type).toBe('plan');
    expect(events.some((e) => e.type === 'sample')).toBe(true);
    expect(events.at(-1)?.type).toBe('run-done');
    expect(stdout).not.toContain('sk-test-key-123');
    expect(readFileSync(out, 'utf8')).not.toContain('sk-test-key-123');

    const again = await runCli(['run', '--resume', out, '--api-key', 'sk-test-key-123', '--sim-speed', '20'], {
      timeoutMs: 60_000,
      cwd: dir,
    });
    expect(again.code).toBe(0);
    const s = await readSessionFile(out);
    expect(s.ok && s.data.cells.map((c) => c.status)).toEqual(['valid', 'valid']);
  }, 120_000);

  it('says clearly when the key is wrong, the model is not served, or nothing listens', async ({ sim }) => {
    const wrongKey = await runCli(['run', '--url', sim.url, '--api-key', 'nope-nope'], { timeoutMs: 30_000 });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/refused the API key/);
    expect(wrongKey.stderr).not.toContain('nope-nope');
    const model = await runCli(['run', '--url', sim.url, '--api-key', 'sk-test-key-123', '--model', 'other'], {
      timeoutMs: 30_000,
    });
    expect(model.code).toBe(1);
    expect(model.stderr).toMatch(/"other" is not served/);
    const refused = await runCli(['run', '--url', `http://127.0.0.1:${await freePort()}`], { timeoutMs: 30_000 });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Connection refused/);
    const tls = await runCli(['run', '--url', sim.url.replace('http:', 'https:')], { timeoutMs: 30_000 });
    expect(tls.code).toBe(1);
    expect(tls.stderr).toMatch(/TLS/);
  }, 90_000);

  it('exits 1 with the reason when nothing in the plan can run, judged with the run’s own max output', async ({
    sim,
  }) => {
    const dir = tempDir();
    const out = join(dir, 'none.speedmatrix.json');
    // 250K + 20,000 output tokens is over the simulator's max_model_len 262,144; 250K + 4,096 would fit.
    const args = [
      'run',
      '--url',
      sim.url,
      '--api-key',
      'sk-test-key-123',
      '--contexts',
      '250k',
      '--concurrency',
      '1',
      '--prefill-contexts',
      'none',
      '--max-output',
      '20000',
      '--out',
      out,
    ];
    const r = await runCli(args, { timeoutMs: 30_000, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/250K context \+ 20,000 output tokens exceeds max_model_len 262,144/);
    expect(r.stderr).toMatch(
      /nothing to measure: of 1 cells, 1 too long for max_model_len 262144 with 20000 output tokens/,
    );
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('rejects bad flags with a usage error (exit 2)', async ({ sim }) => {
    const none = await runCli(['run'], { timeoutMs: 30_000 });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--demo/);
    const bad = await runCli(['run', '--url', sim.url, '--contexts', '8k,lots'], { timeoutMs: 30_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--contexts: "lots"/);
    const tt = await runCli(['run', '--url', sim.url, '--token-targeting', 'maybe'], { timeoutMs: 30_000 });
    expect(tt.code).toBe(2);
    expect(existsSync(join(ROOT, 'speedmatrix-fara'))).toBe(false);
  }, 60_000);
});

describe('speedmatrix run --launch', () => {
  it('starts the server command through the supervisor, measures it, and stops it at the end', async () => {
    const dir = tempDir();
    const out = join(dir, 'launch.speedmatrix.json');
    const port = await freePort();
    const r = await runCli(
      [
        'run',
        '--launch',
        '--contexts',
        '0',
        '--concurrency',
        '1',
        '--prefill-contexts',
        'none',
        '--duration',
        '3',
        '--sim-speed',
        '20',
        '--out',
        out,
        '--',
        'sim',
        'serve',
        '--port',
        String(port),
        '--sim-speed',
        '20',
        '--sim-load-seconds',
        '0.2',
        '--served-model-name',
        'fara',
      ],
      { timeoutMs: 90_000, cwd: dir },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const s = await readSessionFile(out);
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.data.cells.map((c) => c.status)).toEqual(['valid']);
    expect(s.data.server.display).toMatch(/sim serve/);
    expect(s.data.server.display).toContain(`--port ${port}`);
    expect(s.data.serverLog.lines.some((l) => /Application startup complete/.test(l))).toBe(true);
    // The server is gone.
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  }, 120_000);
});
