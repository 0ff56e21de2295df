/**
 * `speedmatrix report -o cells.csv` and `-o requests.jsonl` on a session the real CLI measured
 * against the simulator, and on an imported report: the exports hold the session's own figures,
 * the extension chooses the format, and bad requests are refused with a message.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { matrixRunArgs, runCli, sessionFromCli } from '../../helpers/cli';
import { simTest } from '../../helpers/fixtures';
import { SYNTHETIC_REPORT } from '../../helpers/paths';
import type { Session } from '#shared/session/schema';

const it = simTest.override('simOptions', { scope: 'file' }, { speed: 20, args: ['--served-model-name', 'fara'] });

/** Parses the CSV the export writes (no quoted fields in these sessions). */
function csvRows(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trimEnd().split('\r\n');
  const names = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])));
}

/** The CLI on a loaded machine: each start compiles its sources, so give it time. */
const cliSlow = (args: string[]) => runCli(args, { timeoutMs: 90_000 });
/** A report written again by a retried test replaces its own earlier file. */
const report = (file: string, out: string) => runCli(['report', file, '-o', out, '--force'], { timeoutMs: 90_000 });

let measured: { dir: string; file: string; session: Session } | null = null;

/** One compact run: short answers, so requests finish inside the window and have end-to-end latencies. */
async function measuredSession(url: string, dir: string) {
  if (measured) return measured;
  const file = join(dir, 'demo.speedmatrix.json');
  const { session, result } = await sessionFromCli(
    matrixRunArgs(url, { contexts: '1k', concurrency: '1,4', prefill: '1k', duration: 4, maxOutput: 64 }),
    file,
    { timeoutMs: 120_000, cwd: dir },
  );
  expect(result.stderr).toBe('');
  measured = { dir, file, session };
  return measured;
}

describe('speedmatrix report: data exports', () => {
  it('writes one CSV row per decode cell with the session’s own latency percentiles and counts', async ({
    sim,
    tempDir,
  }) => {
    const { dir, file, session } = await measuredSession(sim.url, tempDir('sm-export-'));
    const out = join(dir, 'cells.csv');
    const r = await report(file, out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Wrote the per-cell CSV report to ${out}`);
    const rows = csvRows(readFileSync(out, 'utf8'));
    expect(rows.map((row) => `${row.context}x${row.concurrency}`)).toEqual(['1024x1', '1024x4']);
    for (const row of rows) {
      const cell = session.cells.find((c) => c.concurrency === Number(row.concurrency))!;
      expect(Number(row.total_tokens_per_s)).toBe(cell.totalTokensPerSecond);
      expect(Number(row.ttft_p99_s)).toBe(cell.ttft!.p99);
      expect(Number(row.ttft_p95_s)).toBe(cell.ttft!.p95);
      // Requests finished inside the window, so each cell has end-to-end latencies and counts them.
      expect(Number(row.e2e_count)).toBeGreaterThan(0);
      expect(Number(row.e2e_count)).toBe(cell.e2eLatency!.count);
      expect(Number(row.e2e_p50_s)).toBe(cell.e2eLatency!.p50);
      // Every request that got a first token counts toward the TTFT.
      expect(Number(row.ttft_count)).toBe(cell.requests!.firstTokenAt.filter((t) => t !== null).length);
      expect(Number(row.e2e_count)).toBe(cell.requests!.outcome.filter((o) => o === 'done').length);
    }
  }, 180_000);

  it('writes every request as a JSON line whose times match the session’s per-request columns', async ({
    sim,
    tempDir,
  }) => {
    const { dir, file, session } = await measuredSession(sim.url, tempDir('sm-export-'));
    const out = join(dir, 'requests.jsonl');
    const r = await report(file, out);
    expect(r.code).toBe(0);
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const total = session.cells.reduce((n, c) => n + c.requests!.sentAt.length, 0);
    expect(lines).toHaveLength(total);
    const four = session.cells.find((c) => c.concurrency === 4)!;
    const mine = lines.filter((l) => l.concurrency === 4);
    expect(mine.map((l) => l.sent_at_s)).toEqual(four.requests!.sentAt);
    expect(mine.map((l) => l.last_token_at_s)).toEqual(four.requests!.lastTokenAt);
    for (const l of mine) {
      expect(Object.keys(l)).toEqual(expect.arrayContaining(['context', 'repetition', 'ttft_s', 'tokens_per_s']));
      if (l.first_token_at_s !== null) expect(l.ttft_s).toBeCloseTo(l.first_token_at_s - l.sent_at_s, 9);
      // Its own rate between first and last token (null when they came in one chunk).
      if (l.tokens_per_s !== null)
        expect(l.tokens_per_s).toBeCloseTo((l.output_tokens - 1) / (l.last_token_at_s - l.first_token_at_s), 6);
    }
    // The export's TTFTs are the values the cell's TTFT median stands on.
    const ttfts = mine.map((l) => l.ttft_s).filter((t) => t !== null) as number[];
    expect(Math.min(...ttfts)).toBeLessThanOrEqual(four.ttft!.p50 + 1e-9);
    expect(Math.max(...ttfts)).toBeGreaterThanOrEqual(four.ttft!.p50 - 1e-9);
  }, 180_000);

  it('puts the latency percentiles with their counts in the Markdown and HTML reports', async ({ sim, tempDir }) => {
    const { dir, file, session } = await measuredSession(sim.url, tempDir('sm-export-'));
    const md = join(dir, 'r.md');
    expect((await report(file, md)).code).toBe(0);
    const text = readFileSync(md, 'utf8');
    expect(text).toContain('## Latency percentiles');
    expect(text).toContain('| Context | Requests at once | TTFT p50 | TTFT p90 | TTFT p99 | TTFT n |');
    const html = join(dir, 'r.html');
    // The extension chose HTML although --format was not given.
    expect((await report(file, html)).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('<table class="latency">');
    const four = session.cells.find((c) => c.concurrency === 4)!;
    expect(page).toContain(`<td>${four.e2eLatency!.count}</td>`);
  }, 180_000);

  it('exports an imported report’s cells with only the medians it holds, and refuses a request export', async ({
    tempDir,
  }) => {
    const dir = tempDir('sm-export-');
    const txt = join(dir, 'synthetic.txt');
    copyFileSync(SYNTHETIC_REPORT, txt);
    const out = join(dir, 'cells.csv');
    const r = await report(txt, out);
    expect(r.code).toBe(0);
    const rows = csvRows(readFileSync(out, 'utf8'));
    expect(rows).toHaveLength(6);
    const valid = rows.find((row) => row.status === 'valid')!;
    expect(Number(valid.ttft_p50_s)).toBeGreaterThan(0);
    // The source printed medians: no p90 or p99 is made up from them, and no count is claimed.
    expect(valid.ttft_p90_s).toBe('');
    expect(valid.ttft_p99_s).toBe('');
    expect(valid.ttft_count).toBe('');
    const jsonl = join(dir, 'requests.jsonl');
    const refused = await cliSlow(['report', txt, '-o', jsonl]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no per-request timings.*can still be exported as CSV: -o cells\.csv\.$/m);
    expect(existsSync(jsonl)).toBe(false);
  }, 240_000);

  it('refuses a --format that disagrees with the --out extension, and an unknown format', async ({ tempDir }) => {
    const dir = tempDir('sm-export-');
    const txt = join(dir, 'synthetic.txt');
    copyFileSync(SYNTHETIC_REPORT, txt);
    const clash = await cliSlow(['report', txt, '-f', 'csv', '-o', join(dir, 'cells.html')]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--format csv .* ends in \.html/);
    expect(existsSync(join(dir, 'cells.html'))).toBe(false);
    const unknown = await cliSlow(['report', txt, '-f', 'xlsx']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/xlsx.*(md|csv)/s);
    // --format alone still chooses the file next to the input.
    const csv = await cliSlow(['report', txt, '-f', 'csv']);
    expect(csv.code).toBe(0);
    expect(existsSync(join(dir, 'synthetic.csv'))).toBe(true);
  }, 240_000);
});
