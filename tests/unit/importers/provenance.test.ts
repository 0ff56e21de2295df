/**
 * An imported peer's file is credited to the tool and version it names, dated by its own time,
 * shows no client backend as the engine, and states its workload in formatted words
 * (docs/load.md, "The peers' files").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importText } from '../../../src-main/workflows/importers';
import { fileTime } from '../../../src-main/workflows/importers/load-import';
import { buildReportModel } from '#shared/report/report-model';
import { siteRunOf } from '#shared/report/site-index';
import type { Session } from '#shared/session/schema';
import { ROOT } from '../../helpers/paths';

function imported(name: string): Session {
  const r = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

const blockRow = (s: Session, block: string, label: string) =>
  buildReportModel(s)
    .blocks.find((b) => b.title === block)!
    .rows.find((r) => r.label === label)?.value;

describe('an imported file’s tool, time and engine', () => {
  it.each([
    ['vllm-bench-serve-random-1024.json', 'vLLM bench serve', '2026-12-02T14:30:05.000Z'],
    ['aiperf-profile-export-concurrency.json', 'AIPerf 0.6.0', '2026-12-03T09:12:44.512Z'],
    ['aiperf-profile-export.json', 'AIPerf', '2026-12-01T10:30:00.000Z'],
    ['guidellm-benchmarks-v2.json', 'GuideLLM 0.6.0', '2025-12-02T04:33:22.000Z'],
    ['guidellm-benchmarks.json', 'GuideLLM', '2025-12-01T14:40:00.000Z'],
  ])('%s: credited to %s, dated %s', (file, tool, at) => {
    const s = imported(file);
    expect(blockRow(s, 'Run', 'Benchmark tool')).toBe(tool);
    expect(s.createdAt).toBe(at);
    const row = siteRunOf(s, { id: 'x', source: file, download: file });
    expect(row.tool).toBe(tool);
    expect(row.createdAt).toBe(at);
  });

  it('does not name vLLM bench’s client backend as the engine', () => {
    const s = imported('vllm-bench-serve-rate4.json');
    expect(s.engine.name).toBe('unknown');
    expect(blockRow(s, 'Engine', 'Engine')).not.toBe('openai-chat');
    expect(buildReportModel(s).engineLine).toBe('');
  });

  it('reads a file’s own time with or without a zone, and refuses what is no time', () => {
    expect(fileTime('20261201-101500')).toBe('2026-12-01T10:15:00.000Z');
    expect(fileTime('2026-12-01T10:30:00.000000')).toBe('2026-12-01T10:30:00.000Z');
    expect(fileTime('2026-12-01T10:30:00+02:00')).toBe('2026-12-01T08:30:00.000Z');
    expect(fileTime(1764600000)).toBe('2025-12-01T14:40:00.000Z');
    expect(fileTime('yesterday')).toBeNull();
    expect(fileTime(null)).toBeNull();
  });
});

describe('an imported file’s workload', () => {
  it('vLLM bench summary: input and output lengths from its token totals over the completed requests, seconds formatted', () => {
    const s = imported('vllm-bench-serve-random-1024.json');
    // 204,983 input tokens over 200 prompts: 1,025 each; 25,600 output tokens: 128 each.
    expect(s.load!.config.inputLength).toEqual({ kind: 'fixed', tokens: 1025 });
    expect(s.load!.config.outputLength).toEqual({ kind: 'fixed', tokens: 128 });
    const workload = buildReportModel(s).load!.workload;
    expect(workload).toContain('input 1,025 tokens');
    expect(workload).toContain('output 128 tokens');
    expect(workload).toContain('27.0 s');
    expect(workload).not.toMatch(/\d\.\d{3,}/);
  });

  it('AIPerf concurrency run: a closed loop of 16 at once, not an empty list of rates', () => {
    const s = imported('aiperf-profile-export-concurrency.json');
    const workload = buildReportModel(s).load!.workload;
    expect(workload).not.toContain('rates  req/s');
    expect(workload).toContain('no set rate: each request sent as soon as one finishes');
    expect(workload).toContain('at most 16 in flight');
    expect(workload).toContain('input 1,024 tokens');
    expect(workload).not.toMatch(/\d\.\d{3,}/);
  });
});
