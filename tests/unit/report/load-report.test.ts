/**
 * A load session's report: its Run block leaves out the matrix's own settings (decode test,
 * prefill mode, time per measurement, max output), which a load run does not use and which read
 * as "Max output: 1 tokens"; a matrix session keeps them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReportModel } from '#shared/report/report-model';
import { compareSessions } from '#shared/report/compare-model';
import { loadAnswer } from '#shared/report/load-model';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { renderCompareMarkdown } from '../../../src-main/workflows/report/compare';
import { importText } from '../../../src-main/workflows/importers';
import { ROOT } from '../../helpers/paths';
import { sampleSession } from '../../helpers/sample-session';

const MATRIX_ROWS = ['Decode test', 'Prefill mode', 'Time per measurement', 'Max output'];
const runLabels = (m: ReturnType<typeof buildReportModel>) =>
  m.blocks.find((b) => b.title === 'Run')!.rows.map((r) => r.label);

describe('the Run block of a load session', () => {
  it('leaves out the matrix’s settings; a matrix session keeps them', () => {
    const name = 'guidellm-benchmarks.json';
    const r = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
    if (!r.ok) throw new Error(r.error);
    const load = runLabels(buildReportModel(r.data));
    expect(load).toContain('Served model');
    for (const label of MATRIX_ROWS) expect(load).not.toContain(label);
    expect(runLabels(buildReportModel(sampleSession()))).toEqual(expect.arrayContaining(MATRIX_ROWS));
  });
});

describe('a load session’s heading and comparison', () => {
  const peer = (name: string) => {
    const r = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
    if (!r.ok) throw new Error(r.error);
    return r.data;
  };

  it('is headed as a load test, not a speed test matrix', () => {
    expect(buildReportModel(peer('guidellm-benchmarks.json')).kicker).toBe('Load test');
    expect(renderMarkdownReport(peer('guidellm-benchmarks.json')).split('\n')[0]).toBe('Load test');
    expect(buildReportModel(sampleSession()).kicker).toBe('Speed test matrix');
  });

  it('leaves the matrix’s settings out of a comparison of load sessions', () => {
    const m = compareSessions([peer('guidellm-benchmarks.json'), peer('guidellm-benchmarks-v2.json')]);
    const fields = m.differences.map((d) => d.field);
    for (const f of ['Repeat each cell', 'Time per measurement', 'Max output', 'Token targeting'])
      expect(fields).not.toContain(f);
    expect(renderCompareMarkdown([peer('guidellm-benchmarks.json'), peer('guidellm-benchmarks-v2.json')])).toMatch(
      /^Load test comparison\n/,
    );
    expect(renderCompareMarkdown([sampleSession(), sampleSession()])).toMatch(/^Speed test matrix comparison\n/);
    const matrix = compareSessions([sampleSession(), sampleSession()]).differences.map((d) => d.field);
    expect(matrix).toEqual(expect.arrayContaining(['Repeat each cell', 'Time per measurement', 'Max output']));
  });
});

describe('a load session’s answer', () => {
  it('states 99% as the rule a rate is held to, not as a measured share', () => {
    const r = importText(readFileSync(join(ROOT, 'tests/fixtures/peers/guidellm-benchmarks.json'), 'utf8'), 'g.json');
    if (!r.ok) throw new Error(r.error);
    const load = { ...r.data.load!, bestRateWithinSlo: 6.5 };
    load.config = { ...load.config, slo: [{ metric: 'ttft', stat: 'p90', limitSeconds: 1 }] as never };
    const answer = loadAnswer(load);
    expect(answer).toContain('Largest rate within the targets: 6.5 req/s');
    expect(answer).toContain('a rate counts when at least 99% of its requests meet them and it kept up');
    expect(answer).not.toContain('(99% of requests within them');
  });
});
