import { describe, expect, it } from 'vitest';
import { type SweepEntry, renderSweepHtml, renderSweepMarkdown } from '../../../src-main/workflows/report/sweep';
import { buildReportModel } from '#shared/report/report-model';
import { buildSweepModel } from '#shared/report/sweep-model';
import { parseSessionText } from '../../../src-main/platform/session/read';
import { serializeSession } from '../../../src-main/platform/session/write';
import type { StartPhase } from '#shared/session/start-phases';
import { sampleSession } from '../../helpers/sample-session';

const COMPILED: StartPhase[] = [
  { phase: 'process', seconds: 22 },
  { phase: 'weights', seconds: 38 },
  { phase: 'compile', seconds: 49 },
  { phase: 'kv-profile', seconds: 4 },
  { phase: 'graph-capture', seconds: 12 },
  { phase: 'ready', seconds: 3 },
];
const EAGER: StartPhase[] = [
  { phase: 'process', seconds: 13 },
  { phase: 'weights', seconds: 9 },
  { phase: 'kv-profile', seconds: 4 },
  { phase: 'ready', seconds: 3 },
];

function withStart(phases: StartPhase[] | undefined) {
  const s = sampleSession();
  s.server.startPhases = phases;
  return s;
}

const entry = (label: string, phases: StartPhase[] | undefined, failure: string | null = null): SweepEntry => ({
  variant: { settings: [], label },
  file: `${label}.speedmatrix.json`,
  session: failure ? null : withStart(phases),
  failure,
});

describe('server start time in reports', () => {
  it('the Run block states the whole start and each phase the log showed; older sessions have no such row', () => {
    const run = (phases?: StartPhase[]) =>
      buildReportModel(withStart(phases))
        .blocks.find((b) => b.title === 'Run')!
        .rows.find((r) => r.label === 'Server start');
    expect(run(EAGER)?.value).toBe(
      '29.0 s (Process start 13.0 s · Weights loaded 9.0 s · KV cache profiling 4.0 s · API server ready 3.0 s)',
    );
    expect(run(undefined)).toBeUndefined();
  });

  it('a sweep compares the variants phase by phase, "—" for a phase a variant did not print or a variant that did not start', () => {
    const entries = [entry('compiled', COMPILED), entry('--enforce-eager', EAGER), entry('bad', undefined, 'OOM')];
    const m = buildSweepModel(entries);
    expect(m.variants.header.at(-1)).toBe('Server start');
    expect(m.variants.rows.map((r) => r.at(-1))).toEqual(['128.0 s', '29.0 s', '—']);
    expect(m.starts).toEqual({
      header: ['Phase', 'A', 'B', 'C'],
      rows: [
        ['Process start', '22.0 s', '13.0 s', '—'],
        ['Weights loaded', '38.0 s', '9.0 s', '—'],
        ['Compilation (torch.compile)', '49.0 s', '—', '—'],
        ['KV cache profiling', '4.0 s', '4.0 s', '—'],
        ['CUDA graph capture', '12.0 s', '—', '—'],
        ['API server ready', '3.0 s', '3.0 s', '—'],
        ['Launch to ready', '128.0 s', '29.0 s', '—'],
      ],
    });
    expect(renderSweepMarkdown(entries)).toContain('## Server start\n');
    expect(renderSweepMarkdown(entries)).toContain('| Compilation (torch.compile) | 49.0 s | — | — |');
    expect(renderSweepHtml(entries)).toContain('<h2>Server start</h2>');
  });

  it('a sweep whose variants recorded no start (attached, older files) has no start table', () => {
    const m = buildSweepModel([entry('a', undefined), entry('b', undefined)]);
    expect(m.starts).toBeNull();
    expect(renderSweepMarkdown([entry('a', undefined), entry('b', undefined)])).not.toContain('## Server start');
  });

  it('the session file keeps the phases, and refuses an unknown phase name or negative seconds', () => {
    const text = serializeSession(withStart(EAGER));
    const read = parseSessionText(text);
    expect(read.ok && read.data.server.startPhases).toEqual(EAGER);
    const bad = (phases: unknown) => {
      const json = JSON.parse(text);
      json.server.startPhases = phases;
      return parseSessionText(JSON.stringify(json)).ok;
    };
    expect(bad([{ phase: 'warp-drive', seconds: 1 }])).toBe(false);
    expect(bad([{ phase: 'weights', seconds: -1 }])).toBe(false);
  });
});
