/**
 * AIPerf's aggregated profile export becomes a load session of one pass: metric objects read by
 * their names with their units turned into seconds, the rate it was asked for from its input
 * configuration, and a file without TTFT percentiles refused with the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importText } from '../../../src-main/workflows/importers';
import { ROOT } from '../../helpers/paths';

const text = () => readFileSync(join(ROOT, 'tests/fixtures/peers/aiperf-profile-export.json'), 'utf8');

describe('AIPerf profile exports', () => {
  it('rates, tok/s, latencies in seconds with the request count, errors and the rate asked for', () => {
    const r = importText(text(), 'profile_export_aiperf.json');
    if (!r.ok) throw new Error(r.error);
    expect(r.data.origin).toEqual({ kind: 'imported-aiperf', file: 'profile_export_aiperf.json' });
    expect(r.data.server.model).toBe('Qwen/Qwen3-0.6B');
    const [p] = r.data.load!.results;
    expect(p).toMatchObject({
      pass: 'rate',
      targetRate: 4,
      achievedRate: 3.6,
      outputTokensPerSecond: 460.8,
      totalTokensPerSecond: 460.8 + 3.6 * 512,
      requests: 182,
      completed: 180,
      errors: 2,
      firstError: 'InternalServerError (500): Server encountered an internal error',
      keptUp: true,
      windowSeconds: 50,
    });
    expect(p.ttft).toEqual({ mean: 0.12, p50: 0.1, p90: 0.18, p99: 0.26, count: 180 });
    expect(p.e2e?.p99).toBeCloseTo(3.1, 9);
    expect(p.timeBetweenTokens?.p90).toBeCloseTo(0.017, 9);
  });

  it('without TTFT percentiles it is refused, saying what is missing', () => {
    const doc = JSON.parse(text()) as { time_to_first_token: Record<string, unknown> };
    delete doc.time_to_first_token.p90;
    const r = importText(JSON.stringify(doc), 'x.json');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("without time_to_first_token's avg, p50, p90 and p99");
  });
});
