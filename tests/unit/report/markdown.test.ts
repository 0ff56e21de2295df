import { describe, expect, it } from 'vitest';
import { importFile, importText } from '../../../src-main/workflows/importers/index';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { notRecordedHardware } from '../../../src-main/workflows/orchestrator/server-hardware';
import { createSession } from '../../../src-main/platform/session/create';
import { modelNameOf } from '#shared/report/report-blocks';
import type { Session } from '#shared/session/schema';
import { SYNTHETIC_REPORT } from '../../helpers/paths';
import { sampleCell, sampleSession } from '../../helpers/sample-session';
import { markdownBlock, referenceBlock, referenceLines, referenceText, tableAfter } from './reference-text';

async function referenceSession(): Promise<Session> {
  const r = await importFile(SYNTHETIC_REPORT);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

const sectionOf = (md: string, heading: string): string => {
  const start = md.indexOf(`\n## ${heading}\n`);
  const next = md.indexOf('\n## ', start + 4);
  return md.slice(start, next < 0 ? undefined : next);
};

describe('Markdown report, section by section against the reference', () => {
  it('starts with the kicker, the title, the engine line and the matrix line', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const ref = referenceLines();
    const lines = md.split('\n').filter((l) => l.trim() !== '');
    expect(lines[0]).toBe(ref[0]); // "Speed test matrix"
    expect(lines[1]).toBe(`# ${ref[1]}`); // "# Example-2B on Example GPU 48GB"
    // The web page runs the engine line and the matrix line together; we print them apart.
    const engineLine = lines[3];
    const matrixLine = lines[4];
    expect(engineLine).toBe('vllm · 0.12.0 · BF16');
    expect(matrixLine).toBe('2 contexts (8K–32K) × 3 concurrency levels (1–16) · prefill at 8K, 32K');
    expect(ref[2]).toBe(engineLine + matrixLine);
  });

  it('has the reference sections in the reference order', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const order = ['Hardware', 'Engine', 'Run', 'Launch command', 'Prefill', 'Sustained decode', 'All measurements'];
    const positions = order.map((h) => md.indexOf(`\n## ${h}\n`));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('Hardware, Engine and Run blocks hold the reference rows, in order', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const hw = referenceBlock('Hardware', 'Engine');
    expect(hw).toEqual([
      ['Type', 'Discrete GPU'],
      ['GPU', 'Example GPU'],
      ['VRAM', '48 GB'],
      ['OS', 'linux'],
    ]);
    expect(markdownBlock(md, 'Hardware')).toEqual(hw);
    expect(markdownBlock(md, 'Engine')).toEqual(referenceBlock('Engine', 'Run'));
    const run = referenceBlock('Run', 'Launch command');
    expect(run.map((r) => r[0])).toContain('Max output');
    // Ours may add rows after the reference's (here the max model length from the launch flags).
    expect(markdownBlock(md, 'Run').slice(0, run.length)).toEqual(run);
  });

  it('prints the launch command with the API key redacted, exactly as the reference', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const ref = referenceLines();
    const launch = ref[ref.indexOf('Launch command') + 1].replace(/Prefill$/, '');
    const block = /## Launch command\n\n(`{3,})text\n([\s\S]*?)\n\1/.exec(md);
    expect(block?.[2]).toBe(launch);
    expect(launch).toContain('--api-key <redacted>');
  });

  it('Prefill table has the reference chart points: context, prompt tok/s, TTFT', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const refPoints = referenceText()
      .split('\n')
      .map((l) => /(\d+K) context([\d.,]+K?)([\d,]+ ms) TTFT$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2], m[3]]);
    expect(refPoints).toHaveLength(2);
    const table = tableAfter(sectionOf(md, 'Prefill'), 'Context');
    expect(table[0]).toEqual(['Context', 'Prompt tok/s', 'TTFT']);
    expect(table.slice(1)).toEqual(refPoints);
  });

  it('Sustained decode matrix: each cell is the reference cell (tok/s and TTFT run together there)', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const ref = tableAfter(referenceText(), 'Context').filter((r) => r.length === 4);
    const ours = tableAfter(sectionOf(md, 'Sustained decode'), 'Context');
    expect(ours[0]).toEqual(ref[0]);
    expect(ours).toHaveLength(ref.length);
    for (let i = 1; i < ref.length; i++) {
      // "100.0 · 40 ms TTFT" prints on the web page as "100.040 ms TTFT".
      expect(ours[i].map((c) => c.replace(' · ', ''))).toEqual(ref[i]);
    }
  });

  it('explains the status words and the TTFT note as the reference does', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const ref = referenceText();
    const decode = sectionOf(md, 'Sustained decode');
    for (const word of ['Looped', 'Over capacity']) {
      const line = decode.split('\n').find((l) => l.startsWith(`${word}: `));
      expect(line, word).toBeDefined();
      expect(ref).toContain(line!);
    }
    // The reference explains only the statuses its cells have; so do we (no Requests queued here).
    expect(decode).not.toMatch(/^Requests queued/m);
    // The reference's "so it mostly excludes prefill" claims more than a queued request's TTFT bears out.
    const ttftNote = decode.split('\n').find((l) => l.startsWith('TTFT is measured'));
    expect(ttftNote).toMatch(/^TTFT is measured after the benchmark warms the server's prompt cache: /);
    expect(ttftNote).not.toContain('mostly excludes prefill');
  });

  it('prints the legend once, after the matrix, and nothing of it when every cell is Valid', async () => {
    const md = renderMarkdownReport(await referenceSession());
    expect(md.match(/^Looped: /gm)).toHaveLength(1);
    expect(md.match(/^Over capacity: /gm)).toHaveLength(1);
    const valid = sampleSession();
    valid.cells = [sampleCell(8192, 1), sampleCell(8192, 2)];
    expect(renderMarkdownReport(valid)).not.toMatch(/^(Looped|Over capacity|Requests queued):/m);
  });

  it("keeps an imported report's own status definitions: ours only where they are the reference's words", async () => {
    // The same report with a Requests queued cell: that status was decided by the tool that wrote it.
    const text = referenceText().replace(
      '| Sustained decode | 8K | 4 | Valid |',
      '| Sustained decode | 8K | 4 | Requests queued |',
    );
    const r = importText(Buffer.from(text), 'queued.txt');
    if (!r.ok) throw new Error(r.error);
    expect(r.data.cells.find((c) => c.concurrency === 4 && c.context === 8192)?.status).toBe('queued');
    const md = renderMarkdownReport(r.data);
    const queued = md.split('\n').filter((l) => l.startsWith('Requests queued: '));
    expect(queued).toEqual([
      "Requests queued: as defined by the source tool (llm-inference-bench v0.7.6); SpeedMatrix's own rule for this status was not applied.",
    ]);
    expect(md).not.toContain('once-a-second checks');
    expect(referenceText()).toContain(md.split('\n').find((l) => l.startsWith('Looped: ')));
    // Our own measurement keeps our definition.
    const own = sampleSession();
    own.cells = [sampleCell(8192, 1, { status: 'queued' })];
    expect(renderMarkdownReport(own)).toMatch(/^Requests queued: measured, but .*once-a-second checks/m);
  });

  it('marks the cells that miss the targets in the matrix, as the capacity note says', async () => {
    const { parseTargets } = await import('#shared/report/slo');
    const md = renderMarkdownReport(await referenceSession(), { targets: parseTargets('ttft<=100ms') });
    const rows = tableAfter(sectionOf(md, 'Sustained decode'), 'Context');
    expect(rows[1]).toEqual([
      '8K',
      '100.0 · 40 ms TTFT',
      '380.0 · 120 ms TTFT · misses the targets',
      '1,200.0 · 450 ms TTFT · misses the targets',
    ]);
    expect(rows[2]).toEqual(['32K', '90.0 · 150 ms TTFT · misses the targets', 'Looped', 'Over capacity']);
    expect(sectionOf(md, 'Capacity within targets')).toContain('marked "misses the targets" in the matrix');
  });

  it('All measurements: same caption, exactly the reference columns, and the same rows', async () => {
    const md = renderMarkdownReport(await referenceSession());
    const section = sectionOf(md, 'All measurements');
    expect(referenceText()).toContain(section.split('\n')[3]); // "Latencies are medians. ..."
    const ref = tableAfter(referenceText(), 'Phase');
    const ours = tableAfter(section, 'Phase');
    expect(ours[0]).toEqual([
      'Phase',
      'Context',
      'Requests at once',
      'Status',
      'Total tok/s',
      'Per request tok/s',
      'TTFT',
      'Time between tokens',
      'Average active requests',
      'Completed requests',
      'Output tokens',
      'Measured for',
    ]);
    expect(ours[0]).toEqual(ref[0]);
    expect(ours.length).toBe(ref.length);
    ours.forEach((row, i) => expect(row, `row ${i}`).toEqual(ref[i]));
  });
});

describe('Markdown report: formats, labels, missing parts and escaping', () => {
  it("a cell whose verdict differs from the reference tool's 95% rule says both; a cell that agrees says nothing of it", () => {
    const s = sampleSession();
    s.cells = [
      sampleCell(8192, 1, {
        reason: 'request turnover: the server ran 0.9 of 1 on average',
        referenceVerdict: {
          status: 'queued',
          says: 'average active requests 0.9 is below 95% of 1',
          differs: "by Little's law the shortfall is request turnover",
        },
      }),
      sampleCell(8192, 4),
    ];
    const md = renderMarkdownReport(s);
    expect(md).toContain(
      "8K context × 1 at once: Valid: request turnover: the server ran 0.9 of 1 on average. The reference tool's 95% rule says Requests queued (average active requests 0.9 is below 95% of 1); this verdict differs: by Little's law the shortfall is request turnover.",
    );
    expect(md.match(/reference tool's 95% rule/g)).toHaveLength(1);
  });

  it('prints figures in the reference formats', () => {
    const s = sampleSession();
    s.runConfig.contexts = [257984];
    s.runConfig.concurrency = [4];
    s.prefill = [
      {
        context: 8192,
        status: 'valid',
        reason: null,
        promptTokens: 8192,
        ttftSeconds: 1.0534,
        tokensPerSecond: 34_567,
        measuredAt: null,
      },
    ];
    s.cells = [
      sampleCell(257984, 4, {
        totalTokensPerSecond: 2646.66,
        perRequestTokensPerSecond: 661.7,
        ttft: { p50: 0.2364, p90: 0.3, p99: 0.4, mean: 0.25 },
        timeBetweenTokens: { p50: 0.00701, p90: 0.008, p99: 0.01, mean: 0.0072 },
        avgActiveRequests: 3.96,
        completedRequests: 0,
        outputTokens: 79392,
        windowSeconds: 30.004,
      }),
    ];
    const rows = tableAfter(renderMarkdownReport(s), 'Phase');
    expect(rows[1]).toEqual(['Prefill', '8K', '1', 'Valid', '34.6K', '—', '1,053 ms', '—', '—', '1', '—', '—']);
    expect(rows[2]).toEqual([
      'Sustained decode',
      '251K',
      '4',
      'Valid',
      '2,646.7',
      '661.7',
      '236 ms',
      '7.0 ms',
      '4.0',
      '0',
      '79,392',
      '30.0 s',
    ]);
  });

  it('labels a simulated session near the title', () => {
    const s = { ...sampleSession(), simulated: true };
    const head = renderMarkdownReport(s).split('\n').slice(0, 6).join('\n');
    expect(head).toContain('SIMULATED');
    expect(renderMarkdownReport(sampleSession())).not.toContain('SIMULATED');
  });

  it('titles a remote server whose hardware nobody gave by its model, saying the hardware is not recorded', () => {
    const s = { ...sampleSession(), hardware: notRecordedHardware() };
    expect(renderMarkdownReport(s).split('\n')).toContain(`# ${modelNameOf(s)} (hardware not recorded)`);
    expect(renderMarkdownReport(s)).not.toContain('unknown GPU');
    expect(renderMarkdownReport(sampleSession())).toMatch(/^# .+ on .+$/m);
  });

  it('renders an empty session and says what is missing', () => {
    const md = renderMarkdownReport(createSession());
    expect(md).toContain('Missing from this session');
    expect(md).toContain('- Hardware: not recorded.');
    expect(md).toContain('- Launch command: not recorded.');
    expect(md).toContain('- Prefill: no measurements.');
    expect(md).toContain('No decode measurements in this session.');
    expect(md).toContain('## All measurements');
  });

  it('says how many cells of the planned matrix have no measurement yet', () => {
    const s = sampleSession();
    s.runConfig.concurrency = [1, 2, 4];
    const md = renderMarkdownReport(s);
    expect(md).toContain('Sustained decode: 2 cells have no measurement.');
    const matrix = tableAfter(sectionOf(md, 'Sustained decode'), 'Context');
    expect(matrix[1][3]).toBe('—');
  });

  it('shows Requests queued figures with the word, and every status word in the table', () => {
    const s = sampleSession();
    s.cells = [
      sampleCell(8192, 1, { status: 'queued', readinessTimedOut: true }),
      sampleCell(8192, 2, { status: 'error', reason: 'HTTP 500: CUDA out of memory', totalTokensPerSecond: null }),
      sampleCell(16384, 1, { status: 'cancelled', totalTokensPerSecond: null }),
      sampleCell(16384, 2, { status: 'skipped', totalTokensPerSecond: null }),
    ];
    const md = renderMarkdownReport(s);
    const matrix = tableAfter(sectionOf(md, 'Sustained decode'), 'Context');
    expect(matrix[1]).toEqual(['8K', '141.4 · 37 ms TTFT · Requests queued', 'Error']);
    expect(matrix[2]).toEqual(['16K', 'Cancelled', 'Skipped']);
    expect(md).toContain('8K context × 2 at once: Error: HTTP 500: CUDA out of memory.');
    expect(md).toMatch(/^Error: /m);
  });

  it('adds energy per token and telemetry sections only when the session has them', () => {
    const plain = renderMarkdownReport(sampleSession());
    expect(plain).not.toContain('## Energy per token');
    const s = sampleSession();
    s.cells[0] = {
      ...s.cells[0],
      telemetry: {
        avgGpuUtilization: 0.97,
        avgPowerWatts: 412.4,
        avgSmClockHz: 2.1e9,
        avgMemoryUsedBytes: 80 * 1024 ** 3,
        avgTemperatureC: 71,
        throttleReasons: ['sw_power_cap'],
        energyPerTokenJoules: 2.917,
      },
    };
    const md = renderMarkdownReport(s);
    const energy = tableAfter(sectionOf(md, 'Energy per token'), 'Context');
    expect(energy[1]).toEqual(['8K', '2.92 J/token', '—']);
    const tele = tableAfter(sectionOf(md, 'GPU telemetry per measurement'), 'Context');
    expect(tele[1]).toEqual(['8K', '1', '97%', '412 W', '2,100 MHz', '80 GB', '71 °C', 'sw_power_cap', '2.92 J/token']);
  });

  it('escapes strings from the session so tables keep their shape and no HTML gets in', () => {
    const s = sampleSession();
    const evil = 'evil|<script>alert(1)</script>*x*`y`[z](javascript:alert(1))';
    s.server.model = evil;
    s.server.servedModel = evil;
    s.engine.version = evil;
    s.hardware.gpus[0].name = evil;
    s.cells[3] = { ...s.cells[3], reason: `${evil}\nsecond line` };
    const md = renderMarkdownReport(s);
    expect(md).not.toMatch(/<script/i);
    expect(md).not.toMatch(/(?<!\\)\]\(javascript:/);
    for (const row of md.split('\n').filter((l) => l.startsWith('| Sustained decode') || l.startsWith('| Prefill'))) {
      expect(row.split(/(?<!\\)\|/).length - 2).toBe(12);
    }
    expect(md).toContain('evil\\|&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('writes comparisons and ampersands as written, without HTML entities, where no tag could open', () => {
    const s = sampleSession();
    s.cells[3] = { ...s.cells[3], status: 'error', reason: 'TTFT p90 3,211 ms > 2,000 ms & TBT <= 50 ms' };
    const md = renderMarkdownReport(s);
    expect(md).toContain('TTFT p90 3,211 ms > 2,000 ms & TBT <= 50 ms');
    expect(md).not.toMatch(/&(gt|lt|amp);/);
    // An entity written in the text stays that text, not the character it names.
    s.cells[3] = { ...s.cells[3], reason: 'R&amp;D' };
    expect(renderMarkdownReport(s)).toContain('R\\&amp;D');
  });

  it('never prints an API key, even when the session holds one in its launch line', () => {
    const s = sampleSession();
    s.server.display = 'HF_TOKEN=hf_abcdefgh12345 vllm serve m --api-key sk-live-0123456789 --port 8000';
    const md = renderMarkdownReport(s);
    expect(md).not.toContain('sk-live-0123456789');
    expect(md).not.toContain('hf_abcdefgh12345');
    expect(md).toContain('--api-key <redacted>');
    expect(md).toContain('HF_TOKEN=<redacted>');
  });
});
