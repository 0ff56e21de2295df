/**
 * The Run block states the method that ran (docs/method.md, "The Run block"): an adaptive window's
 * precision and its shortest and longest length, the repeats, the prompt shapes and how prompt
 * sizes were reached; and a report's title names the served model when no model path is known.
 */
import { describe, expect, it } from 'vitest';
import { buildReportModel } from '#shared/report/report-model';
import { reportTitle } from '#shared/report/report-blocks';
import { compareSessions } from '#shared/report/compare-model';
import { siteRunOf } from '#shared/report/site-index';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { sampleSession } from '../../helpers/sample-session';

const runRows = (s: ReturnType<typeof sampleSession>) =>
  Object.fromEntries(
    buildReportModel(s)
      .blocks.find((b) => b.title === 'Run')!
      .rows.map((r) => [r.label, r.value]),
  );

describe('the Run block of a matrix session', () => {
  it('states an adaptive run’s precision, shortest and longest window and its repeats, not a fixed duration', () => {
    const s = sampleSession();
    s.runConfig.precision = 0.02;
    s.runConfig.minSecondsPerMeasurement = 5;
    s.runConfig.secondsPerMeasurement = 30;
    s.runConfig.repeat = 2;
    const rows = runRows(s);
    expect(rows['Decode test']).toBe('Adaptive window');
    expect(rows['Precision']).toBe("±2%: the 95% interval of each cell's total tok/s");
    expect(rows['Shortest window']).toBe('5 s');
    expect(rows['Longest window']).toBe('30 s');
    expect(rows['Time per measurement']).toBeUndefined();
    expect(rows['Repeats']).toBe('2 per cell, in interleaved passes');
    expect(renderMarkdownReport(s)).toContain('- **Precision**: ±2%');
  });

  it('states a fixed run’s window, one repeat, its prompt shapes and how prompt sizes were reached', () => {
    const s = sampleSession();
    const rows = runRows(s);
    expect(rows['Decode test']).toBe('Fixed duration');
    expect(rows['Time per measurement']).toBe('30 s');
    expect(rows['Repeats']).toBe('1 (each cell measured once)');
    expect(rows['Output length']).toBe('4,096 tokens at most, every request');
    expect(rows['Shared prefix']).toBe('none');
    expect(rows['Prompt sizes']).toBe("exact, counted by the server's /tokenize");
    s.checksUnavailable = ['No /tokenize: prompt sizes were estimated from characters per token.'];
    expect(runRows(s)['Prompt sizes']).toMatch(/^estimated from characters per token/);
  });

  it('claims no repeats, prompt shapes or prompt sizes for an imported file, which states none of them', () => {
    const s = sampleSession();
    s.origin = { kind: 'imported-report-text', file: 'report.txt' };
    const rows = runRows(s);
    for (const label of ['Repeats', 'Output length', 'Shared prefix', 'Prompt sizes'])
      expect(rows[label]).toBeUndefined();
    expect(rows['Time per measurement']).toBe('30 s');
  });
});

describe('a report’s title', () => {
  it('names the served model of a simulator launched without a model path, everywhere a title is shown', () => {
    const s = sampleSession();
    s.server.model = '';
    s.server.servedModel = 'sim-llama';
    expect(reportTitle(s)).toMatch(/^sim-llama on /);
    expect(buildReportModel(s).title).toMatch(/^sim-llama on /);
    expect(compareSessions([s, sampleSession()]).titles[0]).toMatch(/^sim-llama on /);
    expect(siteRunOf(s, { id: 'a', source: 'a.json', download: 'a.json' }).model).toBe('sim-llama');
  });
});
