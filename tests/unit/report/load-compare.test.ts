/**
 * Comparing load sessions (load-compare.ts), as `compare` and the app lay it out: the verdict on
 * each session's answer, passes matched by what was offered, and a load session refused beside a
 * matrix session. The sessions are the project's vLLM `bench serve` fixtures, imported.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareSessions } from '#shared/report/compare-model';
import { LOAD_SESSION_COLUMNS, loadComparison, loadMixRefusal } from '#shared/report/load-compare';
import { buildSweepModel, type SweepEntry } from '#shared/report/sweep-model';
import type { Session } from '#shared/session/schema';
import { importText } from '../../../src-main/workflows/importers';
import { renderCompareMarkdown } from '../../../src-main/workflows/report/compare';
import { ROOT } from '../../helpers/paths';
import { sampleSession } from '../../helpers/sample-session';

function peer(name: string): Session {
  const r = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

/** The same run with every rate and tok/s figure scaled, as a faster server would give. */
function scaled(s: Session, k: number): Session {
  const load = s.load!;
  return {
    ...s,
    load: {
      ...load,
      results: load.results.map((r) => ({
        ...r,
        achievedRate: r.achievedRate * k,
        outputTokensPerSecond: r.outputTokensPerSecond * k,
      })),
    },
  };
}

describe('comparing load sessions', () => {
  it('says how each session’s most achieved rate compares with the first', () => {
    const a = peer('vllm-bench-serve-rate4.json');
    const m = compareSessions([a, scaled(a, 1.5)]);
    const most = a.load!.results[0].achievedRate;
    expect(m.load?.verdicts).toEqual([
      `B against A: most achieved ${(most * 1.5).toFixed(1)} vs ${most.toFixed(1)} req/s (1.50×).`,
    ]);
    expect(m.load?.passes.header).toEqual([
      'Pass',
      'A achieved req/s',
      'B achieved req/s',
      'A output tok/s',
      'B output tok/s',
      'B / A output tok/s',
      'A TTFT p99',
      'B TTFT p99',
      'A kept up',
      'B kept up',
    ]);
    expect(m.load?.passes.rows.map((r) => [r[0], r[5]])).toEqual([['4.0 req/s', '1.50×']]);
    expect(m.decode.every((r) => r.rows.length === 0)).toBe(true);
  });

  it('matches passes by what was offered: a rate only one session tried shows — for the other', () => {
    const rate4 = peer('vllm-bench-serve-rate4.json');
    const throughput = peer('vllm-bench-serve-summary.json');
    const c = loadComparison([rate4, throughput], ['A', 'B'])!;
    expect(c.passes.rows.map((r) => r.slice(0, 3))).toEqual([
      ['4.0 req/s', expect.stringMatching(/^\d/), '—'],
      ['throughput', '—', expect.stringMatching(/^\d/)],
    ]);
    expect(c.workloads.rows.map((r) => r[0])).toEqual(['A', 'B']);
  });

  it('refuses a load session beside a matrix session, naming each', () => {
    const sessions = [peer('vllm-bench-serve-rate4.json'), sampleSession()];
    expect(loadMixRefusal(sessions, ['rate4.json', 'matrix.json'])).toBe(
      "rate4.json is a load session and matrix.json is a matrix session: a load run's request rates and a matrix's cells measure different things. Compare load sessions with load sessions.",
    );
    expect(() => compareSessions(sessions)).toThrow(/Compare load sessions with load sessions/);
    expect(loadMixRefusal([sampleSession(), sampleSession()], ['a', 'b'])).toBeNull();
  });

  it('the Markdown comparison shows the load section in place of prefill, decode and deltas', () => {
    const a = peer('vllm-bench-serve-rate4.json');
    const text = renderCompareMarkdown([a, scaled(a, 2)]);
    expect(text).toContain('## Load');
    expect(text).toContain('B against A: most achieved');
    expect(text).not.toContain('## Prefill');
    expect(text).not.toContain('## Deltas');
  });
});

describe('the Sessions table of a comparison of load sessions', () => {
  const entry = (file: string, session: Session | null, unreadable: string | null = null): SweepEntry => ({
    variant: { settings: [], label: file },
    file,
    session,
    failure: null,
    unreadable,
  });

  it('gives each session’s passes, most achieved, largest rate within the targets and its goodput, not matrix cells', () => {
    const g = peer('guidellm-benchmarks.json');
    const load = g.load!;
    const withTargets: Session = {
      ...g,
      load: {
        ...load,
        config: { ...load.config, slo: { ttftSeconds: 0.5 } },
        bestRateWithinSlo: 6.5,
        results: load.results.map((r) => (r.targetRate === 6.5 ? { ...r, goodput: 6.2 } : r)),
      },
    };
    const m = buildSweepModel([
      entry('vllm.json', peer('vllm-bench-serve-rate4.json')),
      entry('guidellm.json', withTargets),
      entry('broken.json', null, 'not JSON'),
    ]);
    expect(m.variants).toEqual({
      header: LOAD_SESSION_COLUMNS,
      rows: [
        ['A', 'vllm.json', '4.0 req/s', '3.2', 'no targets', '—', '0 of 1'],
        ['B', 'guidellm.json', 'synchronous, throughput, 6.5 req/s, 12.3 req/s', '18.0', '6.5 req/s', '6.2', '3 of 4'],
        ['C', 'broken.json', 'not JSON', '—', '—', '—', '—'],
      ],
    });
  });
});
