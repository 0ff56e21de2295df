/**
 * GuideLLM's benchmark report (benchmarks.json) becomes a load session with one pass per
 * benchmark: each strategy as its pass (synchronous, throughput, a constant rate), the successful
 * requests' summaries read by their names with milliseconds turned into seconds, the first error
 * kept, and a report whose strategy or TTFT is missing refused with the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSection } from '#shared/report/load-model';
import { buildReportModel } from '#shared/report/report-model';
import { importText } from '../../../src-main/workflows/importers';
import { ROOT } from '../../helpers/paths';

const text = () => readFileSync(join(ROOT, 'tests/fixtures/peers/guidellm-benchmarks.json'), 'utf8');

describe('GuideLLM benchmark reports', () => {
  it('a sweep: one pass per benchmark, in the order run, with its strategy and figures', () => {
    const r = importText(text(), 'benchmarks.json');
    if (!r.ok) throw new Error(r.error);
    expect(r.data.origin).toEqual({ kind: 'imported-guidellm', file: 'benchmarks.json' });
    expect(r.data.server.model).toBe('Qwen/Qwen3-0.6B');
    const load = r.data.load!;
    expect(load.results.map((p) => [p.pass, p.targetRate])).toEqual([
      ['synchronous', null],
      ['throughput', null],
      ['rate', 6.5],
      ['rate', 12.25],
    ]);
    expect(load.config).toMatchObject({
      rates: [6.5, 12.25],
      sweep: { points: 2 },
      arrivals: { kind: 'constant' },
      warmupSeconds: 3,
      endpoint: 'completions',
      inputLength: { kind: 'fixed', tokens: 512 },
      outputLength: { kind: 'fixed', tokens: 128 },
    });
    const last = load.results[3];
    expect(last).toMatchObject({
      offeredRate: 12.25,
      achievedRate: 10,
      outputTokensPerSecond: 1280,
      totalTokensPerSecond: 6400,
      requests: 302,
      completed: 300,
      errors: 2,
      firstError: 'HTTP 503: Service Unavailable',
      meanInputTokens: 512,
      meanOutputTokens: 128,
      windowSeconds: 30,
      keptUp: false,
      keptUpReason: 'completed 10.0 req/s of 12.3 offered',
      startedAt: '2025-12-01T14:42:00.000Z',
    });
    // Milliseconds to seconds; the request latency is in seconds already.
    expect(last.ttft).toEqual({ mean: 0.64, p50: 0.52, p90: 1.3, p99: 1.9, count: 300 });
    expect(last.timeBetweenTokens?.p99).toBeCloseTo(0.039, 9);
    expect(last.e2e).toEqual({ mean: 4.8, p50: 4.6, p90: 6, p99: 7.1, count: 300 });
    // The throughput pass offers what it sent: every request over the benchmark's duration.
    expect(load.results[1].offeredRate).toBe(540 / 30);
    expect(load.results[2].keptUp).toBe(true);
  });

  it('shows in the reports as a load session, with where it came from', () => {
    const r = importText(text(), 'benchmarks.json');
    if (!r.ok) throw new Error(r.error);
    const section = loadSection(r.data.load!);
    expect(section.table.rows.map((row) => row[0])).toEqual(['synchronous', 'throughput', '6.5 req/s', '12.3 req/s']);
    expect(section.answer).toBe('The most it achieved: 18.0 req/s.');
    expect(JSON.stringify(buildReportModel(r.data))).toContain(
      'Imported from a GuideLLM benchmark report (benchmarks.json).',
    );
  });

  it('refuses a strategy it does not know, and a benchmark without TTFT, saying which', () => {
    const doc = JSON.parse(text());
    doc.benchmarks[2].args.strategy = { type_: 'replay' };
    const strange = importText(JSON.stringify(doc), 'benchmarks.json');
    expect(strange.ok).toBe(false);
    if (!strange.ok)
      expect(strange.error).toMatch(
        /^benchmarks\.json: benchmark 3 has a scheduling strategy SpeedMatrix does not know \("replay"\)/,
      );
    const doc2 = JSON.parse(text());
    delete doc2.benchmarks[1].metrics.time_to_first_token_ms;
    const noTtft = importText(JSON.stringify(doc2), 'benchmarks.json');
    expect(noTtft.ok).toBe(false);
    if (!noTtft.ok)
      expect(noTtft.error).toMatch(/^benchmarks\.json: benchmark 2 has no time_to_first_token_ms summary/);
  });

  it('the newer report layout (metadata version 2): counts, model, endpoint, sweep and warm-up from each benchmark’s config', () => {
    const r = importText(
      readFileSync(join(ROOT, 'tests/fixtures/peers/guidellm-benchmarks-v2.json'), 'utf8'),
      'benchmarks.json',
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.data.server.model).toBe('Qwen/Qwen3-0.6B');
    const load = r.data.load!;
    expect(load.config).toMatchObject({
      rates: [7.8],
      sweep: { points: 1 },
      arrivals: { kind: 'poisson' },
      warmupSeconds: 2,
      endpoint: 'completions',
    });
    expect(load.results.map((p) => [p.pass, p.targetRate, p.requests, p.completed, p.errors])).toEqual([
      ['synchronous', null, 32, 32, 0],
      ['throughput', null, 281, 280, 1],
      ['rate', 7.8, 152, 152, 0],
    ]);
    expect(load.results[1]).toMatchObject({
      firstError: 'HTTP 429: Too Many Requests',
      achievedRate: 14,
      offeredRate: 281 / 20,
      maxInFlight: 48,
      windowSeconds: 20,
    });
    expect(load.results[2].ttft).toEqual({ mean: 0.12, p50: 0.11, p90: 0.19, p99: 0.26, count: 152 });
  });
});
