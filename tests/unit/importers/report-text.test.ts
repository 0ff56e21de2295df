import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { importFile, importText } from '../../../src-main/workflows/importers/index';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { SessionSchema } from '#shared/session/schema';
import { countByStatus } from '../../../src-main/platform/session/summary';
import { SYNTHETIC_LONG_CONTEXT_REPORT, SYNTHETIC_REPORT } from '../../helpers/paths';
import { tableAfter } from '../report/reference-text';
import { sampleSession } from '../../helpers/sample-session';

const reference = (): string => readFileSync(SYNTHETIC_REPORT, 'utf8');

function imported(text = reference()) {
  const r = importText(text, 'synthetic-matrix.txt');
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

describe('import: text of a speed test matrix web page', () => {
  it('reads the title, hardware, engine and run blocks and the launch command', async () => {
    const r = await importFile(SYNTHETIC_REPORT);
    expect(r.ok).toBe(true);
    const s = r.ok ? r.data : imported();
    expect(SessionSchema.safeParse(s).success).toBe(true);
    expect(s.origin).toEqual({ kind: 'imported-report-text', file: 'synthetic-matrix.txt' });
    expect(s.kvBudget.source).toBe('imported');
    expect(s.hardware.gpuType).toBe('Discrete GPU');
    expect(s.hardware.gpus).toHaveLength(1);
    expect(s.hardware.gpus[0]).toMatchObject({
      name: 'Example GPU',
      vramBytes: 48 * 1024 ** 3,
    });
    expect(s.hardware.os?.platform).toBe('linux');
    expect(s.engine).toMatchObject({
      name: 'vllm',
      version: '0.12.0',
      quantization: 'BF16',
      backend: 'cuda',
      repository: 'github.com/vllm-project/vllm',
      build: 'cuda-12.8',
      commit: '0123456789ab',
      dtype: 'bfloat16',
    });
    expect(s.server).toMatchObject({
      kind: 'imported',
      model: 'example-org/Example-2B',
      servedModel: 'example',
      revision: 'main',
      maxModelLen: 65536,
    });
    expect(s.server.env).toEqual({ MAX_JOBS: '2' });
    expect(s.server.argv.slice(1, 3)).toEqual(['serve', 'example-org/Example-2B']);
    expect(s.server.argv[s.server.argv.indexOf('--api-key') + 1]).toBe('<redacted>');
    expect(s.server.argv[s.server.argv.length - 1]).toBe('{"image":10}');
    expect(s.server.display.endsWith(`--limit-mm-per-prompt '{"image":10}'`)).toBe(true);
    expect(s.runConfig).toMatchObject({
      secondsPerMeasurement: 30,
      maxOutputTokens: 4096,
      benchmarkTool: 'llm-inference-bench v0.7.6',
    });
  });

  it('reads every row of All measurements into prefill results and decode cells', () => {
    const s = imported();
    expect(s.prefill).toHaveLength(2);
    expect(s.cells).toHaveLength(6);
    expect(countByStatus(s)).toEqual({ valid: 4, looped: 1, 'over-capacity': 1 });
    expect(s.runConfig.contexts).toEqual([8192, 32768]);
    expect(s.runConfig.concurrency).toEqual([1, 4, 16]);
    expect(s.runConfig.prefillContexts).toEqual([8192, 32768]);
    expect(s.prefill[0]).toMatchObject({ context: 8192, status: 'valid', tokensPerSecond: 20_000, ttftSeconds: 0.4 });
    const c = s.cells.find((x) => x.context === 8192 && x.concurrency === 16)!;
    expect(c).toMatchObject({
      status: 'valid',
      totalTokensPerSecond: 1200,
      perRequestTokensPerSecond: 75.1,
      avgActiveRequests: 16,
      completedRequests: 0,
      outputTokens: 36_000,
      windowSeconds: 30,
    });
    expect(c.ttft?.p50).toBeCloseTo(0.45, 9);
    expect(c.timeBetweenTokens?.p50).toBeCloseTo(0.0133, 9);
    const looped = s.cells.find((x) => x.context === 32768 && x.concurrency === 4)!;
    expect(looped).toMatchObject({
      status: 'looped',
      totalTokensPerSecond: null,
      completedRequests: 0,
      outputTokens: 0,
      windowSeconds: null,
    });
    const over = s.cells.find((x) => x.context === 32768 && x.concurrency === 16)!;
    expect(over).toMatchObject({ status: 'over-capacity', completedRequests: null, outputTokens: null });
    expect(s.checksUnavailable.join(' ')).toMatch(/only medians/);
  });

  it('round trip: the exported Markdown has the fixture’s All measurements rows, cell for cell', () => {
    const md = renderMarkdownReport(imported());
    const ref = tableAfter(reference(), 'Phase');
    const ours = tableAfter(md, 'Phase');
    expect(ours.length).toBe(ref.length);
    for (let i = 0; i < ref.length; i++) expect(ours[i], `row ${i}`).toEqual(ref[i]);
  });

  it('imports its own Markdown export back to the same measurements', () => {
    const first = imported();
    const again = importText(renderMarkdownReport(first), 'fara.md');
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(again.data.cells).toEqual(first.cells);
    expect(again.data.prefill).toEqual(first.prefill);
    expect(again.data.engine).toEqual(first.engine);
    expect(again.data.server.model).toBe('example-org/Example-2B');
    expect(again.data.hardware.gpus[0].name).toBe(first.hardware.gpus[0].name);
  });

  it("imports a measured session's Markdown back when a TTFT is noted as from few requests", () => {
    const session = sampleSession();
    const cell = session.cells.find((c) => c.ttft !== null)!;
    cell.ttft = { ...cell.ttft!, p50: 0.704, count: 3 };
    const md = renderMarkdownReport(session);
    expect(md).toContain('704 ms (from 3)');
    const again = importText(md, 'measured.md');
    expect(again.ok, again.ok ? '' : again.error).toBe(true);
    if (!again.ok) return;
    const back = again.data.cells.find((c) => c.context === cell.context && c.concurrency === cell.concurrency)!;
    expect(back.ttft!.p50).toBeCloseTo(0.704, 6);
  });

  it('maps every status word, including Requests queued, to session statuses', () => {
    const rows = reference().split('\n');
    const swap = (match: string, word: string) => {
      const i = rows.findIndex((l) => l.startsWith(match));
      rows[i] = rows[i].replace('| Valid |', `| ${word} |`).replace('| Over capacity |', `| ${word} |`);
    };
    swap('| Sustained decode | 8K | 1 |', 'Requests queued');
    swap('| Sustained decode | 8K | 4 |', 'Error');
    swap('| Sustained decode | 8K | 16 |', 'Cancelled');
    swap('| Sustained decode | 32K | 16 |', 'Skipped');
    swap('| Sustained decode | 32K | 1 |', 'Too long');
    const s = imported(rows.join('\n'));
    const at = (ctx: number, c: number) => s.cells.find((x) => x.context === ctx && x.concurrency === c)!;
    expect(at(8192, 1)).toMatchObject({ status: 'queued', totalTokensPerSecond: 100 });
    expect(at(8192, 4).status).toBe('error');
    expect(at(8192, 16).status).toBe('cancelled');
    expect(at(32768, 16).status).toBe('skipped');
    expect(at(32768, 1).status).toBe('too-long');
    const md = renderMarkdownReport(s);
    expect(md).toContain('| Sustained decode | 8K | 1 | Requests queued | 100.0 |');
  });

  it('refuses a truncated table, an unknown status and a missing column, naming the row', () => {
    const text = reference();
    const cut = text.slice(0, text.indexOf('| Sustained decode | 8K | 16 |') + 30);
    const a = importText(cut, 'cut.txt');
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.error).toMatch(/cut\.txt.*truncated/);

    const b = importText(text.replace('| 32K | 4 | Looped |', '| 32K | 4 | Wobbly |'), 'odd.txt');
    expect(b.ok).toBe(false);
    if (!b.ok)
      expect(b.error).toMatch(/odd\.txt, All measurements row \d+ .*unknown status "Wobbly"; expected one of Valid, /);

    const c = importText(text.replace('| Time between tokens |', '| Gap |'), 'cols.txt');
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.error).toContain('no "Time between tokens" column');

    const d = importText(text.replace('| 8K | 1 | Valid | 100.0 |', '| 8K | 1 | Valid | fast |'), 'bad.txt');
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toContain('"fast" is not a valid Total tok/s value');
  });

  it('refuses text that is not a report, saying what it expected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-import-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'Speed test matrix\nsome notes about a run, no table here\n');
    const r = await importFile(notes);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain('notes.txt is not a file SpeedMatrix can import');
      expect(r.error).toContain('All measurements');
      expect(r.error).toContain('benchmark_results.json');
    }
  });
});

describe('import: a long-context run on a named NVIDIA card', () => {
  const longRun = () => {
    const r = importText(readFileSync(SYNTHETIC_LONG_CONTEXT_REPORT, 'utf8'), 'synthetic-long-context.txt');
    if (!r.ok) throw new Error(r.error);
    return r.data;
  };

  it('reads "251K" as the largest usable context, max_model_len less the max output and 64 (257,984 tokens)', () => {
    const s = longRun();
    // 262,144 - 4,096 - 64 = 257,984, which prints as 251K; a plain 251 x 1,024 would be 257,024.
    expect(s.runConfig.contexts).toEqual([8192, 257_984]);
    expect(s.runConfig.prefillContexts).toEqual([8192, 257_984, 262_144]);
    expect(s.cells.find((c) => c.context === 257_984 && c.concurrency === 1)).toMatchObject({
      status: 'valid',
      totalTokensPerSecond: 60,
    });
    expect(s.cells.find((c) => c.context === 257_984 && c.concurrency === 2)?.status).toBe('over-capacity');
  });

  it('names the GPU vendor from the card name', () => {
    const s = longRun();
    expect(s.hardware.gpus).toEqual([
      expect.objectContaining({
        name: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
        vendor: 'nvidia',
        vramBytes: 96 * 1024 ** 3,
      }),
    ]);
    // A card name the importer does not know stays "other", never guessed.
    expect(imported().hardware.gpus[0].vendor).toBe('other');
  });

  it('keeps the 251K context through its own Markdown export', () => {
    const first = longRun();
    const again = importText(renderMarkdownReport(first), 'long.md');
    if (!again.ok) throw new Error(again.error);
    expect(again.data.runConfig.contexts).toEqual([8192, 257_984]);
    expect(again.data.cells).toEqual(first.cells);
    expect(again.data.hardware.gpus[0].vendor).toBe('nvidia');
  });
});

describe('import: the CPU line of the Hardware block', () => {
  const withCpu = (cpu: string) => reference().replace('- OS\n- linux\n', `- OS\n- linux\n- CPU\n- ${cpu}\n`);

  it('keeps the core count of "(14C)" and of "(32 cores, 64 threads)", and the threads where given', () => {
    const short = importText(withCpu('Intel Xeon E5-2680 v4 (14C)'), 'page.txt');
    if (!short.ok) throw new Error(short.error);
    expect(short.data.hardware.cpu).toEqual({ model: 'Intel Xeon E5-2680 v4', cores: 14, threads: null });
    const long = importText(withCpu('AMD EPYC 9355 (32 cores, 64 threads)'), 'page.txt');
    if (!long.ok) throw new Error(long.error);
    expect(long.data.hardware.cpu).toEqual({ model: 'AMD EPYC 9355', cores: 32, threads: 64 });
  });

  it('round-trips through SpeedMatrix’s own Markdown report', () => {
    const first = importText(withCpu('Intel Xeon E5-2680 v4 (14C)'), 'page.txt');
    if (!first.ok) throw new Error(first.error);
    const again = importText(renderMarkdownReport(first.data), 'report.md');
    if (!again.ok) throw new Error(again.error);
    expect(again.data.hardware.cpu).toEqual({ model: 'Intel Xeon E5-2680 v4', cores: 14, threads: null });
  });
});
