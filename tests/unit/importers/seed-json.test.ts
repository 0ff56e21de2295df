import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { importFile, importText } from '../../../src-main/workflows/importers/index';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { serializeSession } from '../../../src-main/platform/session/write';
import { SessionSchema } from '#shared/session/schema';
import { countByStatus } from '../../../src-main/platform/session/summary';
import { sampleSession } from '../../helpers/sample-session';
import { faraRtxPro6000 } from '../../helpers/calibration';

const FIXTURES = join(__dirname, 'fixtures');
const FARA = join(FIXTURES, 'fara-benchmark_results.json');
const OLD = join(FIXTURES, 'old-benchmark_results.json');

async function load(path: string) {
  const r = await importFile(path);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

const doc = () => JSON.parse(readFileSync(FARA, 'utf8'));

describe('import: llm-inference-bench benchmark_results.json', () => {
  it('reads metadata, prefill and results (v0.7.6, with extra fields)', async () => {
    const s = await load(FARA);
    expect(SessionSchema.safeParse(s).success).toBe(true);
    expect(s.origin).toEqual({ kind: 'imported-seed-json', file: 'fara-benchmark_results.json' });
    expect(s.engine.name).toBe('vllm');
    expect(s.server).toMatchObject({ kind: 'imported', url: 'http://127.0.0.1:8000', servedModel: 'fara' });
    expect(s.runConfig).toMatchObject({
      secondsPerMeasurement: 30,
      maxOutputTokens: 4096,
      benchmarkTool: 'llm-inference-bench v0.7.6',
    });
    expect(s.runConfig.contexts).toEqual([8192, 16384, 32768, 65536, 131072, 257984]);
    expect(s.kvBudget).toMatchObject({ tokens: 2_199_552, source: 'imported' });
    expect(s.createdAt).toBe('2026-08-19T15:02:11.412Z');
    expect(s.prefill).toHaveLength(7);
    expect(s.prefill[0]).toMatchObject({ context: 8192, promptTokens: 8173, ttftSeconds: 0.2362 });
    expect(countByStatus(s)).toEqual({ valid: 29, looped: 6, 'over-capacity': 13 });
    const c = s.cells.find((x) => x.context === 8192 && x.concurrency === 1)!;
    expect(c).toMatchObject({
      totalTokensPerSecond: 141.43,
      perRequestTokensPerSecond: 142.02,
      avgActiveRequests: 0.998,
      completedRequests: 1,
      outputTokens: 4243,
      windowSeconds: 30.004,
    });
    expect(c.ttft).toMatchObject({ p50: 0.0372, p99: 0.0484, mean: 0.0387 });
    expect(c.ttft?.p90).toBe(0.0372); // not recorded by the tool: repeats the median
    const looped = s.cells.find((x) => x.context === 8192 && x.concurrency === 16)!;
    expect(looped.status).toBe('looped');
    expect(looped.evidence?.loopExcerpt).toMatch(/^The Renaissance/);
  });

  it('holds the same decode figures as the reference run it was measured for, cell by cell', async () => {
    const s = await load(FARA);
    const cal = faraRtxPro6000();
    const label = new Map(Object.entries(cal.contexts).map(([name, tokens]) => [tokens, name]));
    // As the run's report printed them: total to 0.1 tok/s, TTFT in whole ms, per request as printed (to 0.5).
    const ours = Object.fromEntries(
      s.cells.map((c) => [
        `${label.get(c.context)}x${c.concurrency}`,
        c.status === 'valid'
          ? {
              status: c.status,
              total: Number(c.totalTokensPerSecond!.toFixed(1)),
              perRequest: c.perRequestTokensPerSecond,
              ttftMs: Math.round(c.ttft!.p50 * 1000),
            }
          : { status: c.status },
      ]),
    );
    const expected = Object.fromEntries(
      Object.entries(cal.decode).map(([key, cell]) => [
        key,
        cell.status === 'valid' ? { ...cell, perRequest: expect.closeTo(cell.perRequest, 0) } : cell,
      ]),
    );
    expect(ours).toEqual(expected);
  });

  it('accepts an older file: missing fields, unknown fields, skipped cells left out', async () => {
    const s = await load(OLD);
    expect(s.engine.name).toBe('sglang');
    expect(s.runConfig.benchmarkTool).toBe('llm-inference-bench');
    expect(s.hardware.gpus[0]).toMatchObject({
      name: 'NVIDIA GeForce RTX 4090',
      vramBytes: 24 * 1024 ** 3,
      vendor: 'nvidia',
    });
    expect(s.runConfig.contexts).toEqual([0, 16384]);
    expect(s.prefill[0]).toMatchObject({ context: 16384, promptTokens: null, tokensPerSecond: 8569 });
    const at = (ctx: number, c: number) => s.cells.find((x) => x.context === ctx && x.concurrency === c)!;
    // 16 x (16384 + 2048) = 294,912 > 250,000 tokens: the tool left it out; it is over capacity.
    expect(at(16384, 16).status).toBe('over-capacity');
    expect(at(16384, 4)).toMatchObject({
      status: 'queued',
      totalTokensPerSecond: 268.2,
      avgActiveRequests: 3.4,
      maxWaitingSeen: 1,
    });
    expect(at(0, 1)).toMatchObject({ status: 'valid', windowSeconds: 20, timeBetweenTokens: null });
    expect(s.cells).toHaveLength(6);
  });

  it('maps the negative codes and the flags to statuses', () => {
    const d = doc();
    const r0 = d.results[0];
    d.results = [
      { ...r0, concurrency: 1, aggregate_tps: -2 },
      { ...r0, concurrency: 2, aggregate_tps: -4, failure_reason: 'HTTP 500: engine dead' },
      { ...r0, concurrency: 4, aggregate_tps: -3 },
      { ...r0, concurrency: 8, aggregate_tps: -1 },
      { ...r0, concurrency: 16, warmup_timed_out: true },
      { ...r0, concurrency: 32, loop_detected: true },
      { ...r0, concurrency: 64, num_errors: 2 },
    ];
    d.metadata.max_total_tokens = 0;
    const r = importText(JSON.stringify(d), 'codes.json');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const st = Object.fromEntries(r.data.cells.filter((c) => c.context === 8192).map((c) => [c.concurrency, c.status]));
    expect(st).toEqual({
      1: 'skipped',
      2: 'error',
      4: 'looped',
      8: 'over-capacity',
      16: 'queued',
      32: 'looped',
      64: 'valid',
    });
    expect(r.data.cells.find((c) => c.concurrency === 2)?.reason).toBe('HTTP 500: engine dead');
    // The tool's count of failed requests comes along, and shows beside the kept figure.
    const kept = r.data.cells.find((c) => c.context === 8192 && c.concurrency === 64)!;
    expect(kept.failedRequests).toBe(2);
    expect(renderMarkdownReport(r.data)).toMatch(/\| Sustained decode \| 8K \| 64 \| Valid \| [\d,.]+ \(2 failed\) \|/);
  });

  it('imports a file that has only metadata and a summary table', () => {
    const d = doc();
    delete d.results;
    delete d.prefill;
    const r = importText(JSON.stringify(d), 'summary.json');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data.cells.filter((c) => c.status === 'valid')).toHaveLength(29);
    expect(r.data.cells.find((c) => c.context === 8192 && c.concurrency === 128)?.totalTokensPerSecond).toBe(4786.23);
    expect(r.data.checksUnavailable.join(' ')).toMatch(/summary table only/);
  });

  it('refuses unknown, broken and wrongly shaped JSON with a clear message', () => {
    const truncated = readFileSync(FARA, 'utf8').slice(0, 5000);
    const t = importText(truncated, 'benchmark_results.json');
    expect(t.ok).toBe(false);
    if (!t.ok) expect(t.error).toMatch(/not valid JSON .*the file looks truncated/);

    const other = importText(JSON.stringify({ name: 'speedmatrix', version: '0.1.0' }), 'package.json');
    expect(other.ok).toBe(false);
    if (!other.ok)
      expect(other.error).toMatch(
        /package\.json is JSON but not llm-inference-bench results.*"metadata", "prefill" and "results"/,
      );

    const session = importText(serializeSession(sampleSession()), 'run.speedmatrix.json');
    expect(session.ok).toBe(false);
    if (!session.ok) expect(session.error).toContain('already a SpeedMatrix session; open it directly');

    const d = doc();
    d.results[3].concurrency = 'four';
    const bad = importText(JSON.stringify(d), 'x.json');
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.error).toBe('x.json: results[3].concurrency: expected a whole number of at least 1, got "four".');

    const empty = importText('   ', 'empty.json');
    expect(empty.ok).toBe(false);
    if (!empty.ok) expect(empty.error).toMatch(/empty\.json is empty/);

    const binary = importText(new Uint8Array([0xff, 0xfe, 0x00, 0x81, 0x12]), 'blob.bin');
    expect(binary.ok).toBe(false);
    if (!binary.ok) expect(binary.error).toMatch(/blob\.bin is not text/);
  });

  it('says why a path cannot be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-import-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const missing = await importFile(join(dir, 'nope.json'));
    expect(missing.ok ? '' : missing.error).toBe('Cannot import nope.json: no such file.');
    const folder = await importFile(dir);
    expect(folder.ok ? '' : folder.error).toMatch(/it is a folder, not a file/);
    const bom = join(dir, 'bom.json');
    writeFileSync(bom, `\uFEFF${readFileSync(OLD, 'utf8')}`);
    expect((await importFile(bom)).ok).toBe(true);
  });
});
