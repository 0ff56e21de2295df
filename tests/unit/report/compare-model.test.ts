/**
 * The comparison as data (compare-model.ts), rule by rule: which settings it lists and hides, how a
 * pair of cells without a ratio says why, what a tie looks like, and the tables every form lays out.
 */
import { describe, expect, it } from 'vitest';
import {
  compareSessions,
  deltasCaption,
  deltasTable,
  differencesTable,
  fmtRatio,
  labelOf,
  prefillCaption,
  prefillSeriesName,
  prefillTable,
  ratioCaption,
  ratioTable,
} from '#shared/report/compare-model';
import { divergingColor, statusColor } from '#shared/report/matrix-model';
import type { Session } from '#shared/session/schema';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

/** The sample session with every cell's total scaled, as another setup would measure it. */
function scaled(factor: number, edit: (s: Session) => void = () => {}): Session {
  const s = sampleSession();
  for (const c of s.cells) if (c.totalTokensPerSecond !== null) c.totalTokensPerSecond *= factor;
  edit(s);
  return s;
}
const row = (s: readonly Session[], field: string) => compareSessions(s).differences.find((d) => d.field === field);

describe('the settings side by side', () => {
  it('lists the hardware, engine and run settings as each session recorded them, and marks the ones that differ', () => {
    const b = scaled(1, (s) => {
      s.hardware.gpus[0].driver = '590.10';
      s.simulated = true;
      s.runConfig.repeat = 3;
    });
    const pair = [sampleSession(), b];
    expect(row(pair, 'Driver')).toEqual({
      section: 'Hardware',
      field: 'Driver',
      values: ['580.95.05', '590.10'],
      differs: true,
    });
    expect(row(pair, 'CUDA')).toMatchObject({ values: ['13.0', '13.0'], differs: false });
    expect(row(pair, 'Power limit')?.values).toEqual(['600 W', '600 W']);
    expect(row(pair, 'CPU')?.values[0]).toBe('AMD EPYC 9355');
    expect(row(pair, 'RAM')?.values[0]).toMatch(/^\d[\d,.]* GB$/);
    expect(row(pair, 'OS')?.values[0]).toBe('linux');
    expect(row(pair, 'Quantization')).toMatchObject({ section: 'Engine', values: ['BF16', 'BF16'] });
    expect(row(pair, 'Commit')?.values[0]).toBe('73a5831127a9');
    expect(row(pair, 'Served model')).toMatchObject({ section: 'Run', values: ['fara', 'fara'] });
    expect(row(pair, 'Repeat each cell')).toMatchObject({ values: ['1×', '3×'], differs: true });
    expect(row(pair, 'Time per measurement')?.values[0]).toBe('30 s');
    expect(row(pair, 'Max output')?.values[0]).toBe('4,096 tokens');
    expect(row(pair, 'KV cache')?.values[0]).toBe('1,066,608 tokens');
    expect(row(pair, 'Simulated')).toMatchObject({ values: ['no', 'yes'], differs: true });
    expect(row(pair, 'Written by')?.values[0]).toMatch(/^SpeedMatrix \S+/);
  });

  it('lists every setting that can change a figure, section by section, in one order', () => {
    const m = compareSessions([sampleSession(), sampleSession()]);
    expect(m.differences.map((d) => [d.section, d.field, d.values[0]])).toEqual([
      ['Hardware', 'GPU', 'RTX PRO 6000 Blackwell Server Edition 96GB'],
      ['Hardware', 'GPU type', 'Discrete GPU'],
      ['Hardware', 'Driver', '580.95.05'],
      ['Hardware', 'CUDA', '13.0'],
      ['Hardware', 'Power limit', '600 W'],
      ['Hardware', 'CPU', 'AMD EPYC 9355'],
      ['Hardware', 'RAM', '512 GB'],
      ['Hardware', 'OS', 'linux'],
      ['Engine', 'Engine', 'vllm'],
      ['Engine', 'Version', '0.30.1rc1.dev452+g73a583112'],
      ['Engine', 'Quantization', 'BF16'],
      ['Engine', 'Backend', 'cuda'],
      ['Engine', 'Build', 'cuda-13.2'],
      ['Engine', 'Commit', '73a5831127a9'],
      ['Run', 'Model', 'microsoft/Fara1.5-4B'],
      ['Run', 'Served model', 'fara'],
      ['Run', 'Benchmark tool', 'SpeedMatrix 0.1.0'],
      ['Run', 'Written by', `SpeedMatrix ${sampleSession().appVersion}`],
      ['Run', 'Repeat each cell', '1×'],
      ['Run', 'Time per measurement', '30 s'],
      ['Run', 'Max output', '4,096 tokens'],
      ['Run', 'Token targeting', 'exact'],
      ['Run', 'KV cache', '1,066,608 tokens'],
      ['Run', 'Simulated', 'no'],
      ['Launch', '--served-model-name', 'fara'],
      ['Launch', 'env MAX_JOBS', '2'],
    ]);
    expect(m.differences.every((d) => !d.differs)).toBe(true);
  });

  it('shows "—" for a setting one session did not record, and leaves out a setting neither recorded', () => {
    const none = scaled(1, (s) => {
      s.hardware.gpus = [];
      s.hardware.ramBytes = null as never;
      s.kvBudget.tokens = null;
      s.engine.build = null;
    });
    const pair = [sampleSession(), none];
    expect(row(pair, 'Driver')).toMatchObject({ values: ['580.95.05', '—'], differs: true });
    expect(row(pair, 'GPU')?.values[1]).toBe('—');
    expect(row(pair, 'KV cache')?.values[1]).toBe('—');
    expect(row([none, none], 'Driver')).toBeUndefined();
    expect(row([none, none], 'Build')).toBeUndefined();
    expect(row([none, none], 'RAM')).toBeUndefined();
  });

  it('an empty setting reads as not recorded, and a session without its OS recorded still compares', () => {
    const b = scaled(1, (s) => {
      s.engine.build = '';
      s.hardware.os = null;
    });
    const pair = [sampleSession(), b];
    expect(row(pair, 'Build')?.values).toEqual(['cuda-13.2', '—']);
    expect(row(pair, 'OS')?.values).toEqual(['linux', '—']);
  });

  it('lists each launch flag and environment variable, but never a secret', () => {
    const b = scaled(1, (s) => {
      s.server.display =
        'env MAX_JOBS=4 HF_HOME=/h vllm serve microsoft/Fara1.5-4B --served-model-name fara --api-key k --hf-token t --token u --password p';
    });
    const m = compareSessions([sampleSession(), b]);
    const launch = m.differences.filter((d) => d.section === 'Launch').map((d) => [d.field, d.values]);
    expect(launch).toEqual([
      ['--served-model-name', ['fara', 'fara']],
      ['env HF_HOME', ['—', '/h']],
      ['env MAX_JOBS', ['2', '4']],
    ]);
  });

  it('leaves out --port: where the server listened changes no figure, and the demo picks a free one each run', () => {
    const [a, b] = [43211, 38297].map((port) =>
      scaled(1, (s) => {
        s.server.display = `speedmatrix sim serve m --port ${port} --max-num-seqs 8`;
      }),
    );
    const m = compareSessions([a, b]);
    expect(m.differences.filter((d) => d.section === 'Launch').map((d) => [d.field, d.differs])).toEqual([
      ['--max-num-seqs', false],
    ]);
  });

  it('reads the launch from the argv and env when no display line was kept', () => {
    const b = scaled(1, (s) => {
      s.server.display = '  ';
      s.server.argv = ['vllm', 'serve', 'm', '--max-num-seqs', '8'];
      s.server.env = { VLLM_USE_V1: '1' };
    });
    const m = compareSessions([sampleSession(), b]);
    expect(m.differences.find((d) => d.field === '--max-num-seqs')?.values).toEqual(['—', '8']);
    expect(m.differences.find((d) => d.field === 'env VLLM_USE_V1')?.values).toEqual(['—', '1']);
  });
});

describe('an order that does not depend on the order the sessions hold things in', () => {
  it('contexts, concurrencies, prefill contexts, deltas and launch flags come out sorted', () => {
    const a = sampleSession();
    a.cells = [...a.cells].reverse().filter((c) => c.context === 16384 || c.concurrency === 2);
    a.prefill = [a.prefill[1]];
    a.server.display = 'vllm serve m --max-num-seqs 8 --enable-chunked-prefill';
    const b = sampleSession();
    b.cells = [sampleCell(4096, 4), sampleCell(8192, 1), sampleCell(4096, 1)];
    b.prefill = [{ ...a.prefill[0], context: 4096 }];
    const m = compareSessions([a, b]);
    expect(m.decode[0].contexts).toEqual([4096, 8192, 16384]);
    expect(m.decode[0].concurrency).toEqual([1, 2, 4]);
    expect(m.prefill.map((p) => p.context)).toEqual([4096, 16384]);
    expect(m.deltas.map((d) => `${d.context}x${d.concurrency}`)).toEqual([
      '4096x1',
      '4096x4',
      '8192x1',
      '8192x2',
      '16384x1',
      '16384x2',
    ]);
    expect(m.differences.filter((d) => d.section === 'Launch').map((d) => d.field)).toEqual([
      '--enable-chunked-prefill',
      '--max-num-seqs',
      '--served-model-name',
      'env MAX_JOBS',
    ]);
  });
});

describe('prefill side by side', () => {
  it('lists every context either session measured, with each over the first where both have a figure', () => {
    const b = scaled(1, (s) => {
      s.prefill = [
        {
          context: 16384,
          status: 'valid',
          reason: null,
          promptTokens: 16384,
          ttftSeconds: 0.4,
          tokensPerSecond: 68_400,
          measuredAt: null,
        },
        {
          context: 32768,
          status: 'valid',
          reason: null,
          promptTokens: 32768,
          ttftSeconds: 1,
          tokensPerSecond: 30_000,
          measuredAt: null,
        },
      ];
    });
    const m = compareSessions([sampleSession(), b]);
    expect(m.prefill.map((p) => [p.context, p.tokensPerSecond, p.ratios])).toEqual([
      [8192, [34_600, null], [null, null]],
      [16384, [34_200, 68_400], [null, 2]],
      [32768, [null, 30_000], [null, null]],
    ]);
    expect(m.prefill[1].ttftSeconds).toEqual([0.474, 0.4]);
  });
});

describe('the ratio of a pair of cells', () => {
  const at = (s: Session[], context: number, concurrency: number, against = 0) => {
    const r = compareSessions(s).decode[against];
    return r.rows[r.contexts.indexOf(context)][r.concurrency.indexOf(concurrency)];
  };

  it('a clear difference: the ratio, its verdict and both figures in the title', () => {
    expect(at([sampleSession(), scaled(1.5)], 8192, 1)).toMatchObject({
      ratio: 1.5,
      verdict: 'faster',
      headline: true,
      note: null,
      figure: '1.50×',
      text: '1.50×',
      fill: divergingColor(1.5),
      title: '8K context × 1 at once: B 212.1 / A 141.4 tok/s = 1.50×, faster',
    });
    expect(at([sampleSession(), scaled(0.5)], 8192, 2).title).toBe(
      '8K context × 2 at once: B 141.4 / A 282.8 tok/s = 0.50×, slower',
    );
  });

  it('a difference within the noise is "the same", drawn as a ratio of 1 whatever the figure', () => {
    expect(at([sampleSession(), scaled(1.01)], 8192, 1)).toMatchObject({
      verdict: 'same',
      figure: '1.01× same',
      text: '1.01× same',
      fill: divergingColor(1),
      title: '8K context × 1 at once: B 142.8 / A 141.4 tok/s = 1.01×, the same within the noise',
    });
  });

  it('two Valid cells with no ratio to take (a zero A) say there is no figure', () => {
    const a = sampleSession();
    a.cells[0].totalTokensPerSecond = 0;
    expect(at([a, sampleSession()], 8192, 1)).toMatchObject({ ratio: null, note: 'no figure', text: 'no figure' });
  });

  it('a side that is not Valid is named beside the ratio and in the title, outside the headline', () => {
    const b = scaled(1.5, (s) => {
      s.cells[0].status = 'queued';
    });
    expect(at([sampleSession(), b], 8192, 1)).toMatchObject({
      headline: false,
      note: 'B: Requests queued',
      text: '1.50× · B: Requests queued',
      title: '8K context × 1 at once: B 212.1 / A 141.4 tok/s = 1.50×, faster (B: Requests queued)',
    });
  });

  it('no ratio says why: a cell one side lacks, or sides without a figure named once or each', () => {
    const b = scaled(1, (s) => {
      s.cells = s.cells.filter((c) => !(c.context === 8192 && c.concurrency === 2));
      s.cells.push(sampleCell(8192, 4));
      s.cells[0].status = 'error';
      s.cells[0].totalTokensPerSecond = null;
    });
    const pair = [sampleSession(), b];
    expect(at(pair, 8192, 2)).toMatchObject({
      ratio: null,
      verdict: null,
      headline: false,
      note: 'not in B',
      figure: 'not in B',
      text: 'not in B',
      fill: statusColor(null),
      title: '8K context × 2 at once: no ratio (not in B)',
    });
    expect(at(pair, 8192, 4).note).toBe('not in A');
    expect(at(pair, 8192, 1).note).toBe('B: Error');
    expect(at(pair, 16384, 2).note).toBe('A and B: Looped');
    const both = scaled(1, (s) => {
      s.cells[0].status = 'error';
      s.cells[0].totalTokensPerSecond = null;
    });
    const a = sampleSession();
    a.cells[0].status = 'looped';
    a.cells[0].totalTokensPerSecond = null;
    expect(at([a, both], 8192, 1).note).toBe('A: Looped, B: Error');
    // The matrix spans the contexts and concurrencies of both.
    const r = compareSessions(pair).decode[0];
    expect([r.contexts, r.concurrency]).toEqual([
      [8192, 16384],
      [1, 2, 4],
    ]);
  });
});

describe('the deltas', () => {
  it('one row per measured cell of any session, in context then concurrency order, "—" where a side has none', () => {
    const b = scaled(1.5, (s) => {
      s.cells = s.cells.filter((c) => !(c.context === 8192 && c.concurrency === 2));
      s.cells.unshift(sampleCell(16384, 4));
    });
    const m = compareSessions([sampleSession(), b]);
    expect(m.deltas.map((d) => `${d.context}x${d.concurrency}`)).toEqual([
      '8192x1',
      '8192x2',
      '16384x1',
      '16384x2',
      '16384x4',
    ]);
    const missing = m.deltas[1];
    expect(missing).toMatchObject({
      statuses: ['Valid', '—'],
      totals: [282.8, null],
      changes: [null, null],
      differences: [null, null],
      changeTexts: ['', '—'],
      totalTexts: ['282.8', '—'],
    });
    expect(missing.ttfts).toEqual([0.037, null]);
    const looped = m.deltas[3];
    expect(looped).toMatchObject({ statuses: ['Looped', 'Looped'], totals: [null, null], ttfts: [null, null] });
    expect(m.deltas[0].changes[1]).toBeCloseTo(0.5, 9);
    expect(m.deltas[0].changeTexts[1]).toMatch(/^\+50\.0%/);
  });
});

describe('the comparison as a whole', () => {
  it('names the sessions by letter or by the names given, and titles them with the engine version', () => {
    const b = scaled(2, (s) => {
      s.engine.version = null;
      s.simulated = true;
    });
    const m = compareSessions([sampleSession(), b], ['base', 'tuned']);
    expect(m.labels).toEqual(['base', 'tuned']);
    expect(m.decode[0].label).toBe('tuned / base');
    expect(m.titles).toEqual([
      'Fara1.5-4B on RTX PRO 6000 Blackwell Server Edition 96GB · vllm 0.30.1rc1.dev452+g73a583112',
      'Fara1.5-4B on RTX PRO 6000 Blackwell Server Edition 96GB',
    ]);
    expect(m.simulated).toEqual([false, true]);
    // Two sessions with one title are told apart by the date each was made (no file).
    const same = compareSessions([sampleSession(), scaled(2)]);
    expect(same.titles[1]).toMatch(/ · vllm \S+ \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/);
  });

  it('letters run A to Z, then by number; a missing ratio is a dash', () => {
    expect([labelOf(0), labelOf(25), labelOf(26)]).toEqual(['A', 'Z', '#27']);
    expect([fmtRatio(1.234), fmtRatio(null)]).toEqual(['1.23×', '—']);
  });

  it('lays out the tables every form shows, against the first session', () => {
    const b = scaled(1.5, (s) => {
      s.engine.version = '0.31.0';
    });
    const m = compareSessions([sampleSession(), b, sampleSession()]);
    const diff = differencesTable(m);
    expect(diff.header).toEqual(['Section', 'Setting', 'A', 'B', 'C', 'Differs']);
    expect(diff.rows.find((r) => r[1] === 'Version')).toEqual([
      'Engine',
      'Version',
      '0.30.1rc1.dev452+g73a583112',
      '0.31.0',
      '0.30.1rc1.dev452+g73a583112',
      '≠',
    ]);
    expect(diff.rows.find((r) => r[1] === 'CUDA')?.[5]).toBe('');
    const prefill = prefillTable(m);
    expect(prefill.header).toEqual([
      'Context',
      'A prompt tok/s',
      'B prompt tok/s',
      'C prompt tok/s',
      'B / A',
      'C / A',
      'A TTFT',
      'B TTFT',
      'C TTFT',
    ]);
    expect(prefill.rows[0]).toEqual([
      '8K',
      '34.6K',
      '34.6K',
      '34.6K',
      '1.00× same',
      '1.00× same',
      '236 ms',
      '236 ms',
      '236 ms',
    ]);
    const ratio = ratioTable(m.decode[0]);
    expect(ratio.header).toEqual(['Context', '1', '2']);
    expect(ratio.rows).toEqual([
      ['8K', '1.50×', '1.50×'],
      ['16K', '1.50×', 'A and B: Looped'],
    ]);
    const deltas = deltasTable(m);
    expect(deltas.header).toEqual([
      'Context',
      'Requests at once',
      'A status',
      'B status',
      'C status',
      'A total tok/s',
      'B total tok/s',
      'C total tok/s',
      'B vs A',
      'C vs A',
      'A TTFT',
      'B TTFT',
      'C TTFT',
    ]);
    expect(deltas.rows[0].slice(0, 8)).toEqual(['8K', '1', 'Valid', 'Valid', 'Valid', '141.4', '212.1', '141.4']);
    expect(deltas.rows[0].slice(10)).toEqual(['37 ms', '37 ms', '37 ms']);
  });

  it('captions name the session the others are compared with', () => {
    const m = compareSessions([sampleSession(), scaled(2)], ['base', 'tuned']);
    for (const caption of [deltasCaption(m), ratioCaption(m), prefillCaption(m)]) expect(caption).toContain('base');
    expect(ratioCaption(m)).toContain('faster than base');
    expect(deltasCaption(m)).toMatch(/^Each measurement side by side; the change is against base,/);
    expect(prefillCaption(m)).toBe(
      'Prompt tok/s by context length, and each session over base ("same": within the prefills\' own noise, at least ±5%; docs/repeats-and-targets.md).',
    );
    expect(prefillSeriesName('B')).toBe('B prompt tok/s');
  });
});
