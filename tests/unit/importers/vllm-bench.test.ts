/**
 * vLLM `bench serve --save-result` files become load sessions of one pass: figures read by the
 * tool's field names, latencies recomputed from its per-request lists (with their counts) where
 * it kept them, its summaries where it did not, and a file without either refused with what to run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importText } from '../../../src-main/workflows/importers';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import type { Session } from '#shared/session/schema';
import { ROOT } from '../../helpers/paths';

const fixture = (name: string) => readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8');

function imported(name: string): Session {
  const r = importText(fixture(name), name);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

describe('vLLM bench serve results', () => {
  it('a rate with per-request lists: rates and tok/s as saved, latencies from the successful requests with counts', () => {
    const s = imported('vllm-bench-serve-rate4.json');
    expect(s.origin).toEqual({ kind: 'imported-vllm-bench', file: 'vllm-bench-serve-rate4.json' });
    expect(s.server.model).toBe('Qwen/Qwen3-8B');
    const [r] = s.load!.results;
    expect(r).toMatchObject({
      pass: 'rate',
      targetRate: 4,
      achievedRate: 3.2,
      outputTokensPerSecond: 12.8,
      totalTokensPerSecond: 3289.6,
      requests: 5,
      completed: 4,
      errors: 1,
      firstError: 'Bad Request: the prompt is too long',
      maxInFlight: 3,
      keptUp: false,
      keptUpReason: 'completed 3.2 req/s of 4.0 offered',
    });
    expect(r.ttft).toMatchObject({ p50: 0.25, count: 4 });
    expect(r.timeBetweenTokens?.p50).toBeCloseTo(0.025, 9);
    expect(r.e2e?.p99).toBeCloseTo(0.4 + 0.12 - 0.0009 * 3, 2);
    expect(r.e2e?.count).toBe(4);
  });

  it('summary fields only: an unlimited rate is a throughput pass, latencies from the saved percentiles', () => {
    const s = imported('vllm-bench-serve-summary.json');
    const [r] = s.load!.results;
    expect(r).toMatchObject({
      pass: 'throughput',
      targetRate: null,
      achievedRate: 8.33,
      maxInFlight: 64,
      keptUp: true,
    });
    expect(r.ttft?.count).toBe(300);
    for (const [k, v] of Object.entries({ mean: 0.0546, p50: 0.053, p90: 0.0701, p99: 0.0898 }))
      expect(r.ttft?.[k as 'p50']).toBeCloseTo(v, 9);
    expect(r.e2e?.p90).toBeCloseTo(7.4, 9);
    expect(s.load!.config.maxInFlight).toBe(64);
  });

  it('the report shows the load section with the imported pass, not an empty matrix', () => {
    const md = renderMarkdownReport(imported('vllm-bench-serve-rate4.json'));
    expect(md).toContain('*Imported from vLLM bench serve results (vllm-bench-serve-rate4.json).*');
    expect(md).toContain('## Load');
    expect(md).toContain(
      '| 4.0 req/s | 4.0 | 3.2 | 12.8 | 3,289.6 | 250 ms / 370 ms / 397 ms (n=4) | 25.0 ms / 37.0 ms / 39.7 ms (n=4) | 325 ms / 481 ms / 516 ms (n=4) | 5 | 1 | no | — |',
    );
    expect(md).toContain('- 4.0 req/s: not kept up: completed 3.2 req/s of 4.0 offered.');
    expect(md).not.toContain('## Sustained decode');
  });

  it('without per-request lists or p90s, it says how to run vLLM so the file holds them', () => {
    const doc = JSON.parse(fixture('vllm-bench-serve-summary.json')) as Record<string, unknown>;
    delete doc.p90_ttft_ms;
    const r = importText(JSON.stringify(doc), 'old.json');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain('--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99');
  });
});
